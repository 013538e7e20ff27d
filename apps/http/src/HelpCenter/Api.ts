import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { IntegerId, OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { Timestamp } from "../Http/Representation.js"
import { Article, ArticleCreate, ArticleUpdate } from "./Article.js"
import { ArticleOrdering } from "./Articles.js"
import { Collection, CollectionCreate, CollectionNode, CollectionUpdate } from "./Collection.js"
import { CollectionOrdering } from "./Collections.js"

const CollectionPath = Schema.Struct({ organization_id: OrganizationId, collection_id: IntegerId })
const ArticlePath = Schema.Struct({ organization_id: OrganizationId, article_id: IntegerId })

/** The organization's help-center portal. */
export const Portal = Schema.Struct({
  id: Schema.Int.annotations({ description: "The `portal` of the organization's collections and articles." }),
  created_at: Timestamp
}).annotations({ identifier: "Portal" })

const roles = "Members read; owners, admins and integration tokens write (members get 403)."

/** `/organizations/{organization_id}/portal/…`: the help center's collections (nested) and articles. */
export class HelpCenterApi extends HttpApiGroup.make("helpCenter")
  .add(
    HttpApiEndpoint.get("portal", "/organizations/:organization_id/portal/")
      .setPath(OrganizationPath)
      .addSuccess(Portal)
      .annotate(OpenApi.Summary, "Read the organization's help-center portal")
      .annotate(
        OpenApi.Description,
        "Every organization has exactly one portal, created on first use; its `id` is the `portal` of collections and articles."
      )
  )
  .add(
    HttpApiEndpoint.get("listCollections", "/organizations/:organization_id/portal/collections/")
      .setPath(OrganizationPath)
      .setUrlParams(Schema.Struct({ ...CollectionOrdering.params, ...Pagination.params }))
      .addSuccess(Pagination.Envelope(Collection))
      .annotate(OpenApi.Summary, "List collections (flat)")
      .annotate(OpenApi.Description, "Every collection of the organization, at any depth, paginated.")
  )
  .add(
    HttpApiEndpoint.get("tree", "/organizations/:organization_id/portal/collections/tree/")
      .setPath(OrganizationPath)
      .setUrlParams(
        Schema.Struct({
          include_articles: Query.param(
            "`true`, `1` or `yes` (any case): each node embeds its `articles`. Any other value, or none: no `articles` key."
          ),
          published: Query.param(
            "Publication-status filter of the embedded articles, read only with `include_articles`: `true`/`1`/`yes` keeps `status=published`, `false`/`0`/`no` keeps the others (`status!=published`), empty or absent keeps all. Any other value is 400."
          )
        })
      )
      .addSuccess(Schema.Array(CollectionNode))
      .annotate(OpenApi.Summary, "The collection tree")
      .annotate(
        OpenApi.Description,
        "A JSON array (not a paginated envelope) of the root collections; each node has `children` (recursively), ordered by `position` then `id`, and with `include_articles` its `articles`, ordered the same way."
      )
  )
  .add(
    HttpApiEndpoint.post("createCollection", "/organizations/:organization_id/portal/collections/")
      .setPath(OrganizationPath)
      .setPayload(CollectionCreate)
      .addSuccess(Collection, { status: 201 })
      .annotate(OpenApi.Summary, "Create a collection")
      .annotate(
        OpenApi.Description,
        `${roles} \`parent\` must be a collection of the same organization (400 otherwise); nesting is limited to 10 levels. Slugs are unique in the organization. Answers 201 with a \`Location\` header.`
      )
  )
  .add(
    HttpApiEndpoint.get("getCollection", "/organizations/:organization_id/portal/collections/:collection_id/")
      .setPath(CollectionPath)
      .addSuccess(Collection)
      .annotate(OpenApi.Summary, "Read a collection")
  )
  .add(
    HttpApiEndpoint.patch("updateCollection", "/organizations/:organization_id/portal/collections/:collection_id/")
      .setPath(CollectionPath)
      .setPayload(CollectionUpdate)
      .addSuccess(Collection)
      .annotate(OpenApi.Summary, "Change or move a collection")
      .annotate(
        OpenApi.Description,
        `${roles} Moving a collection under itself or one of its descendants is 400 (\`parent\`).`
      )
  )
  .add(
    HttpApiEndpoint.del("deleteCollection", "/organizations/:organization_id/portal/collections/:collection_id/")
      .setPath(CollectionPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Delete an empty collection")
      .annotate(
        OpenApi.Description,
        `${roles} Only an empty collection can be deleted: one that still has sub-collections or articles is 400 (\`non_field_errors\`), so nothing is deleted by surprise. Answers 204.`
      )
  )
  .add(
    HttpApiEndpoint.get("listArticles", "/organizations/:organization_id/portal/articles/")
      .setPath(OrganizationPath)
      .setUrlParams(
        Schema.Struct({
          collection: Query.param("Only the articles of this collection (id)."),
          status: Query.param("Only articles with this status: `draft` or `published`."),
          ...ArticleOrdering.params,
          ...Pagination.params
        })
      )
      .addSuccess(Pagination.Envelope(Article))
      .annotate(OpenApi.Summary, "List articles")
  )
  .add(
    HttpApiEndpoint.post("createArticle", "/organizations/:organization_id/portal/articles/")
      .setPath(OrganizationPath)
      .setPayload(ArticleCreate)
      .addSuccess(Article, { status: 201 })
      .annotate(OpenApi.Summary, "Create an article")
      .annotate(
        OpenApi.Description,
        `${roles} \`published_at\` is set when the article is first published. Answers 201 with a \`Location\` header.`
      )
  )
  .add(
    HttpApiEndpoint.get("getArticle", "/organizations/:organization_id/portal/articles/:article_id/")
      .setPath(ArticlePath)
      .addSuccess(Article)
      .annotate(OpenApi.Summary, "Read an article")
  )
  .add(
    HttpApiEndpoint.patch("updateArticle", "/organizations/:organization_id/portal/articles/:article_id/")
      .setPath(ArticlePath)
      .setPayload(ArticleUpdate)
      .addSuccess(Article)
      .annotate(OpenApi.Summary, "Change an article")
      .annotate(
        OpenApi.Description,
        `${roles} Publishing sets \`published_at\` the first time; going back to draft keeps it.`
      )
  )
  .add(
    HttpApiEndpoint.del("deleteArticle", "/organizations/:organization_id/portal/articles/:article_id/")
      .setPath(ArticlePath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Delete an article")
      .annotate(OpenApi.Description, `${roles} Answers 204.`)
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Help center") {}
