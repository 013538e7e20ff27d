import { SqlClient, SqlSchema } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Schema } from "effect"
import * as Repository from "../Database/Repository.js"
import { dieUndecodable, int8 } from "../Database/Rows.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { lowerCaseTerms } from "../Search/SearchText.js"
import { Tag, type TagCreate, TagId, type TagUpdate, tagNameKey } from "./Tag.js"
import { TagNameTaken, TagNotFound } from "./TagErrors.js"

/** Orderings of the tag list. */
export const TagOrdering = Ordering.make({
  columns: { id: "id", name: "name_key", created_at: "created_at" },
  defaults: ["name"]
})

/** A row of `tags` (`id, name, color`): a {@link Tag}. */
const TagRow = Schema.Struct({ ...Tag.fields, id: int8(TagId) })

/** Ticket tags of organizations: names unique per organization ignoring case (docs/decisions/0554-tags.md). */
export class Tags extends Effect.Service<Tags>()("@helpdesk/http/Tags/Tags", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tagRows = Repository.table("tags", TagRow)

    /** The tag with this id in the organization, or undefined. */
    const findById = tagRows.findById(
      "Tags.findById",
      (organizationId, id: TagId) =>
        sql`SELECT id, name, color FROM tags WHERE organization_id = ${organizationId} AND id = ${id}`
    )

    const findAllById = SqlSchema.findAll({
      Request: Schema.Struct({ organizationId: OrganizationId, ids: Schema.Array(Schema.Number) }),
      Result: TagRow,
      execute: ({ organizationId, ids }) =>
        sql`SELECT id, name, color FROM tags WHERE organization_id = ${organizationId} AND id IN ${sql.in(ids)}`
    })

    /**
     * The organization's tags among these ids, in the order of `ids` (duplicates once); ids of unknown tags or of
     * another organization's are left out, so compare lengths to find them.
     */
    const findByIds = (
      organizationId: OrganizationId,
      ids: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyArray<Tag>> => {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return Effect.succeed([])
      return findAllById({ organizationId, ids: unique }).pipe(
        Effect.map((tags) => {
          const byId = new Map<number, Tag>(tags.map((tag) => [tag.id, tag]))
          return unique.flatMap((id) => byId.get(id) ?? [])
        }),
        dieUndecodable("tags"),
        Effect.orDie,
        withSpan("Tags.findByIds")
      )
    }

    const findAllByName = SqlSchema.findAll({
      Request: Schema.Struct({ organizationId: OrganizationId, keys: Schema.Array(Schema.String) }),
      Result: Schema.Struct({ ...TagRow.fields, nameKey: Schema.String }),
      execute: ({ organizationId, keys }) => sql`SELECT id, name, color, name_key FROM tags
        WHERE organization_id = ${organizationId} AND name_key IN ${sql.in(keys)}`
    })

    /**
     * The organization's tags with these names (compared ignoring case and surrounding spaces), in the order of
     * `names`, each tag once; unknown names are left out.
     */
    const findByNames = (
      organizationId: OrganizationId,
      names: ReadonlyArray<string>
    ): Effect.Effect<ReadonlyArray<Tag>> => {
      const keys = [...new Set(names.map(tagNameKey))]
      if (keys.length === 0) return Effect.succeed([])
      return findAllByName({ organizationId, keys }).pipe(
        Effect.map((rows) => {
          const byKey = new Map(rows.map(({ nameKey, ...tag }) => [nameKey, tag]))
          return keys.flatMap((key) => byKey.get(key) ?? [])
        }),
        dieUndecodable("tags"),
        Effect.orDie,
        withSpan("Tags.findByNames")
      )
    }

    // A race lost at the unique name is refused as the name taken.
    const write = (span: string, name: string | undefined) =>
      Repository.write(span, {
        unique: { tags_name_unique: name === undefined ? undefined : () => new TagNameTaken({ name }) }
      })

    const insert = SqlSchema.single({
      Request: Schema.Struct({ organizationId: OrganizationId, name: Schema.String, color: Schema.String }),
      Result: TagRow,
      execute: ({ organizationId, name, color }) => sql`
        INSERT INTO tags ${sql.insert({ organizationId, name, nameKey: tagNameKey(name), color })}
        RETURNING id, name, color`
    })

    /** Creates a tag. */
    const create = (organizationId: OrganizationId, input: TagCreate): Effect.Effect<Tag, TagNameTaken> =>
      insert({ organizationId, name: input.name, color: input.color ?? "" }).pipe(
        dieUndecodable("tags"),
        Effect.catchTag("NoSuchElementException", Effect.die),
        write("Tags.create", input.name)
      )

    /** Renames or recolors a tag. */
    const update = (organizationId: OrganizationId, id: TagId, changes: TagUpdate) =>
      Effect.gen(function* () {
        const columns: Record<string, unknown> = {}
        if (changes.name !== undefined) {
          columns.name = changes.name
          columns.nameKey = tagNameKey(changes.name)
        }
        if (changes.color !== undefined) columns.color = changes.color ?? ""
        const at = yield* Repository.now
        return yield* (
          Object.keys(columns).length === 0
            ? sql`SELECT id, name, color FROM tags WHERE organization_id = ${organizationId} AND id = ${id}`
            : sql`UPDATE tags SET ${sql.update({ ...columns, updatedAt: at })}
                  WHERE organization_id = ${organizationId} AND id = ${id}
                  RETURNING id, name, color`
        ).pipe(
          tagRows.returning,
          Repository.orNotFound(() => new TagNotFound({ id }))
        )
      }).pipe(write("Tags.update", changes.name))

    /** Deletes a tag. */
    const remove = (organizationId: OrganizationId, id: TagId): Effect.Effect<void, TagNotFound> =>
      Repository.deleteById(sql, "tags", organizationId, id, () => new TagNotFound({ id })).pipe(
        Effect.catchTag("SqlError", Effect.die),
        withSpan("Tags.remove")
      )

    /** The organization's tags whose name contains every search term, one page in the requested order. */
    const list = (organizationId: OrganizationId, options: Repository.Search) => {
      // Tag names are matched ignoring case only (accents count), as their uniqueness is.
      const where = Repository.everyTerm(
        sql,
        sql`organization_id = ${organizationId}`,
        lowerCaseTerms(options.search),
        (pattern) => sql`name_key LIKE ${pattern}`
      )
      return Pagination.page(sql, {
        from: sql`tags`,
        select: sql`SELECT id, name, color FROM tags`,
        where,
        ordering: options.ordering,
        rows: tagRows
      })
    }

    return { findById, findByIds, findByNames, create, update, remove, list } as const
  })
}) {}
