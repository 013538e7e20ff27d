import { HttpApiBuilder, type HttpApp, HttpServerRequest } from "@effect/platform"
import { Effect, ParseResult, Schema } from "effect"
import { formPairIssues, formPairs, type TextIssue, textIssuesError } from "./UntrustedText.js"

/**
 * A query parameter for `setUrlParams`: optional, documented as a string in `/openapi.json`, and never a decode
 * error (a repeated key keeps its last value, as DRF does), so parsing and its error messages stay with the
 * helper that owns the parameter (pagination, ordering, filters).
 */
export const param = (description: string) =>
  Schema.optional(
    Schema.transformOrFail(Schema.Union(Schema.String, Schema.Array(Schema.String)), Schema.String, {
      strict: true,
      decode: (input) => ParseResult.succeed(typeof input === "string" ? input : (input[input.length - 1] ?? "")),
      encode: ParseResult.succeed
    }).annotations({ jsonSchema: { type: "string", description } })
  )

/**
 * The `search` parameter of a keyword-searched list, as `filters: Query.search("name, ignoring case")`: documented
 * as "Keyword filter on name, ignoring case; every word must match." (`Resource.searchFilter` reads it).
 */
export const search = (on: string) => ({ search: param(`Keyword filter on ${on}; every word must match.`) })

/**
 * What is wrong with the text of a request's query string: each parameter whose name or value is not UTF-8 once
 * percent-decoded (`%FF`), or holds U+0000 or a lone surrogate, named by its parameter. The router's own parsing
 * keeps an undecodable value as it was and `URLSearchParams` turns it into U+FFFD, so the query is read again
 * from the raw request target, strictly.
 */
export const queryTextIssues = (url: string): ReadonlyArray<TextIssue> => {
  const at = url.indexOf("?")
  if (at < 0) return []
  const query = url.slice(at + 1)
  // The request target as Node received it: one character per byte.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is every character beyond one byte
  const bytes = Buffer.from(query, /[^\u0000-\u00ff]/.test(query) ? "utf8" : "latin1")
  return formPairIssues(formPairs(bytes))
}

/**
 * Refuses, for every endpoint of the API, a query string whose text could not be stored or compared (see
 * {@link queryTextIssues}): `400 {"search":["Null characters are not allowed."]}`.
 */
export const QueryTextChecked = HttpApiBuilder.middleware(
  (app) =>
    // The failure is one of the API's registered errors, so the API encodes it (as for `DecodeErrorsAsFieldErrors`).
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const issues = queryTextIssues(request.url)
      return issues.length === 0 ? app : Effect.fail(textIssuesError(issues))
    }) as HttpApp.Default<never>
)
