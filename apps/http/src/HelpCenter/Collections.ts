import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import type { ArticleStatus } from "./Article.js"
import type { ArticleNode, Collection, CollectionCreate, CollectionNode, CollectionUpdate } from "./Collection.js"
import { CollectionNotEmpty, CollectionNotFound, InvalidMove, SlugTaken, UnknownCollection } from "./Errors.js"
import { chooseSlug, lockPortal } from "./Portals.js"
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

interface CollectionRow {
  readonly id: string
  readonly portalId: string
  readonly parentId: string | null
  readonly name: string
  readonly slug: string
  readonly metaDescription: string
  readonly icon: string
  readonly position: number
  readonly createdAt: Date
  readonly updatedAt: Date
}

interface ArticleNodeRow {
  readonly id: string
  readonly collectionId: string
  readonly title: string
  readonly slug: string
  readonly status: ArticleStatus
  readonly metaDescription: string
  readonly position: number
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly publishedAt: Date | null
}

const toCollection = (row: CollectionRow): Collection => ({
  id: Number(row.id),
  portal: Number(row.portalId),
  name: row.name,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  parent: row.parentId === null ? null : Number(row.parentId),
  slug: row.slug,
  meta_description: row.metaDescription,
  icon: row.icon,
  position: row.position
})

const toArticleNode = (row: ArticleNodeRow): ArticleNode & { readonly collection: number } => ({
  id: Number(row.id),
  collection: Number(row.collectionId),
  title: row.title,
  slug: row.slug,
  status: row.status,
  meta_description: row.metaDescription,
  position: row.position,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  published_at: row.publishedAt
})

/** Help-center collections of organizations: the flat list, the tree, and writes that keep the tree a tree. */
export class Collections extends Effect.Service<Collections>()("@helpdesk/http/HelpCenter/Collections", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The organization's collections, as a count and a page fetch for `Pagination.paginate`. */
    const list = (options: { readonly organizationId: number; readonly ordering: Ordering.Ordering<string> }) =>
      Pagination.page(sql, {
        from: sql`hc_collections c`,
        select: sql`SELECT c.* FROM hc_collections c`,
        where: sql`c.organization_id = ${options.organizationId}`,
        ordering: options.ordering,
        decode: toCollection
      })

    const find = (organizationId: number, id: number) =>
      sql<CollectionRow>`SELECT * FROM hc_collections WHERE id = ${id} AND organization_id = ${organizationId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows[0] === undefined ? Effect.fail(new CollectionNotFound({ id })) : Effect.succeed(toCollection(rows[0]))
        )
      )

    /** One collection of the organization. */
    const get = (organizationId: number, id: number) =>
      find(organizationId, id).pipe(Effect.withSpan("Collections.get"))

    /**
     * The organization's collections nested by parent, each level ordered by position then id. With
     * `articles`, each node embeds its articles (ordered the same way), filtered by publication status.
     */
    const tree = (organizationId: number, articles: ArticleSelection | undefined) =>
      Effect.gen(function* () {
        const collections = (yield* sql<CollectionRow>`
          SELECT * FROM hc_collections WHERE organization_id = ${organizationId}`).map(toCollection)
        const embedded =
          articles === undefined
            ? undefined
            : (yield* sql<ArticleNodeRow>`
                SELECT id, collection_id, title, slug, status, meta_description, position, created_at, updated_at,
                       published_at
                FROM hc_articles WHERE organization_id = ${organizationId}
                ${articles === "published" ? sql`AND status = 'published'` : articles === "unpublished" ? sql`AND status <> 'published'` : sql``}`).map(
                toArticleNode
              )
        return buildTree(collections, embedded).map(toNode)
      }).pipe(Effect.orDie, Effect.withSpan("Collections.tree"))

    const parentMap = (organizationId: number) =>
      Effect.map(
        sql<{ readonly id: string; readonly parentId: string | null }>`
          SELECT id, parent_id FROM hc_collections WHERE organization_id = ${organizationId}`,
        (rows) => new Map(rows.map((r) => [Number(r.id), r.parentId === null ? null : Number(r.parentId)] as const))
      )

    const checkParent = (organizationId: number, id: number | undefined, parent: number | null) =>
      Effect.gen(function* () {
        const parents = yield* parentMap(organizationId)
        if (parent !== null && !parents.has(parent))
          return yield* new UnknownCollection({ field: "parent", id: parent })
        const refusal = refuseMove(parents, id, parent)
        if (refusal !== undefined) return yield* new InvalidMove({ reason: refusal })
      })

    const nextPosition = (organizationId: number, parent: number | null) =>
      Effect.map(
        sql<{ readonly next: number }>`
          SELECT COALESCE(max(position) + 1, 0)::int AS next FROM hc_collections
          WHERE organization_id = ${organizationId} AND parent_id IS NOT DISTINCT FROM ${parent}`,
        (rows) => rows[0]!.next
      )

    /** Creates a collection; a blank slug is generated from the name; without position it goes last. */
    const create = (organizationId: number, input: CollectionCreate) =>
      Effect.gen(function* () {
        const portal = yield* lockPortal(sql, organizationId)
        const parent = input.parent ?? null
        yield* checkParent(organizationId, undefined, parent)
        const slug = yield* chooseSlug(sql, {
          table: "hc_collections",
          organizationId,
          wanted: input.slug ?? "",
          text: input.name,
          fallback: "collection"
        })
        if (slug === undefined) return yield* new SlugTaken({ kind: "collection", slug: input.slug ?? "" })
        const position = input.position ?? (yield* nextPosition(organizationId, parent))
        const rows = yield* sql<{ readonly id: string }>`
          INSERT INTO hc_collections ${sql.insert({
            organizationId,
            portalId: portal,
            parentId: parent,
            name: input.name,
            slug,
            metaDescription: input.meta_description ?? "",
            icon: input.icon ?? "",
            position
          })} RETURNING id`
        return yield* find(organizationId, Number(rows[0]!.id))
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die),
        Effect.catchTag("CollectionNotFound", Effect.die),
        Effect.withSpan("Collections.create")
      )

    /** Changes a collection; a new parent must keep the tree a tree. A moved collection without position goes last. */
    const update = (organizationId: number, id: number, changes: CollectionUpdate) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        const current = yield* find(organizationId, id)
        const columns: Record<string, unknown> = {}
        if (changes.name !== undefined) columns.name = changes.name
        if (changes.meta_description !== undefined) columns.metaDescription = changes.meta_description
        if (changes.icon !== undefined) columns.icon = changes.icon
        if (changes.position !== undefined) columns.position = changes.position
        if (changes.parent !== undefined && changes.parent !== current.parent) {
          yield* checkParent(organizationId, id, changes.parent)
          columns.parentId = changes.parent
          if (changes.position === undefined) columns.position = yield* nextPosition(organizationId, changes.parent)
        }
        if (changes.slug !== undefined && changes.slug !== current.slug) {
          const slug = yield* chooseSlug(sql, {
            table: "hc_collections",
            organizationId,
            wanted: changes.slug,
            text: changes.name ?? current.name,
            fallback: "collection",
            exceptId: id
          })
          if (slug === undefined) return yield* new SlugTaken({ kind: "collection", slug: changes.slug })
          columns.slug = slug
        }
        if (Object.keys(columns).length > 0)
          yield* sql`UPDATE hc_collections SET ${sql.update({ ...columns, updatedAt: new Date() })}
                     WHERE id = ${id} AND organization_id = ${organizationId}`
        return yield* find(organizationId, id)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Collections.update"))

    /** Deletes an empty collection; one with sub-collections or articles is refused. */
    const remove = (organizationId: number, id: number) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        yield* find(organizationId, id)
        const [counts] = yield* sql<{ readonly children: number; readonly articles: number }>`
          SELECT (SELECT count(*) FROM hc_collections WHERE parent_id = ${id})::int AS children,
                 (SELECT count(*) FROM hc_articles WHERE collection_id = ${id})::int AS articles`
        if (counts!.children > 0 || counts!.articles > 0)
          return yield* new CollectionNotEmpty({ children: counts!.children, articles: counts!.articles })
        yield* sql`DELETE FROM hc_collections WHERE id = ${id} AND organization_id = ${organizationId}`
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Collections.remove"))

    return { list, get, tree, create, update, remove } as const
  })
}) {}

type Built = ReturnType<typeof buildTree<Collection, ArticleNode & { readonly collection: number }>>[number]

const toNode = (node: Built): CollectionNode => ({
  id: node.id,
  parent: node.parent,
  name: node.name,
  slug: node.slug,
  meta_description: node.meta_description,
  icon: node.icon,
  position: node.position,
  created_at: node.created_at,
  updated_at: node.updated_at,
  children: node.children.map(toNode),
  ...(node.articles === undefined
    ? {}
    : { articles: node.articles.map(({ collection: _collection, ...article }) => article) })
})
