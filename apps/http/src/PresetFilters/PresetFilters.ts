import { randomUUID } from "node:crypto"
import { SqlClient, type SqlError } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Schema } from "effect"
import { BigInt8, OrganizationIdColumn, Timestamptz } from "../Database/Columns.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { type Criteria, EMPTY_CRITERIA, fromStored } from "./Criteria.js"
import { VISIBILITIES, type Visibility } from "./PresetFilter.js"

/**
 * Who is looking at filters: a person (who also sees their own personal filters) or an integration token (which
 * sees organization-shared filters only). The kernel's `Caller` is one of these.
 */
export type FilterViewer = { readonly _tag: "Person"; readonly userId: number } | { readonly _tag: "Integration" }

/** A stored custom preset filter. */
export interface StoredPresetFilter {
  /** UUID, lowercase. */
  readonly id: string
  readonly organizationId: OrganizationId
  readonly name: string
  /** Every criterion present; structurally `@helpdesk/domain`'s `PresetFilterCriteria`, so `matches` takes it. */
  readonly criteria: Criteria
  readonly visibility: Visibility
  /** The person who created it; null when an integration token did (or the user was deleted). */
  readonly createdBy: { readonly id: number; readonly email: string; readonly name: string } | null
  readonly createdAt: Date
  readonly updatedAt: Date
  /** Sort key of the list, ascending. */
  readonly position: number
  readonly displayCount: boolean
  readonly groupByPriority: boolean
}

/** No filter with that id is visible to the viewer in that organization (unknown, another org's, or personal). */
export class PresetFilterNotFound extends Schema.TaggedError<PresetFilterNotFound>()("PresetFilterNotFound", {
  id: Schema.String
}) {}

/** What a new filter holds; defaults already applied by the caller where the API defines them. */
export interface NewPresetFilter {
  readonly name: string
  readonly criteria?: Criteria | undefined
  readonly visibility: Visibility
  readonly position?: number | undefined
  readonly displayCount?: boolean | undefined
  readonly groupByPriority?: boolean | undefined
  /** The creating person, or null for an integration token. */
  readonly createdById: number | null
}

/** Changes to a filter; absent fields stay as they are. */
export interface PresetFilterChanges {
  readonly name?: string | undefined
  readonly criteria?: Criteria | undefined
  readonly visibility?: Visibility | undefined
  readonly position?: number | undefined
  readonly displayCount?: boolean | undefined
  readonly groupByPriority?: boolean | undefined
}

/** Orderings of the filter list (default: `position`, then creation). */
export const PresetFilterOrdering = Ordering.make({
  columns: { position: "f.position", name: "lower(f.name)", created_at: "f.created_at", updated_at: "f.updated_at" },
  defaults: ["position", "created_at"],
  tieBreaker: "f.id"
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The filter id a path segment names (lowercase), or undefined when it is not a UUID. */
export const parseFilterId = (segment: string): string | undefined =>
  UUID.test(segment) ? segment.toLowerCase() : undefined

/** A `preset_filters` row joined with its creator, as the `pg` driver reads it. */
const FilterRow = Schema.Struct({
  id: Schema.String,
  organizationId: OrganizationIdColumn,
  name: Schema.String,
  // Normalized by `fromStored`: criteria saved before a criterion existed lack it.
  criteria: Schema.Unknown,
  visibility: Schema.Literal(...VISIBILITIES),
  createdAt: Timestamptz,
  updatedAt: Timestamptz,
  position: Schema.Int,
  displayCount: Schema.Boolean,
  groupByPriority: Schema.Boolean,
  creatorId: Schema.NullOr(BigInt8),
  creatorEmail: Schema.NullOr(Schema.String),
  creatorName: Schema.NullOr(Schema.String)
})

const toStored = (row: typeof FilterRow.Type): StoredPresetFilter => ({
  id: row.id.toLowerCase(),
  organizationId: row.organizationId,
  name: row.name,
  criteria: fromStored(row.criteria),
  visibility: row.visibility,
  createdBy:
    row.creatorId === null ? null : { id: row.creatorId, email: row.creatorEmail ?? "", name: row.creatorName ?? "" },
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
  position: row.position,
  displayCount: row.displayCount,
  groupByPriority: row.groupByPriority
})

const decodeFilters = (rows: ReadonlyArray<unknown>) =>
  Effect.map(Schema.decodeUnknown(Schema.Array(FilterRow))(rows), (decoded) => decoded.map(toStored))

const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ id: BigInt8 })))

/**
 * Custom preset filters of organizations: storage and the visibility rule. Every query is scoped to an
 * organization and to what the viewer may see (personal filters only for their creator; integration tokens only
 * organization-shared ones). Who may change what is decided in `Permissions.ts`.
 */
export class PresetFilters extends Effect.Service<PresetFilters>()("@helpdesk/http/PresetFilters/PresetFilters", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const select = sql`
      SELECT f.*, u.id AS creator_id, u.email AS creator_email, u.name AS creator_name
      FROM preset_filters f LEFT JOIN users u ON u.id = f.created_by_id`

    const visibleTo = (organizationId: OrganizationId, viewer: FilterViewer) =>
      viewer._tag === "Person"
        ? sql`f.organization_id = ${organizationId}
              AND (f.visibility = 'organization' OR f.created_by_id = ${viewer.userId})`
        : sql`f.organization_id = ${organizationId} AND f.visibility = 'organization'`

    /** The filters the viewer sees, as a count and a page fetch for `Pagination.paginate`. */
    const list = (options: {
      readonly organizationId: OrganizationId
      readonly viewer: FilterViewer
      readonly ordering: Ordering.Ordering<string>
    }) => {
      const where = visibleTo(options.organizationId, options.viewer)
      return Pagination.page(sql, {
        from: sql`preset_filters f`,
        select,
        where,
        ordering: options.ordering,
        decode: (row) => toStored(Schema.decodeUnknownSync(FilterRow)(row))
      })
    }

    /**
     * The filter with this id if the viewer may see it in this organization: personal filters only for their
     * creator, organization-shared ones for everyone (integration tokens see only these). Any other id, including
     * one that is not a UUID, fails with `PresetFilterNotFound`.
     */
    const findVisible = (
      organizationId: OrganizationId,
      viewer: FilterViewer,
      id: string
    ): Effect.Effect<StoredPresetFilter, PresetFilterNotFound> =>
      parseFilterId(id) === undefined
        ? Effect.fail(new PresetFilterNotFound({ id }))
        : sql`${select} WHERE f.id = ${id.toLowerCase()} AND ${visibleTo(organizationId, viewer)}`.pipe(
            Effect.flatMap(decodeFilters),
            Effect.orDie,
            Effect.flatMap(([filter]) =>
              filter === undefined ? Effect.fail(new PresetFilterNotFound({ id })) : Effect.succeed(filter)
            ),
            withSpan("PresetFilters.findVisible")
          )

    const byId = (id: string) =>
      sql`${select} WHERE f.id = ${id}`.pipe(
        Effect.flatMap(decodeFilters),
        Effect.map((filters) => filters[0]!)
      )

    /** Stores a new filter; without a position it goes after the organization's last one. */
    const create = (organizationId: OrganizationId, filter: NewPresetFilter) =>
      Effect.gen(function* () {
        const id = randomUUID()
        const criteria = JSON.stringify(filter.criteria ?? EMPTY_CRITERIA)
        yield* sql`
          INSERT INTO preset_filters
            (id, organization_id, name, criteria, visibility, created_by_id, position, display_count, group_by_priority)
          SELECT ${id}, ${organizationId}, ${filter.name}, ${criteria}::jsonb, ${filter.visibility},
                 ${filter.createdById},
                 ${filter.position === undefined ? sql`COALESCE((SELECT max(position) + 1 FROM preset_filters WHERE organization_id = ${organizationId}), 0)` : sql`${filter.position}`},
                 ${filter.displayCount ?? false}, ${filter.groupByPriority ?? false}`
        return yield* byId(id)
      }).pipe(Effect.orDie, withSpan("PresetFilters.create"))

    /** Applies changes to a filter of the organization (visibility and permission already checked). */
    const update = (organizationId: OrganizationId, id: string, changes: PresetFilterChanges) =>
      Effect.gen(function* () {
        const sets = [
          ...(changes.name !== undefined ? [sql`name = ${changes.name}`] : []),
          ...(changes.criteria !== undefined ? [sql`criteria = ${JSON.stringify(changes.criteria)}::jsonb`] : []),
          ...(changes.visibility !== undefined ? [sql`visibility = ${changes.visibility}`] : []),
          ...(changes.position !== undefined ? [sql`position = ${changes.position}`] : []),
          ...(changes.displayCount !== undefined ? [sql`display_count = ${changes.displayCount}`] : []),
          ...(changes.groupByPriority !== undefined ? [sql`group_by_priority = ${changes.groupByPriority}`] : [])
        ]
        if (sets.length > 0)
          yield* sql`UPDATE preset_filters SET ${sql.csv([...sets, sql`updated_at = now()`])}
                     WHERE id = ${id} AND organization_id = ${organizationId}`
        return yield* byId(id)
      }).pipe(Effect.orDie, withSpan("PresetFilters.update"))

    /** Deletes a filter of the organization (visibility and permission already checked). */
    const remove = (organizationId: OrganizationId, id: string) =>
      sql`DELETE FROM preset_filters WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
        Effect.asVoid,
        Effect.orDie,
        withSpan("PresetFilters.remove")
      )

    // Which of the ids a query finds (the statement is only built for a non-empty list).
    const existing = (
      ids: ReadonlyArray<number>,
      query: () => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>
    ) =>
      ids.length === 0
        ? Effect.succeed(new Set<number>())
        : query().pipe(
            Effect.flatMap(decodeIds),
            Effect.map((rows) => new Set(rows.map((row) => row.id)))
          )

    /**
     * The criteria's references that are not objects of the organization: inbox ids that are not its inboxes and
     * assignee ids that are not its members, each as `Invalid pk "<id>" - object does not exist.` under its
     * criterion's name. Empty when every reference holds.
     */
    const unknownReferences = (organizationId: OrganizationId, criteria: Criteria) =>
      Effect.gen(function* () {
        const inboxes = yield* existing(
          criteria.inbox_ids,
          () => sql`SELECT id FROM inboxes
            WHERE organization_id = ${organizationId} AND id IN ${sql.in(criteria.inbox_ids)}`
        )
        const members = yield* existing(
          criteria.assignee_ids,
          () => sql`SELECT user_id AS id FROM memberships
            WHERE organization_id = ${organizationId} AND user_id IN ${sql.in(criteria.assignee_ids)}`
        )
        const errors: Record<string, ReadonlyArray<string>> = {}
        for (const [name, ids, known] of [
          ["inbox_ids", criteria.inbox_ids, inboxes],
          ["assignee_ids", criteria.assignee_ids, members]
        ] as const) {
          const missing = ids.filter((id) => !known.has(id))
          if (missing.length > 0) errors[name] = missing.map((id) => `Invalid pk "${id}" - object does not exist.`)
        }
        return errors
      }).pipe(Effect.orDie, withSpan("PresetFilters.unknownReferences"))

    return { list, findVisible, create, update, remove, unknownReferences } as const
  })
}) {}
