import type { SqlClient, SqlError } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import * as Fields from "../Http/Fields.js"
import { ITEM_KINDS, type ItemKind } from "./Kinds.js"

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
