import type { SqlClient, SqlError } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import * as Fields from "../Http/Fields.js"
import type { SlugTaken } from "./Errors.js"
import { ITEM_KINDS, type ItemKind } from "./Kinds.js"
import { claimSlug } from "./Slugs.js"

/**
 * Positions order collections among their siblings and articles within their collection (ascending, ties by
 * id). A new item, or one moved to another parent, without a position goes after the last one there.
 */

/** Largest `position` of a collection or article. */
export const MAX_POSITION = 1_000_000

/** The optional `position` body field. */
export const positionField = Fields.optional(Fields.integer({ minimum: 0, maximum: MAX_POSITION }))

/** The position after the last item under `parent` (a collection id; null for root collections), 0 when none. */
export const nextPosition = (
  sql: SqlClient.SqlClient,
  kind: ItemKind,
  organizationId: OrganizationId,
  parent: number | null
): Effect.Effect<number, SqlError.SqlError> => {
  const { table, parentColumn: column } = ITEM_KINDS[kind]
  return Effect.map(
    sql<{ readonly next: number }>`
      SELECT COALESCE(max(position) + 1, 0)::int AS next FROM ${sql(table)}
      WHERE organization_id = ${organizationId} AND ${sql(column)} ${parent === null ? sql`IS NULL` : sql`= ${parent}`}`,
    (rows) => rows[0]!.next
  )
}

/**
 * The position a write stores: the one asked for; else, when the item goes under another parent (or is new),
 * after the last one there; else undefined (unchanged).
 */
export const placement = (
  sql: SqlClient.SqlClient,
  kind: ItemKind,
  organizationId: OrganizationId,
  options: { readonly position: number | undefined; readonly movedTo?: { readonly parent: number | null } }
): Effect.Effect<number | undefined, SqlError.SqlError> =>
  options.position !== undefined
    ? Effect.succeed(options.position)
    : options.movedTo === undefined
      ? Effect.succeed(undefined)
      : nextPosition(sql, kind, organizationId, options.movedTo.parent)

/**
 * Where a changed collection or article goes and the slug it takes, in the write's transaction after `lockPortal`:
 * its {@link placement}, and a slug claimed only when the change names one other than the item's (a blank one is
 * generated from `text`).
 */
export const relocation = (
  sql: SqlClient.SqlClient,
  kind: ItemKind,
  organizationId: OrganizationId,
  item: { readonly id: number; readonly slug: string },
  change: {
    readonly position: number | undefined
    readonly movedTo: { readonly parent: number | null } | undefined
    readonly slug: string | undefined
    readonly text: string
  }
): Effect.Effect<
  { readonly position: number | undefined; readonly slug: string | undefined },
  SlugTaken | SqlError.SqlError
> =>
  Effect.all({
    position: placement(sql, kind, organizationId, {
      position: change.position,
      ...(change.movedTo === undefined ? {} : { movedTo: change.movedTo })
    }),
    slug:
      change.slug === undefined || change.slug === item.slug
        ? Effect.succeed(undefined)
        : claimSlug(sql, { kind, organizationId, wanted: change.slug, text: change.text, exceptId: item.id })
  })
