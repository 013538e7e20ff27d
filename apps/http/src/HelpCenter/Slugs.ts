import type { SqlClient, SqlError } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import { SlugTaken } from "./Errors.js"
import { ITEM_KINDS, type ItemKind } from "./Kinds.js"

/**
 * Slugs of collections and articles: unique per organization (collections and articles apart), lowercase,
 * letters, digits, `-` and `_`. An empty slug is generated from the name or title (accents folded, other
 * characters turned into `-`), with `-2`, `-3`, … appended while taken. See docs/decisions/0602-help-center-portal-and-slugs.md.
 * {@link claimSlug} is the one place a write picks its slug.
 */

/** Longest slug, in characters. */
export const MAX_SLUG_LENGTH = 100

/** What an explicit slug may contain (it is lower-cased first). */
export const SLUG_PATTERN = /^[a-z0-9_-]+$/

/** The slug of a text: accents folded, lower-case, runs of other characters as one `-`, trimmed; may be empty. */
export const slugify = (text: string): string =>
  text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/g, "")

/**
 * The first free slug among `base`, `base-2`, `base-3`, … given the taken ones; `fallback` when the base is
 * empty. The base is shortened so that the suffix still fits in {@link MAX_SLUG_LENGTH}.
 */
export const uniqueSlug = (base: string, taken: ReadonlySet<string>, fallback: string): string => {
  const root = base === "" ? fallback : base
  if (!taken.has(root)) return root
  for (let n = 2; ; n++) {
    const suffix = `-${n}`
    const candidate = `${root.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/g, "")}${suffix}`
    if (!taken.has(candidate)) return candidate
  }
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * The slug a collection or article gets: the wanted one when not blank (SlugTaken when another row of the
 * organization has it), else one generated from `text` and free in the organization. Run it in the write's
 * transaction, after `lockPortal`, so two writes cannot pick the same one.
 */
export const claimSlug = (
  sql: SqlClient.SqlClient,
  options: {
    readonly kind: ItemKind
    readonly organizationId: OrganizationId
    readonly wanted: string
    readonly text: string
    readonly exceptId?: number | undefined
  }
): Effect.Effect<string, SlugTaken | SqlError.SqlError> =>
  Effect.gen(function* () {
    const { table: name, fallbackSlug: fallback } = ITEM_KINDS[options.kind]
    const table = sql(name)
    const except = options.exceptId ?? 0
    const taken = (slug: string) =>
      Effect.map(
        sql`SELECT 1 FROM ${table} WHERE organization_id = ${options.organizationId} AND slug = ${slug}
          AND id <> ${except}`,
        (rows) => rows.length > 0
      )
    if (options.wanted !== "") {
      if (yield* taken(options.wanted)) return yield* new SlugTaken({ kind: options.kind, slug: options.wanted })
      return options.wanted
    }
    const base = slugify(options.text)
    const root = base === "" ? fallback : base
    // Every candidate starts with the root cut to leave room for the longest suffix we may append.
    const prefix = escapeLike(root.slice(0, MAX_SLUG_LENGTH - 8))
    const rows = yield* sql<{ readonly slug: string }>`
      SELECT slug FROM ${table} WHERE organization_id = ${options.organizationId} AND slug LIKE ${`${prefix}%`}
        AND id <> ${except}`
    const seen = new Set(rows.map((r) => r.slug))
    // The prefix query finds nearly every clash; an exact check covers the rest (e.g. hand-made `a---2`).
    for (;;) {
      const candidate = uniqueSlug(base, seen, fallback)
      if (!(yield* taken(candidate))) return candidate
      seen.add(candidate)
    }
  })
