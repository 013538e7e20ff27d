import { Effect } from "effect"
import { ValidationError } from "../Http/Errors.js"
import { parseBooleanText } from "../Http/Fields.js"
import type { ArticleSelection } from "./Collections.js"

/**
 * The query of `GET …/portal/collections/tree/` (docs/decisions/0603-help-center-tree.md):
 * - `include_articles`: `true`, `1` or `yes` (any case, surrounding spaces ignored) embeds articles; any other
 *   value, or none, leaves them out (the spec's rule: anything else is false).
 * - `published`: only read when articles are included. A true value (`true/1/yes`) keeps published articles, a
 *   false value (`false/0/no`) keeps the others, empty or absent keeps all; any other value is a 400, since a
 *   typo there would silently show drafts on a public page.
 */

const TRUE_VALUES = new Set(["true", "1", "yes"])

/** Whether `include_articles` asks for articles. */
export const includesArticles = (value: string | undefined): boolean =>
  value !== undefined && TRUE_VALUES.has(value.trim().toLowerCase())

/** The articles the tree embeds: undefined when none are included. */
export const parseTreeQuery = (query: {
  readonly include_articles?: string | undefined
  readonly published?: string | undefined
}): Effect.Effect<ArticleSelection | undefined, ValidationError> => {
  if (!includesArticles(query.include_articles)) return Effect.succeed(undefined)
  const published = query.published?.trim() ?? ""
  if (published === "") return Effect.succeed("all")
  const parsed = parseBooleanText(published)
  return parsed === undefined
    ? Effect.fail(
        ValidationError.field(
          "published",
          "Must be a valid boolean (true/false, 1/0 or yes/no), or empty for all articles."
        )
      )
    : Effect.succeed(parsed ? "published" : "unpublished")
}
