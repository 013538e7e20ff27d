import { randomUUID } from "node:crypto"
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect } from "effect"

/** The response header (and log field `request_id`) that names a request (docs/decisions/0410-request-logs.md). */
export const REQUEST_ID_HEADER = "x-request-id"

// What a client's own id may be: short and free of anything a log or header could misread.
const ACCEPTED = /^[A-Za-z0-9._-]{1,128}$/

/** The client's `X-Request-Id` when it is sane (1–128 of `[A-Za-z0-9._-]`), else a fresh UUID. */
export const decideRequestId = (incoming: string | undefined): string =>
  incoming !== undefined && ACCEPTED.test(incoming) ? incoming : randomUUID()

/**
 * The id of the request being served, provided by {@link withRequestId}; `undefined` outside it (an app built
 * without it makes its own where it needs one).
 */
export class CurrentRequestId extends Context.Reference<CurrentRequestId>()("@helpdesk/http/Http/CurrentRequestId", {
  defaultValue: (): string | undefined => undefined
}) {}

const withHeader = (id: string) => (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeader(response, REQUEST_ID_HEADER, id)

/**
 * Outermost middleware: decides the request's id ({@link decideRequestId}), provides it as
 * {@link CurrentRequestId}, annotates every log line of the request with `request_id`, and sends it back in
 * `X-Request-Id` on the answers a middleware makes itself (a CORS preflight, a redirect). Routed answers get the
 * header from the wire conventions' pre-response handler, which runs inside this middleware and reads the id
 * provided here: one handler per request instead of two.
 */
export const withRequestId = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const id = decideRequestId(request.headers[REQUEST_ID_HEADER])
    return app.pipe(
      Effect.map(withHeader(id)),
      Effect.provideService(CurrentRequestId, id),
      Effect.annotateLogs("request_id", id)
    )
  })
