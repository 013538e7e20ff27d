import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import type { Article, ArticleCreate, ArticleStatus, ArticleUpdate } from "./Article.js"
import { ArticleNotFound, SlugTaken, UnknownCollection } from "./Errors.js"
import { chooseSlug, lockPortal } from "./Portals.js"

/** Orderings of the article list (default: position, then id). */
export const ArticleOrdering = Ordering.make({
  columns: {
    position: "a.position",
    title: "lower(a.title)",
    created_at: "a.created_at",
    updated_at: "a.updated_at",
    published_at: "a.published_at",
    id: "a.id"
  },
  defaults: ["position"],
  tieBreaker: "a.id"
})

interface ArticleRow {
  readonly id: string
  readonly portalId: string
  readonly collectionId: string
  readonly title: string
  readonly slug: string
  readonly status: ArticleStatus
  readonly body: string
  readonly metaDescription: string
  readonly position: number
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly publishedAt: Date | null
}

const toArticle = (row: ArticleRow): Article => ({
  id: Number(row.id),
  portal: Number(row.portalId),
  collection: Number(row.collectionId),
  title: row.title,
  slug: row.slug,
  status: row.status,
  body: row.body,
  meta_description: row.metaDescription,
  position: row.position,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  published_at: row.publishedAt
})

/**
 * Help-center articles. An article belongs to one collection of its organization. `published_at` is set the
 * first time the article is published and kept afterwards, also when it goes back to draft.
 */
export class Articles extends Effect.Service<Articles>()("@helpdesk/http/HelpCenter/Articles", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const select = sql`SELECT a.*, p.id AS portal_id FROM hc_articles a
      JOIN hc_portals p ON p.organization_id = a.organization_id`

    /** The organization's articles, optionally of one collection or one status, for `Pagination.paginate`. */
    const list = (options: {
      readonly organizationId: number
      readonly collection?: number | undefined
      readonly status?: ArticleStatus | undefined
      readonly ordering: Ordering.Ordering<string>
    }) => {
      const where = sql.and([
        sql`a.organization_id = ${options.organizationId}`,
        ...(options.collection === undefined ? [] : [sql`a.collection_id = ${options.collection}`]),
        ...(options.status === undefined ? [] : [sql`a.status = ${options.status}`])
      ])
      return Pagination.page(sql, {
        from: sql`hc_articles a`,
        select,
        where,
        ordering: options.ordering,
        decode: toArticle
      })
    }

    const find = (organizationId: number, id: number) =>
      sql<ArticleRow>`${select} WHERE a.id = ${id} AND a.organization_id = ${organizationId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows[0] === undefined ? Effect.fail(new ArticleNotFound({ id })) : Effect.succeed(toArticle(rows[0]))
        )
      )

    /** One article of the organization. */
    const get = (organizationId: number, id: number) => find(organizationId, id).pipe(Effect.withSpan("Articles.get"))

    const requireCollection = (organizationId: number, id: number) =>
      Effect.flatMap(
        sql`SELECT 1 FROM hc_collections WHERE id = ${id} AND organization_id = ${organizationId}`,
        (rows) => (rows.length === 0 ? Effect.fail(new UnknownCollection({ field: "collection", id })) : Effect.void)
      )

    const nextPosition = (organizationId: number, collection: number) =>
      Effect.map(
        sql<{ readonly next: number }>`
          SELECT COALESCE(max(position) + 1, 0)::int AS next FROM hc_articles
          WHERE organization_id = ${organizationId} AND collection_id = ${collection}`,
        (rows) => rows[0]!.next
      )

    /** Creates an article in a collection of the organization; a blank slug is generated from the title. */
    const create = (organizationId: number, input: ArticleCreate) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        yield* requireCollection(organizationId, input.collection)
        const slug = yield* chooseSlug(sql, {
          table: "hc_articles",
          organizationId,
          wanted: input.slug ?? "",
          text: input.title,
          fallback: "article"
        })
        if (slug === undefined) return yield* new SlugTaken({ kind: "article", slug: input.slug ?? "" })
        const status = input.status ?? "draft"
        const now = new Date()
        const rows = yield* sql<{ readonly id: string }>`
          INSERT INTO hc_articles ${sql.insert({
            organizationId,
            collectionId: input.collection,
            title: input.title,
            slug,
            status,
            body: input.body ?? "",
            metaDescription: input.meta_description ?? "",
            position: input.position ?? (yield* nextPosition(organizationId, input.collection)),
            publishedAt: status === "published" ? now : null,
            createdAt: now,
            updatedAt: now
          })} RETURNING id`
        return yield* find(organizationId, Number(rows[0]!.id))
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die),
        Effect.catchTag("ArticleNotFound", Effect.die),
        Effect.withSpan("Articles.create")
      )

    /** Changes an article; moving it to another collection without a position puts it last there. */
    const update = (organizationId: number, id: number, changes: ArticleUpdate) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        const current = yield* find(organizationId, id)
        const now = new Date()
        const columns: Record<string, unknown> = {}
        if (changes.title !== undefined) columns.title = changes.title
        if (changes.body !== undefined) columns.body = changes.body
        if (changes.meta_description !== undefined) columns.metaDescription = changes.meta_description
        if (changes.position !== undefined) columns.position = changes.position
        if (changes.status !== undefined) {
          columns.status = changes.status
          if (changes.status === "published" && current.published_at === null) columns.publishedAt = now
        }
        if (changes.collection !== undefined && changes.collection !== current.collection) {
          yield* requireCollection(organizationId, changes.collection)
          columns.collectionId = changes.collection
          if (changes.position === undefined) columns.position = yield* nextPosition(organizationId, changes.collection)
        }
        if (changes.slug !== undefined && changes.slug !== current.slug) {
          const slug = yield* chooseSlug(sql, {
            table: "hc_articles",
            organizationId,
            wanted: changes.slug,
            text: changes.title ?? current.title,
            fallback: "article",
            exceptId: id
          })
          if (slug === undefined) return yield* new SlugTaken({ kind: "article", slug: changes.slug })
          columns.slug = slug
        }
        if (Object.keys(columns).length > 0)
          yield* sql`UPDATE hc_articles SET ${sql.update({ ...columns, updatedAt: now })}
                     WHERE id = ${id} AND organization_id = ${organizationId}`
        return yield* find(organizationId, id)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Articles.update"))

    /** Deletes an article of the organization. */
    const remove = (organizationId: number, id: number) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        yield* find(organizationId, id)
        yield* sql`DELETE FROM hc_articles WHERE id = ${id} AND organization_id = ${organizationId}`
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Articles.remove"))

    return { list, get, create, update, remove } as const
  })
}) {}
