import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { absoluteUrl } from "./Links.js"

/**
 * `201 Created` with the resource encoded by its schema and a `Location` header naming it (an absolute URL).
 * Declare the same schema with `.addSuccess(schema, { status: 201 })` so `/openapi.json` shows it.
 */
export const created = <A, I>(
  request: HttpServerRequest.HttpServerRequest,
  schema: Schema.Schema<A, I>,
  value: A,
  location: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Schema.encode(schema)(value).pipe(
    Effect.orDie,
    Effect.flatMap((body) =>
      HttpServerResponse.json(body, { status: 201, headers: { location: absoluteUrl(request, location) } })
    ),
    Effect.orDie
  )

/** `204 No Content` for deletes; declare `.addSuccess(HttpApiSchema.NoContent)`. */
export const noContent: HttpServerResponse.HttpServerResponse = HttpServerResponse.empty({ status: 204 })
