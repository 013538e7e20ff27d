import { SqlClient, type SqlError } from "@effect/sql"
import { Effect } from "effect"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { containsPattern } from "../Search/SearchText.js"
import { type Tag, type TagCreate, type TagUpdate, tagNameKey } from "./Tag.js"
import { TagNameTaken, TagNotFound } from "./TagErrors.js"

/** Orderings of the tag list. */
export const TagOrdering = Ordering.make({
  columns: { id: "id", name: "name_key", created_at: "created_at" },
  defaults: ["name"]
})

interface TagRow {
  readonly id: string
  readonly name: string
  readonly color: string
}

const toTag = (row: TagRow): Tag => ({ id: Number(row.id), name: row.name, color: row.color })

/** Ticket tags of organizations: names unique per organization ignoring case (docs/decisions/0554-tags.md). */
export class Tags extends Effect.Service<Tags>()("@helpdesk/http/Tags/Tags", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const now = Effect.map(
      Effect.clockWith((clock) => clock.currentTimeMillis),
      (ms) => new Date(ms)
    )

    /** The tag with this id in the organization, or undefined. */
    const findById = (organizationId: number, id: number): Effect.Effect<Tag | undefined> =>
      sql<TagRow>`SELECT id, name, color FROM tags WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : toTag(rows[0]))),
        Effect.orDie,
        Effect.withSpan("Tags.findById")
      )

    /**
     * The organization's tags among these ids, in the order of `ids` (duplicates once); ids of unknown tags or of
     * another organization's are left out, so compare lengths to find them.
     */
    const findByIds = (organizationId: number, ids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<Tag>> => {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return Effect.succeed([])
      return sql<TagRow>`SELECT id, name, color FROM tags
        WHERE organization_id = ${organizationId} AND id IN ${sql.in(unique)}`.pipe(
        Effect.map((rows) => {
          const byId = new Map(rows.map((row) => [Number(row.id), toTag(row)]))
          return unique.flatMap((id) => byId.get(id) ?? [])
        }),
        Effect.orDie,
        Effect.withSpan("Tags.findByIds")
      )
    }

    /**
     * The organization's tags with these names (compared ignoring case and surrounding spaces), in the order of
     * `names`, each tag once; unknown names are left out.
     */
    const findByNames = (organizationId: number, names: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Tag>> => {
      const keys = [...new Set(names.map(tagNameKey))]
      if (keys.length === 0) return Effect.succeed([])
      return sql<TagRow & { readonly nameKey: string }>`SELECT id, name, color, name_key FROM tags
        WHERE organization_id = ${organizationId} AND name_key IN ${sql.in(keys)}`.pipe(
        Effect.map((rows) => {
          const byKey = new Map(rows.map((row) => [row.nameKey, toTag(row)]))
          return keys.flatMap((key) => byKey.get(key) ?? [])
        }),
        Effect.orDie,
        Effect.withSpan("Tags.findByNames")
      )
    }

    const nameTaken = (name: string | undefined) => (error: SqlError.SqlError) => {
      const cause = error.cause as { readonly code?: string; readonly constraint?: string } | undefined
      return cause?.code === "23505" && cause.constraint === "tags_name_unique" && name !== undefined
        ? Effect.fail(new TagNameTaken({ name }))
        : Effect.die(error)
    }

    /** Creates a tag. */
    const create = (organizationId: number, input: TagCreate): Effect.Effect<Tag, TagNameTaken> =>
      sql<TagRow>`
        INSERT INTO tags ${sql.insert({
          organizationId,
          name: input.name,
          nameKey: tagNameKey(input.name),
          color: input.color ?? ""
        })}
        RETURNING id, name, color`.pipe(
        Effect.map((rows) => toTag(rows[0]!)),
        Effect.catchTag("SqlError", nameTaken(input.name)),
        Effect.withSpan("Tags.create")
      )

    /** Renames or recolors a tag. */
    const update = (
      organizationId: number,
      id: number,
      changes: TagUpdate
    ): Effect.Effect<Tag, TagNotFound | TagNameTaken> =>
      Effect.gen(function* () {
        const columns: Record<string, unknown> = {}
        if (changes.name !== undefined) {
          columns.name = changes.name
          columns.nameKey = tagNameKey(changes.name)
        }
        if (changes.color !== undefined) columns.color = changes.color ?? ""
        const rows =
          Object.keys(columns).length === 0
            ? yield* sql<TagRow>`SELECT id, name, color FROM tags
                WHERE organization_id = ${organizationId} AND id = ${id}`
            : yield* sql<TagRow>`UPDATE tags SET ${sql.update({ ...columns, updatedAt: yield* now })}
                WHERE organization_id = ${organizationId} AND id = ${id}
                RETURNING id, name, color`
        if (rows[0] === undefined) return yield* new TagNotFound({ id })
        return toTag(rows[0])
      }).pipe(Effect.catchTag("SqlError", nameTaken(changes.name)), Effect.withSpan("Tags.update"))

    /** Deletes a tag. */
    const remove = (organizationId: number, id: number): Effect.Effect<void, TagNotFound> =>
      sql`DELETE FROM tags WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => (rows.length === 0 ? new TagNotFound({ id }) : Effect.void)),
        Effect.withSpan("Tags.remove")
      )

    /** The organization's tags whose name contains every search term, one page in the requested order. */
    const list = (
      organizationId: number,
      options: { readonly search: string; readonly ordering: Ordering.Ordering<string> }
    ) => {
      // Tag names are matched ignoring case only (accents count), as their uniqueness is.
      const where = sql.and([
        sql`organization_id = ${organizationId}`,
        ...options.search
          .toLowerCase()
          .split(/\s+/)
          .filter((term) => term !== "")
          .map((term) => sql`name_key LIKE ${containsPattern(term)}`)
      ])
      return Pagination.page(sql, {
        from: sql`tags`,
        select: sql`SELECT id, name, color FROM tags`,
        where,
        ordering: options.ordering,
        decode: toTag
      })
    }

    return { findById, findByIds, findByNames, create, update, remove, list } as const
  })
}) {}
