/**
 * The two kinds of help-center item as they are stored: the table, the column naming the item's parent (where its
 * position counts), and the slug an item gets when its text makes none.
 */
export const ITEM_KINDS = {
  collection: { table: "hc_collections", parentColumn: "parent_id", fallbackSlug: "collection" },
  article: { table: "hc_articles", parentColumn: "collection_id", fallbackSlug: "article" }
} as const

/** A kind of help-center item: a collection or an article. */
export type ItemKind = keyof typeof ITEM_KINDS
