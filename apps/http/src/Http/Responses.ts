import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { absoluteUrl } from "./Links.js"

/**
 * `201 Created` with the resource encoded by its schema and a `Location` header naming it (an absolute URL under
 * the request's decided base URL, `Links.RequestBaseUrl`, so it cannot fail after the write committed).
 * Declare the same schema with `.addSuccess(schema, { status: 201 })` so `/openapi.json` shows it.
 */
export const created = <A, I>(
  // The request being answered; its base URL was decided before the handler ran.
  _request: HttpServerRequest.HttpServerRequest,
  schema: Schema.Schema<A, I>,
  value: A,
  location: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.zipWith(Schema.encode(schema)(value).pipe(Effect.orDie), absoluteUrl(location), (body, url) =>
    HttpServerResponse.unsafeJson(body, { status: 201, headers: { location: url } })
  )

/** `204 No Content` for deletes; declare `.addSuccess(HttpApiSchema.NoContent)`. */
export const noContent: HttpServerResponse.HttpServerResponse = HttpServerResponse.empty({ status: 204 })
