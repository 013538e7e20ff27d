import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { MAX_SLUG_LENGTH, slugify, uniqueSlug } from "./Slugs.js"

/**
 * Each organization has exactly one help-center portal, created the first time something is written to it; its
 * id is the `portal` of collections and articles (docs/decisions/0602-help-center-portal-and-slugs.md).
 *
 * Every help-center write runs in a transaction that first locks the organization's portal row, so writes of one
 * organization are serialized: two concurrent moves cannot make a cycle, and slug generation cannot race.
 */

/** Creates the organization's portal when missing and locks it for the current transaction; returns its id. */
export const lockPortal = (sql: SqlClient.SqlClient, organizationId: number) =>
  Effect.gen(function* () {
    yield* sql`INSERT INTO hc_portals (organization_id) VALUES (${organizationId}) ON CONFLICT (organization_id) DO NOTHING`
    const rows = yield* sql<{ readonly id: string }>`
      SELECT id FROM hc_portals WHERE organization_id = ${organizationId} FOR UPDATE`
    return Number(rows[0]!.id)
  })

/** The organization's portal id, creating the portal when missing. */
export const ensurePortal = (sql: SqlClient.SqlClient, organizationId: number) =>
  Effect.gen(function* () {
    const rows = yield* sql<{ readonly id: string }>`
      INSERT INTO hc_portals (organization_id) VALUES (${organizationId})
      ON CONFLICT (organization_id) DO UPDATE SET organization_id = EXCLUDED.organization_id
      RETURNING id`
    return Number(rows[0]!.id)
  })

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * A slug free in the organization's `table` (collections or articles): the wanted one when not blank (or
 * undefined when taken by another row), else one generated from `text`.
 */
export const chooseSlug = (
  sql: SqlClient.SqlClient,
  options: {
    readonly table: "hc_collections" | "hc_articles"
    readonly organizationId: number
    readonly wanted: string
    readonly text: string
    readonly fallback: string
    readonly exceptId?: number | undefined
  }
) =>
  Effect.gen(function* () {
    const table = sql(options.table)
    const except = options.exceptId ?? 0
    if (options.wanted !== "") {
      const rows = yield* sql`
        SELECT 1 FROM ${table} WHERE organization_id = ${options.organizationId} AND slug = ${options.wanted}
          AND id <> ${except}`
      return rows.length === 0 ? options.wanted : undefined
    }
    const base = slugify(options.text)
    const root = base === "" ? options.fallback : base
    // Every candidate starts with the root cut to leave room for the longest suffix we may append.
    const prefix = escapeLike(root.slice(0, MAX_SLUG_LENGTH - 8))
    const rows = yield* sql<{ readonly slug: string }>`
      SELECT slug FROM ${table} WHERE organization_id = ${options.organizationId} AND slug LIKE ${`${prefix}%`}
        AND id <> ${except}`
    const taken = new Set(rows.map((r) => r.slug))
    // The prefix query finds nearly every clash; an exact check covers the rest (e.g. hand-made `a---2`).
    for (;;) {
      const candidate = uniqueSlug(base, taken, options.fallback)
      const clash = yield* sql`
        SELECT 1 FROM ${table} WHERE organization_id = ${options.organizationId} AND slug = ${candidate}
          AND id <> ${except}`
      if (clash.length === 0) return candidate
      taken.add(candidate)
    }
  })
