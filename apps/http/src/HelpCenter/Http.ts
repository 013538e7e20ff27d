import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created, noContent } from "../Http/Responses.js"
import { ARTICLE_STATUSES, Article, ArticleCreate, type ArticleStatus, ArticleUpdate } from "./Article.js"
import { ArticleOrdering, Articles } from "./Articles.js"
import { Collection, CollectionCreate, CollectionUpdate, encodeCollectionNode } from "./Collection.js"
import { CollectionOrdering, Collections } from "./Collections.js"
import type {
  ArticleNotFound,
  CollectionNotEmpty,
  CollectionNotFound,
  InvalidMove,
  SlugTaken,
  UnknownCollection
} from "./Errors.js"
import { ensurePortal } from "./Portals.js"
import { MAX_DEPTH } from "./Tree.js"
import { parseTreeQuery } from "./TreeQuery.js"

type HelpCenterError =
  | UnknownCollection
  | InvalidMove
  | SlugTaken
  | CollectionNotEmpty
  | CollectionNotFound
  | ArticleNotFound

/** Domain refusals of help-center requests as their HTTP errors (DRF field errors, or 404). */
const toHttpError = (error: HelpCenterError): ValidationError | NotFound => {
  switch (error._tag) {
    case "CollectionNotFound":
    case "ArticleNotFound":
      return new NotFound()
    case "UnknownCollection":
      return ValidationError.field(error.field, `Invalid pk "${error.id}" - object does not exist.`)
    case "InvalidMove":
      return ValidationError.field(
        "parent",
        error.reason === "cycle"
          ? "A collection cannot be moved under itself or one of its descendants."
          : `Collections nest at most ${MAX_DEPTH} levels deep.`
      )
    case "SlugTaken":
      return ValidationError.field("slug", `A ${error.kind} with this slug already exists in this organization.`)
    case "CollectionNotEmpty":
      return ValidationError.nonField(
        `This collection still has ${error.children} sub-collection(s) and ${error.articles} article(s). Move or delete them first.`
      )
  }
}

const pathId = (segment: string) => {
  const id = parseIntegerId(segment)
  return id === undefined ? Effect.fail(new NotFound()) : Effect.succeed(id)
}

const parseCollectionFilter = (value: string | undefined) =>
  Effect.gen(function* () {
    if (value === undefined || value.trim() === "") return undefined
    const id = parseIntegerId(value.trim())
    if (id === undefined) return yield* ValidationError.field("collection", "A valid integer is required.")
    return id
  })

const parseStatusFilter = (value: string | undefined) =>
  Effect.gen(function* () {
    if (value === undefined || value.trim() === "") return undefined
    const status = value.trim()
    if (!(ARTICLE_STATUSES as ReadonlyArray<string>).includes(status))
      return yield* ValidationError.field(
        "status",
        `"${status}" is not a valid choice. Allowed: ${ARTICLE_STATUSES.join(", ")}.`
      )
    return status as ArticleStatus
  })

/** Handlers of the `helpCenter` group. */
export const HelpCenterLive = HttpApiBuilder.group(Api, "helpCenter", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const collections = yield* Collections
    const articles = yield* Articles
    const access = yield* OrganizationAccess

    return handlers
      .handle("portal", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.read")
          const id = yield* ensurePortal(sql, scope.organizationId).pipe(Effect.orDie)
          const rows = yield* sql<{
            readonly createdAt: Date
          }>`SELECT created_at FROM hc_portals WHERE id = ${id}`.pipe(Effect.orDie)
          return { id, created_at: rows[0]!.createdAt }
        })
      )
      .handle("listCollections", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.read")
          const page = yield* Pagination.parse(urlParams)
          const ordering = yield* CollectionOrdering.parse(urlParams.ordering)
          return yield* Pagination.paginate(
            request,
            page,
            collections.list({ organizationId: scope.organizationId, ordering })
          )
        })
      )
      .handle("tree", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.read")
          const selection = yield* parseTreeQuery(urlParams)
          const tree = yield* collections.tree(scope.organizationId, selection)
          // Encoded by hand (same JSON as the declared schema): the schema's per-node checks dominate large trees.
          return HttpServerResponse.unsafeJson(tree.map(encodeCollectionNode))
        })
      )
      .handleRaw("createCollection", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.write")
          const body = yield* RequestBody.decode(request, CollectionCreate)
          const collection = yield* collections.create(scope.organizationId, body).pipe(Effect.mapError(toHttpError))
          return yield* created(
            request,
            Collection,
            collection,
            `/organizations/${scope.publicId}/portal/collections/${collection.id}/`
          )
        })
      )
      .handle("getCollection", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.read")
          const id = yield* pathId(path.collection_id)
          return yield* collections.get(scope.organizationId, id).pipe(Effect.mapError(toHttpError))
        })
      )
      .handleRaw("updateCollection", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.write")
          const id = yield* pathId(path.collection_id)
          const body = yield* RequestBody.decode(request, CollectionUpdate)
          return yield* collections.update(scope.organizationId, id, body).pipe(Effect.mapError(toHttpError))
        })
      )
      .handle("deleteCollection", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.write")
          const id = yield* pathId(path.collection_id)
          yield* collections.remove(scope.organizationId, id).pipe(Effect.mapError(toHttpError))
          return noContent
        })
      )
      .handle("listArticles", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.read")
          const collection = yield* parseCollectionFilter(urlParams.collection)
          const status = yield* parseStatusFilter(urlParams.status)
          const page = yield* Pagination.parse(urlParams)
          const ordering = yield* ArticleOrdering.parse(urlParams.ordering)
          return yield* Pagination.paginate(
            request,
            page,
            articles.list({ organizationId: scope.organizationId, collection, status, ordering })
          )
        })
      )
      .handleRaw("createArticle", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.write")
          const body = yield* RequestBody.decode(request, ArticleCreate)
          const article = yield* articles.create(scope.organizationId, body).pipe(Effect.mapError(toHttpError))
          return yield* created(
            request,
            Article,
            article,
            `/organizations/${scope.publicId}/portal/articles/${article.id}/`
          )
        })
      )
      .handle("getArticle", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.read")
          const id = yield* pathId(path.article_id)
          return yield* articles.get(scope.organizationId, id).pipe(Effect.mapError(toHttpError))
        })
      )
      .handleRaw("updateArticle", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.write")
          const id = yield* pathId(path.article_id)
          const body = yield* RequestBody.decode(request, ArticleUpdate)
          return yield* articles.update(scope.organizationId, id, body).pipe(Effect.mapError(toHttpError))
        })
      )
      .handle("deleteArticle", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "help_center.write")
          const id = yield* pathId(path.article_id)
          yield* articles.remove(scope.organizationId, id).pipe(Effect.mapError(toHttpError))
          return noContent
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Articles.Default, Collections.Default]))
