import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as Resource from "../Http/Resource.js"
import { ArticleResource, CollectionResource, nodeToWire } from "./Api.js"
import { ARTICLE_STATUSES, type ArticleStatus } from "./Article.js"
import { Articles } from "./Articles.js"
import { encodeCollectionNode } from "./Collection.js"
import { Collections } from "./Collections.js"
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
    const access = yield* OrganizationAccess
    const { permissions } = CollectionResource
    const collection = yield* Resource.handlers(CollectionResource, {
      filters: Resource.noFilters,
      writeError: toHttpError,
      repository: collections
    })
    const article = yield* Resource.handlers(ArticleResource, {
      filters: (urlParams) =>
        Effect.all({
          collection: parseCollectionFilter(urlParams.collection),
          status: parseStatusFilter(urlParams.status)
        }),
      writeError: toHttpError,
      repository: yield* Articles
    })

    return handlers
      .handle("portal", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, permissions.read)
          const id = yield* ensurePortal(sql, scope.organizationId).pipe(Effect.orDie)
          const rows = yield* sql<{
            readonly createdAt: Date
          }>`SELECT created_at FROM hc_portals WHERE id = ${id}`.pipe(Effect.orDie)
          return { id, created_at: rows[0]!.createdAt }
        })
      )
      .handle("tree", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, permissions.read)
          const selection = yield* parseTreeQuery(urlParams)
          const tree = yield* collections.tree(scope.organizationId, selection)
          // Encoded by hand (same JSON as the declared schema): the schema's per-node checks dominate large trees.
          return HttpServerResponse.unsafeJson(tree.map((node) => encodeCollectionNode(nodeToWire(node))))
        })
      )
      .handle("listCollections", collection.list)
      .handleRaw("createCollection", collection.create)
      .handle("getCollection", collection.get)
      .handleRaw("updateCollection", collection.update)
      .handleRaw("deleteCollection", collection.delete)
      .handle("listArticles", article.list)
      .handleRaw("createArticle", article.create)
      .handle("getArticle", article.get)
      .handleRaw("updateArticle", article.update)
      .handleRaw("deleteArticle", article.delete)
  })
).pipe(Layer.provide([OrganizationAccess.Default, Articles.Default, Collections.Default]))
