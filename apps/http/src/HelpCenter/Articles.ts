import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Option } from "effect"
import * as Repository from "../Database/Repository.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import type { ArticleCreate, ArticleStatus, ArticleUpdate } from "./Article.js"
import { ArticleNotFound, UnknownCollection } from "./Errors.js"
import { ArticleModel, decodeRow } from "./Models.js"
import { lockPortal } from "./Portals.js"
import { placement, relocation } from "./Positions.js"
import { claimSlug } from "./Slugs.js"

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
    const list = (
      organizationId: OrganizationId,
      options: {
        readonly collection?: number | undefined
        readonly status?: ArticleStatus | undefined
        readonly ordering: Ordering.Ordering<string>
      }
    ) => {
      const where = sql.and([
        sql`a.organization_id = ${organizationId}`,
        ...(options.collection === undefined ? [] : [sql`a.collection_id = ${options.collection}`]),
        ...(options.status === undefined ? [] : [sql`a.status = ${options.status}`])
      ])
      return Pagination.page(sql, {
        from: sql`hc_articles a`,
        select,
        where,
        ordering: options.ordering,
        decode: decodeRow("hc_articles", ArticleModel)
      })
    }

    /** The article with this id in the organization, or undefined. */
    const findById = Repository.table("hc_articles", ArticleModel).findById(
      "Articles.findById",
      (organizationId, id: number) => sql`${select} WHERE a.id = ${id} AND a.organization_id = ${organizationId}`
    )

    const find = (organizationId: OrganizationId, id: number) =>
      Effect.flatMap(findById(organizationId, id), (found) =>
        found === undefined ? Effect.fail(new ArticleNotFound({ id })) : Effect.succeed(found)
      )

    const requireCollection = (organizationId: OrganizationId, id: number) =>
      Effect.flatMap(
        sql`SELECT 1 FROM hc_collections WHERE id = ${id} AND organization_id = ${organizationId}`,
        (rows) => (rows.length === 0 ? Effect.fail(new UnknownCollection({ field: "collection", id })) : Effect.void)
      )

    /** Creates an article in a collection of the organization; a blank slug is generated from the title. */
    const create = (organizationId: OrganizationId, input: ArticleCreate) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        yield* requireCollection(organizationId, input.collection)
        const slug = yield* claimSlug(sql, {
          kind: "article",
          organizationId,
          wanted: input.slug ?? "",
          text: input.title
        })
        const status = input.status ?? "draft"
        const now = new Date()
        const position = yield* placement(sql, "article", organizationId, {
          position: input.position,
          movedTo: { parent: input.collection }
        })
        const id = yield* sql`
          INSERT INTO hc_articles ${sql.insert({
            organizationId,
            collectionId: input.collection,
            title: input.title,
            slug,
            status,
            body: input.body ?? "",
            metaDescription: input.meta_description ?? "",
            position: position!,
            publishedAt: status === "published" ? now : null,
            createdAt: now,
            updatedAt: now
          })} RETURNING id`.pipe(Repository.returnedId("hc_articles"), Effect.map(Option.getOrThrow))
        return yield* find(organizationId, id)
      }).pipe(Effect.catchTag("ArticleNotFound", Effect.die), Repository.write("Articles.create", { transaction: sql }))

    /** Changes an article; moving it to another collection without a position puts it last there. */
    const update = (organizationId: OrganizationId, id: number, changes: ArticleUpdate) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        const current = yield* find(organizationId, id)
        const now = new Date()
        const moved = changes.collection !== undefined && changes.collection !== current.collection
        if (moved) yield* requireCollection(organizationId, changes.collection!)
        const { position, slug } = yield* relocation(sql, "article", organizationId, current, {
          position: changes.position,
          movedTo: moved ? { parent: changes.collection! } : undefined,
          slug: changes.slug,
          text: changes.title ?? current.title
        })
        const firstPublished = changes.status === "published" && current.publishedAt === null
        yield* Repository.updateById(sql, "hc_articles", organizationId, id, now, {
          title: changes.title,
          body: changes.body,
          metaDescription: changes.meta_description,
          position,
          status: changes.status,
          publishedAt: firstPublished ? now : undefined,
          collectionId: moved ? changes.collection : undefined,
          slug
        })
        return yield* find(organizationId, id)
      }).pipe(Repository.write("Articles.update", { transaction: sql }))

    /** Deletes an article of the organization. */
    const remove = (organizationId: OrganizationId, id: number) =>
      Effect.gen(function* () {
        yield* lockPortal(sql, organizationId)
        yield* find(organizationId, id)
        yield* sql`DELETE FROM hc_articles WHERE id = ${id} AND organization_id = ${organizationId}`
      }).pipe(Repository.write("Articles.remove", { transaction: sql }))

    return { list, findById, create, update, remove } as const
  })
}) {}
