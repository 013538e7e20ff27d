import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { Timestamp } from "../Http/Representation.js"
import { slugField } from "./Collection.js"
import { positionField } from "./Positions.js"

/** Publication states of an article. */
export const ARTICLE_STATUSES = ["draft", "published"] as const

/** Publication state of an article. */
export type ArticleStatus = (typeof ARTICLE_STATUSES)[number]

/** Limits of an article's text fields, in characters. */
export const ARTICLE_LIMITS = { title: 255, metaDescription: 500, body: 100_000 } as const

/** A help-center article as its endpoints show it. */
export const Article = Schema.Struct({
  id: Schema.Int,
  portal: Schema.Int,
  collection: Schema.Int.annotations({ description: "The collection the article belongs to." }),
  title: Schema.String,
  slug: Schema.String,
  status: Schema.Literal(...ARTICLE_STATUSES),
  body: Schema.String.annotations({ description: "The article text (Markdown)." }),
  meta_description: Schema.String,
  position: Schema.Int.annotations({ description: "Order within its collection (ascending, ties by id)." }),
  created_at: Timestamp,
  updated_at: Timestamp,
  published_at: Schema.NullOr(Timestamp).annotations({
    description: "When the article was first published; kept when it goes back to draft. Null if never published."
  })
}).annotations({ identifier: "Article" })

/** A help-center article as its endpoints show it. */
export type Article = typeof Article.Type

const articleFields = {
  slug: Fields.optional(slugField),
  status: Fields.optional(Fields.choice(ARTICLE_STATUSES)),
  body: Fields.optional(Fields.text({ maxLength: ARTICLE_LIMITS.body, allowBlank: true })),
  meta_description: Fields.optional(Fields.text({ maxLength: ARTICLE_LIMITS.metaDescription, allowBlank: true })),
  position: positionField
}

/** Body of `POST …/portal/articles/`. */
export const ArticleCreate = Schema.Struct({
  collection: Fields.id.annotations({ description: "A collection of the same organization." }),
  title: Fields.text({ maxLength: ARTICLE_LIMITS.title }),
  ...articleFields
}).annotations({
  identifier: "ArticleCreate",
  description: "`status` defaults to `draft`; `position` to after the collection's last article."
})

/** Body of `POST …/portal/articles/`. */
export type ArticleCreate = typeof ArticleCreate.Type

/** Body of `PATCH …/portal/articles/{id}/`. */
export const ArticleUpdate = Schema.Struct({
  collection: Fields.optional(Fields.id.annotations({ description: "A collection of the same organization." })),
  title: Fields.optional(Fields.text({ maxLength: ARTICLE_LIMITS.title })),
  ...articleFields
}).annotations({ identifier: "ArticleUpdate", description: "Any writable field." })

/** Body of `PATCH …/portal/articles/{id}/`. */
export type ArticleUpdate = typeof ArticleUpdate.Type
