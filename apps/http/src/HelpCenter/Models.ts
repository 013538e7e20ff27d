import { Schema } from "effect"
import { ARTICLE_STATUSES } from "./Article.js"

/**
 * The help center's stored models, decoded from their rows at the SQL boundary (the client turns column names
 * into camelCase; bigint ids arrive as strings). The wire shapes are made from them in `Api.ts`.
 */

/** A bigint id column. */
const Id = Schema.NumberFromString

/** A `timestamptz` column (pg gives a `Date`). */
const Instant = Schema.DateFromSelf

/** A collection as stored: `parent` null at the root. */
export const CollectionModel = Schema.Struct({
  id: Id,
  portal: Schema.propertySignature(Id).pipe(Schema.fromKey("portalId")),
  parent: Schema.propertySignature(Schema.NullOr(Id)).pipe(Schema.fromKey("parentId")),
  name: Schema.String,
  slug: Schema.String,
  metaDescription: Schema.String,
  icon: Schema.String,
  position: Schema.Int,
  createdAt: Instant,
  updatedAt: Instant
})

/** A collection as stored. */
export type CollectionModel = typeof CollectionModel.Type

const articleFields = {
  id: Id,
  collection: Schema.propertySignature(Id).pipe(Schema.fromKey("collectionId")),
  title: Schema.String,
  slug: Schema.String,
  status: Schema.Literal(...ARTICLE_STATUSES),
  metaDescription: Schema.String,
  position: Schema.Int,
  createdAt: Instant,
  updatedAt: Instant,
  publishedAt: Schema.NullOr(Instant)
}

/** An article as the tree embeds it: everything but its body. */
export const ArticleSummaryModel = Schema.Struct(articleFields)

/** An article as the tree embeds it. */
export type ArticleSummaryModel = typeof ArticleSummaryModel.Type

/** An article as stored, with its organization's portal. */
export const ArticleModel = Schema.Struct({
  ...articleFields,
  portal: Schema.propertySignature(Id).pipe(Schema.fromKey("portalId")),
  body: Schema.String
})

/** An article as stored. */
export type ArticleModel = typeof ArticleModel.Type

/** Decodes a row, or dies naming what it was (a row that does not decode is a bug, not a refusal). */
export const decodeRow =
  <A, I>(what: string, schema: Schema.Schema<A, I>) =>
  (row: unknown): A => {
    try {
      return Schema.decodeUnknownSync(schema)(row)
    } catch (error) {
      throw new Error(`A stored ${what} row does not decode`, { cause: error })
    }
  }
