import { SqlClient, SqlSchema } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Option, Schema } from "effect"
import * as Repository from "../Database/Repository.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import type { CollectionCreate, CollectionUpdate } from "./Collection.js"
import { CollectionNotEmpty, CollectionNotFound, InvalidMove, UnknownCollection } from "./Errors.js"
import { ArticleSummaryModel, CollectionModel, decodeRow } from "./Models.js"
import { lockPortal } from "./Portals.js"
import { placement, relocation } from "./Positions.js"
import { claimSlug } from "./Slugs.js"
import { buildTree, refuseMove } from "./Tree.js"

/** Orderings of the flat collection list (default: position, then id). */
export const CollectionOrdering = Ordering.make({
  columns: {
    position: "c.position",
    name: "lower(c.name)",
    created_at: "c.created_at",
    updated_at: "c.updated_at",
    id: "c.id"
  },
  defaults: ["position"],
  tieBreaker: "c.id"
})

/** Which embedded articles the tree shows: all, only published ones, or only unpublished ones. */
export type ArticleSelection = "all" | "published" | "unpublished"

const InOrganization = Schema.Struct({ organizationId: OrganizationId })
const ParentRow = Schema.Struct({ id: Schema.NumberFromString, parentId: Schema.NullOr(Schema.NumberFromString) })

/** Help-center collections of organizations: the flat list, the tree, and writes that keep the tree a tree. */
export class Collections extends Effect.Service<Collections>()("@helpdesk/http/HelpCenter/Collections", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The organization's collections, as a count and a page fetch for `Pagination.paginate`. */
    const list = (organizationId: OrganizationId, options: { readonly ordering: Ordering.Ordering<string> }) =>
      Pagination.page(sql, {
        from: sql`hc_collections c`,
        select: sql`SELECT c.* FROM hc_collections c`,
        where: sql`c.organization_id = ${organizationId}`,
        ordering: options.ordering,
        decode: decodeRow("hc_collections", CollectionModel)
      })

    /** The collection with this id in the organization, or undefined. */
    const findById = Repository.table("hc_collections", CollectionModel).findById(
      "Collections.findById",
      (organizationId, id: number) =>
        sql`SELECT * FROM hc_collections WHERE id = ${id} AND organization_id = ${organizationId}`
    )

    const find = (organizationId: OrganizationId, id: number) =>
      Effect.flatMap(findById(organizationId, id), (found) =>
        found === undefined ? Effect.fail(new CollectionNotFound({ id })) : Effect.succeed(found)
      )

    const allCollections = SqlSchema.findAll({
      Request: InOrganization,
      Result: CollectionModel,
      execute: ({ organizationId }) => sql`SELECT * FROM hc_collections WHERE organization_id = ${organizationId}`
    })

    const embeddedArticles = SqlSchema.findAll({
      Request: Schema.Struct({
        organizationId: OrganizationId,
        selection: Schema.Literal("all", "published", "unpublished")
      }),
      Result: ArticleSummaryModel,
      execute: ({ organizationId, selection }) => sql`
        SELECT id, collection_id, title, slug, status, meta_description, position, created_at, updated_at,
               published_at
        FROM hc_articles WHERE organization_id = ${organizationId}
        ${selection === "published" ? sql`AND status = 'published'` : selection === "unpublished" ? sql`AND status <> 'published'` : sql``}`
    })

    /**
     * The organization's collections nested by parent, each level ordered by position then id. With
     * `articles`, each node embeds its articles (ordered the same way), filtered by publication status.
     */
    const tree = (organizationId: OrganizationId, articles: ArticleSelection | undefined) =>
      Effect.gen(function* () {
        const collections = yield* allCollections({ organizationId })
        const embedded =
          articles === undefined ? undefined : yield* embeddedArticles({ organizationId, selection: articles })
        return buildTree(collections, embedded)
      }).pipe(Effect.orDie, withSpan("Collections.tree"))

    const parentRows = SqlSchema.findAll({
      Request: InOrganization,
      Result: ParentRow,
      execute: ({ organizationId }) =>
        sql`SELECT id, parent_id FROM hc_collections WHERE organization_id = ${organizationId}`
    })

    const checkParent = (organizationId: OrganizationId, id: number | undefined, parent: number | null) =>
      Effect.gen(function* () {
        const parents = new Map(
          (yield* Effect.orDie(parentRows({ organizationId }))).map((r) => [r.id, r.parentId] as const)
        )
        if (parent !== null && !parents.has(parent))
          return yield* new UnknownCollection({ field: "parent", id: parent })
        const refusal = refuseMove(parents, id, parent)
        if (refusal !== undefined) return yield* new InvalidMove({ reason: refusal })
      })

    /** Creates a collection; a blank slug is generated from the name; without position it goes last. */
    const create = (organizationId: OrganizationId, input: CollectionCreate) =>
      Effect.gen(function* () {
        const portal = yield* lockPortal(sql, organizationId)
        const parent = input.parent ?? null
        yield* checkParent(organizationId, undefined, parent)
        const slug = yield* claimSlug(sql, {
          kind: "collection",
          organizationId,
          wanted: input.slug ?? "",
          text: input.name
        })
        const position = yield* placement(sql, "collection", organizationId, {
          position: input.position,
          movedTo: { parent }
        })
        const id = yield* sql`
          INSERT INTO hc_collections ${sql.insert({
            organizationId,
            portalId: portal,
            parentId: parent,
            name: input.name,
            slug,
            metaDescription: input.meta_description ?? "",
            icon: input.icon ?? "",
            position: position!
          })} RETURNING id`.pipe(Repository.returnedId("hc_collections"), Effect.map(Option.getOrThrow))
        return yield* find(organizationId, id)
      }).pipe(
        Effect.catchTag("CollectionNotFound", Effect.die),
        Repository.write("Collections.create", { transaction: sql })
      )

    /** Changes a collection; a new parent must keep the tree a tree. A moved collection without position goes last. */
    const update = (organizationId: OrganizationId, id: number, changes: CollectionUpdate) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        const current = yield* find(organizationId, id)
        const moved = changes.parent !== undefined && changes.parent !== current.parent
        if (moved) yield* checkParent(organizationId, id, changes.parent!)
        const { position, slug } = yield* relocation(sql, "collection", organizationId, current, {
          position: changes.position,
          movedTo: moved ? { parent: changes.parent! } : undefined,
          slug: changes.slug,
          text: changes.name ?? current.name
        })
        yield* Repository.updateById(sql, "hc_collections", organizationId, id, new Date(), {
          name: changes.name,
          metaDescription: changes.meta_description,
          icon: changes.icon,
          position,
          parentId: moved ? changes.parent : undefined,
          slug
        })
        return yield* find(organizationId, id)
      }).pipe(Repository.write("Collections.update", { transaction: sql }))

    /** Deletes an empty collection; one with sub-collections or articles is refused. */
    const remove = (organizationId: OrganizationId, id: number) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        yield* find(organizationId, id)
        const [counts] = yield* sql<{ readonly children: number; readonly articles: number }>`
          SELECT (SELECT count(*) FROM hc_collections WHERE parent_id = ${id})::int AS children,
                 (SELECT count(*) FROM hc_articles WHERE collection_id = ${id})::int AS articles`
        if (counts!.children > 0 || counts!.articles > 0)
          return yield* new CollectionNotEmpty({ children: counts!.children, articles: counts!.articles })
        yield* sql`DELETE FROM hc_collections WHERE id = ${id} AND organization_id = ${organizationId}`
      }).pipe(Repository.write("Collections.remove", { transaction: sql }))

    return { list, findById, tree, create, update, remove } as const
  })
}) {}
