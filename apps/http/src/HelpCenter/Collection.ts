import { ParseResult, Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { Timestamp } from "../Http/Representation.js"
import { positionField } from "./Positions.js"
import { MAX_SLUG_LENGTH, SLUG_PATTERN } from "./Slugs.js"

/** Limits of a collection's text fields, in characters. */
export const COLLECTION_LIMITS = { name: 255, metaDescription: 500, icon: 100 } as const

/** A help-center collection as the flat list and the detail show it. */
export const Collection = Schema.Struct({
  id: Schema.Int,
  portal: Schema.Int.annotations({ description: "The organization's help-center portal (one per organization)." }),
  name: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp,
  parent: Schema.NullOr(Schema.Int).annotations({ description: "The parent collection; null at the root." }),
  slug: Schema.String,
  meta_description: Schema.String,
  icon: Schema.String,
  position: Schema.Int.annotations({ description: "Order among siblings (ascending, ties by id)." })
}).annotations({ identifier: "Collection" })

/** A help-center collection as the flat list and the detail show it. */
export type Collection = typeof Collection.Type

/** An article as a tree node embeds it (no body). */
export const ArticleNode = Schema.Struct({
  id: Schema.Int,
  title: Schema.String,
  slug: Schema.String,
  status: Schema.Literal("draft", "published"),
  meta_description: Schema.String,
  position: Schema.Int,
  created_at: Timestamp,
  updated_at: Timestamp,
  published_at: Schema.NullOr(Timestamp)
}).annotations({ identifier: "ArticleNode" })

/** An article as a tree node embeds it. */
export type ArticleNode = typeof ArticleNode.Type

/** A tree node's own fields; its `children` and `articles` are declared with the recursive schema. */
const nodeFields = {
  id: Schema.Int,
  parent: Schema.NullOr(Schema.Int),
  name: Schema.String,
  slug: Schema.String,
  meta_description: Schema.String,
  icon: Schema.String,
  position: Schema.Int,
  created_at: Timestamp,
  updated_at: Timestamp
}

/** A node of the collection tree. */
export interface CollectionNode extends Schema.Struct.Type<typeof nodeFields> {
  readonly children: ReadonlyArray<CollectionNode>
  readonly articles?: ReadonlyArray<ArticleNode>
}

/** A tree node as JSON: what {@link CollectionNode} encodes to. */
export interface CollectionNodeEncoded extends Schema.Struct.Encoded<typeof nodeFields> {
  readonly children: ReadonlyArray<CollectionNodeEncoded>
  readonly articles?: ReadonlyArray<typeof ArticleNode.Encoded>
}

/** A node of the collection tree: the collection, its `children` and, when included, its `articles`. */
export const CollectionNode: Schema.Schema<CollectionNode, CollectionNodeEncoded> = Schema.Struct({
  ...nodeFields,
  children: Schema.Array(Schema.suspend((): Schema.Schema<CollectionNode, CollectionNodeEncoded> => CollectionNode)),
  articles: Schema.optionalWith(Schema.Array(ArticleNode), { exact: true }).annotations({
    description: "Present only with `include_articles`."
  })
}).annotations({ identifier: "CollectionNode" })

/**
 * Encodes a tree node to JSON exactly as the {@link CollectionNode} schema does, without the schema's per-node
 * validation: a large help center's tree encodes several times faster (`test/HelpCenterTree.test.ts` checks
 * the two agree).
 */
export const encodeCollectionNode = (node: CollectionNode): CollectionNodeEncoded => ({
  id: node.id,
  parent: node.parent,
  name: node.name,
  slug: node.slug,
  meta_description: node.meta_description,
  icon: node.icon,
  position: node.position,
  created_at: node.created_at.toISOString(),
  updated_at: node.updated_at.toISOString(),
  children: node.children.map(encodeCollectionNode),
  ...(node.articles === undefined
    ? {}
    : {
        articles: node.articles.map((a) => ({
          id: a.id,
          title: a.title,
          slug: a.slug,
          status: a.status,
          meta_description: a.meta_description,
          position: a.position,
          created_at: a.created_at.toISOString(),
          updated_at: a.updated_at.toISOString(),
          published_at: a.published_at === null ? null : a.published_at.toISOString()
        }))
      })
})

/** A slug field: blank means "generate one"; otherwise lower-cased letters, digits, `-` and `_`. */
export const slugField = Fields.make(
  Schema.String,
  {
    type: "string",
    maxLength: MAX_SLUG_LENGTH,
    pattern: SLUG_PATTERN.source,
    description: "Unique in the organization. Blank or omitted: generated from the name/title (`-2`, `-3`… when taken)."
  },
  (input) => {
    if (typeof input !== "string") return { ok: false, message: "Not a valid string." }
    const value = input.trim().toLowerCase()
    if ([...value].length > MAX_SLUG_LENGTH)
      return { ok: false, message: `Ensure this field has no more than ${MAX_SLUG_LENGTH} characters.` }
    if (value !== "" && !SLUG_PATTERN.test(value))
      return {
        ok: false,
        message: 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'
      }
    return { ok: true, value }
  }
)

/** A reference to a collection by id: an integer, or null (also `""` from a form) for none. */
export const nullableId = Schema.transformOrFail(Schema.Unknown, Schema.NullOr(Schema.Int), {
  strict: true,
  decode: (input, options) =>
    input === null || (typeof input === "string" && input.trim() === "")
      ? ParseResult.succeed(null)
      : ParseResult.decodeUnknown(Fields.id)(input, options),
  encode: ParseResult.succeed
}).annotations({ jsonSchema: { anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }] } })

const collectionFields = {
  slug: Fields.optional(slugField),
  meta_description: Fields.optional(Fields.text({ maxLength: COLLECTION_LIMITS.metaDescription, allowBlank: true })),
  icon: Fields.optional(Fields.text({ maxLength: COLLECTION_LIMITS.icon, allowBlank: true })),
  position: positionField,
  parent: Fields.optional(nullableId)
}

/** Body of `POST …/portal/collections/`. */
export const CollectionCreate = Schema.Struct({
  name: Fields.text({ maxLength: COLLECTION_LIMITS.name }),
  ...collectionFields
}).annotations({
  identifier: "CollectionCreate",
  description:
    "`parent`: a collection of the same organization, or null/omitted for a root collection. `position` defaults to after the last sibling."
})

/** Body of `POST …/portal/collections/`. */
export type CollectionCreate = typeof CollectionCreate.Type

/** Body of `PATCH …/portal/collections/{id}/`. */
export const CollectionUpdate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: COLLECTION_LIMITS.name })),
  ...collectionFields
}).annotations({
  identifier: "CollectionUpdate",
  description:
    "Any writable field. A new `parent` may not be the collection itself or one of its descendants (400); without a `position` the moved collection goes after its new siblings."
})

/** Body of `PATCH …/portal/collections/{id}/`. */
export type CollectionUpdate = typeof CollectionUpdate.Type
