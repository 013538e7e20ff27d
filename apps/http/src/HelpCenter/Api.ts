import { HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import * as Endpoint from "../Http/Endpoint.js"
import { integerIdParam, OrganizationPath } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { fromModel, Timestamp } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import { Article, ArticleCreate, ArticleUpdate } from "./Article.js"
import { ArticleOrdering } from "./Articles.js"
import { Collection, CollectionCreate, CollectionNode, CollectionUpdate } from "./Collection.js"
import { CollectionOrdering } from "./Collections.js"
import type { ArticleModel, ArticleSummaryModel, CollectionModel } from "./Models.js"
import type { TreeNode } from "./Tree.js"

/** The organization's help-center portal. */
export const Portal = Schema.Struct({
  id: Schema.Int.annotations({ description: "The `portal` of the organization's collections and articles." }),
  created_at: Timestamp
}).annotations({ identifier: "Portal" })

const roles = "Members read; owners, admins and integration tokens write (members get 403)."

const permissions = { read: "help_center.read", write: "help_center.write" } as const

/** A stored collection as the flat list and the detail show it. */
export const collectionToWire: (model: CollectionModel) => Collection = fromModel(Collection)

const articleSummaryToWire = (model: ArticleSummaryModel) => ({
  id: model.id,
  title: model.title,
  slug: model.slug,
  status: model.status,
  meta_description: model.metaDescription,
  position: model.position,
  created_at: model.createdAt,
  updated_at: model.updatedAt,
  published_at: model.publishedAt
})

/** A stored article as its endpoints show it. */
export const articleToWire = (model: ArticleModel): Article => ({
  ...articleSummaryToWire(model),
  portal: model.portal,
  collection: model.collection,
  body: model.body
})

/** A node of the stored tree as `GET …/collections/tree/` shows it. */
export const nodeToWire = (node: TreeNode<CollectionModel, ArticleSummaryModel>): CollectionNode => ({
  id: node.id,
  parent: node.parent,
  name: node.name,
  slug: node.slug,
  meta_description: node.metaDescription,
  icon: node.icon,
  position: node.position,
  created_at: node.createdAt,
  updated_at: node.updatedAt,
  children: node.children.map(nodeToWire),
  ...(node.articles === undefined ? {} : { articles: node.articles.map(articleSummaryToWire) })
})

/** Collections as a directory resource: `/organizations/{organization_id}/portal/collections/{collection_id}/`. */
export const CollectionResource = Resource.make({
  path: { segment: "portal/collections", id: integerIdParam("collection_id") },
  permissions,
  noun: "a collection",
  wire: { item: Collection, toWire: collectionToWire, create: CollectionCreate, update: CollectionUpdate },
  ordering: CollectionOrdering,
  names: Resource.suffixed("Collection"),
  docs: {
    list: {
      summary: "List collections (flat)",
      description: "Every collection of the organization, at any depth, paginated."
    },
    create: `${roles} \`parent\` must be a collection of the same organization (400 otherwise); nesting is limited to 10 levels. Slugs are unique in the organization. Answers 201 with a \`Location\` header.`,
    update: {
      summary: "Change or move a collection",
      description: `${roles} Moving a collection under itself or one of its descendants is 400 (\`parent\`).`
    },
    delete: {
      summary: "Delete an empty collection",
      description: `${roles} Only an empty collection can be deleted: one that still has sub-collections or articles is 400 (\`non_field_errors\`), so nothing is deleted by surprise. Answers 204.`
    }
  }
})

/** Articles as a directory resource: `/organizations/{organization_id}/portal/articles/{article_id}/`. */
export const ArticleResource = Resource.make({
  path: { segment: "portal/articles", id: integerIdParam("article_id") },
  permissions,
  noun: "an article",
  wire: { item: Article, toWire: articleToWire, create: ArticleCreate, update: ArticleUpdate },
  filters: {
    collection: Query.param("Only the articles of this collection (id)."),
    status: Query.param("Only articles with this status: `draft` or `published`.")
  },
  ordering: ArticleOrdering,
  names: Resource.suffixed("Article"),
  docs: {
    create: `${roles} \`published_at\` is set when the article is first published. Answers 201 with a \`Location\` header.`,
    update: `${roles} Publishing sets \`published_at\` the first time; going back to draft keeps it.`,
    delete: `${roles} Answers 204.`
  }
})

const collections = Resource.endpoints(CollectionResource)
const articles = Resource.endpoints(ArticleResource)

/** `/organizations/{organization_id}/portal/…`: the help center's collections (nested) and articles. */
export class HelpCenterApi extends Resource.guarded(
  HttpApiGroup.make("helpCenter")
    .add(
      Endpoint.get("portal", "/organizations/:organization_id/portal/", {
        summary: "Read the organization's help-center portal",
        description:
          "Every organization has exactly one portal, created on first use; its `id` is the `portal` of collections and articles."
      })
        .setPath(OrganizationPath)
        .addSuccess(Portal)
    )
    .add(collections.list)
    .add(
      Endpoint.get("tree", "/organizations/:organization_id/portal/collections/tree/", {
        summary: "The collection tree",
        description:
          "A JSON array (not a paginated envelope) of the root collections; each node has `children` (recursively), ordered by `position` then `id`, and with `include_articles` its `articles`, ordered the same way."
      })
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
    )
    .add(collections.create)
    .add(collections.get)
    .add(collections.update)
    .add(collections.delete)
    .add(articles.list)
    .add(articles.create)
    .add(articles.get)
    .add(articles.update)
    .add(articles.delete),
  "Help center"
) {}
