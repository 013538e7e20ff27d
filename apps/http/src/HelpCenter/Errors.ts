import { Schema } from "effect"

/** No collection with that id in the organization. */
export class CollectionNotFound extends Schema.TaggedError<CollectionNotFound>()("CollectionNotFound", {
  id: Schema.Number
}) {}

/** No article with that id in the organization. */
export class ArticleNotFound extends Schema.TaggedError<ArticleNotFound>()("ArticleNotFound", {
  id: Schema.Number
}) {}

/** A referenced collection (`parent`, `collection`) is not one of the organization's. */
export class UnknownCollection extends Schema.TaggedError<UnknownCollection>()("UnknownCollection", {
  field: Schema.Literal("parent", "collection"),
  id: Schema.Number
}) {}

/** The move would put a collection under itself or one of its descendants, or nest deeper than allowed. */
export class InvalidMove extends Schema.TaggedError<InvalidMove>()("InvalidMove", {
  reason: Schema.Literal("cycle", "too_deep")
}) {}

/** The slug is already used by another collection (or article) of the organization. */
export class SlugTaken extends Schema.TaggedError<SlugTaken>()("SlugTaken", {
  kind: Schema.Literal("collection", "article"),
  slug: Schema.String
}) {}

/** A collection that still holds sub-collections or articles cannot be deleted. */
export class CollectionNotEmpty extends Schema.TaggedError<CollectionNotEmpty>()("CollectionNotEmpty", {
  children: Schema.Number,
  articles: Schema.Number
}) {}
