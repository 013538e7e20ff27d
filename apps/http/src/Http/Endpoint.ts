import { HttpApiEndpoint, type HttpMethod } from "@effect/platform"
import { Schema } from "effect"
import { type Doc, documented } from "./Documented.js"
import * as Pagination from "./Pagination.js"

/**
 * Endpoints declared with their OpenAPI documentation in one call, and the paged list (query parameters with
 * `page`/`page_size`, the `count/next/previous/results` envelope) in one place. They build Effect's own
 * `HttpApiEndpoint`s: add paths, bodies, successes and errors to them as usual.
 */

const documentedMethod =
  <Method extends HttpMethod.HttpMethod>(method: Method) =>
  <const Name extends string>(name: Name, path: HttpApiEndpoint.PathSegment, doc: Doc) =>
    HttpApiEndpoint.make(method)(name, path).annotateContext(documented(doc))

/** A documented `GET` endpoint. */
export const get = documentedMethod("GET")
/** A documented `POST` endpoint. */
export const post = documentedMethod("POST")
/** A documented `PUT` endpoint. */
export const put = documentedMethod("PUT")
/** A documented `PATCH` endpoint. */
export const patch = documentedMethod("PATCH")
/** A documented `DELETE` endpoint. */
export const del = documentedMethod("DELETE")

/** The query parameters of a paged list: `fields` (filters, an `Ordering`'s `params`), then `page` and `page_size`. */
export const pagedParams = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct({ ...fields, ...Pagination.params })

/**
 * A documented paged list: `GET` answering the page envelope of `item`, with the query parameters `fields`
 * (string-encoded: `Query.param`s, an `Ordering`'s `params`) and paging.
 */
export const list = <const Name extends string, A, I, R, const Fields extends Schema.Struct.Fields = {}>(
  name: Name,
  path: HttpApiEndpoint.PathSegment,
  doc: Doc,
  item: Schema.Schema<A, I, R>,
  fields: Fields = {} as Fields
) => {
  const params = pagedParams(fields)
  // The fields are string-encoded query parameters, which the generic check cannot see through.
  return get(name, path, doc)
    .setUrlParams<typeof params>(params as never)
    .addSuccess(Pagination.Envelope(item))
}
