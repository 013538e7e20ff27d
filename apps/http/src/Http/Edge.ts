import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Either, FiberRef, HashMap } from "effect"
import { recordRequest } from "../Observability/RequestMetrics.js"
import { type CorsOrigins, corsPolicy } from "./Cors.js"
import { RequestBaseUrl } from "./Links.js"
import { type BaseUrlPolicy, HOST_HEADER_POLICY } from "./PublicBaseUrl.js"
import { decideRequestId, REQUEST_ID_HEADER } from "./RequestId.js"
import { logResponse, logUnexpectedFailure } from "./RequestLog.js"
import { beforeRouting, isExpectedEnd, isUnexpectedAnswer, NOSNIFF, rewriteResponse } from "./WireMiddleware.js"

/** How the service's edge treats every request (see {@link edge}). */
export interface EdgeOptions {
  /** The methods the API serves at a concrete path (`WireMiddleware.routeMethods`), for `405` and `Allow`. */
  readonly allowedMethods: (pathname: string) => ReadonlyArray<string>
  /** How each request's base URL is decided (default: the validated `Host`, no proxy trusted). */
  readonly baseUrl?: BaseUrlPolicy
  /** Which browser origins may call the API (default: none, no CORS header is ever sent). */
  readonly cors?: CorsOrigins
  /** One log line per request (decision 0410). */
  readonly logRequests?: boolean
}

/**
 * Everything the service does around its router, in one step per request (pass it to `HttpApiBuilder.serve`):
 * - CORS first (decision 0406): an allowed origin's preflight is answered before any other rule;
 * - the wire conventions' answers before routing (`WireMiddleware.beforeRouting`: the trailing slash, a malformed
 *   `Host`), else the request's base URL, set in the request's context as `Links.RequestBaseUrl` (decision 0803);
 * - a request id (`RequestId.decideRequestId`) on every log line of the request and in `X-Request-Id` on every
 *   answer (decision 0410);
 * - every answer rewritten into the wire shapes (`WireMiddleware.rewriteResponse`), with
 *   `X-Content-Type-Options: nosniff`, counted and timed under its route template (decision 0411), and logged
 *   when `logRequests`;
 * - anything unexpected logged once, with its cause, as that request's line.
 *
 * The platform writes a routed answer before a server middleware sees it, so all of that is one pre-response
 * handler; what the edge answers itself goes through the same finishing.
 */
export const edge = (options: EdgeOptions) => {
  const policy = options.baseUrl ?? HOST_HEADER_POLICY
  const corsOf = corsPolicy(options.cors ?? { _tag: "None" })
  const logRequests = options.logRequests === true
  return (app: HttpApp.Default): HttpApp.Default =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const started = performance.now()
      const startedAt = Date.now()
      const id = decideRequestId(request.headers[REQUEST_ID_HEADER])
      const cors = corsOf?.(request)
      // A preflight's answer is complete as made; every other one is rewritten and gets the CORS headers.
      const finish = (answer: HttpServerResponse.HttpServerResponse, preflight = false) =>
        Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse>((fiber) => {
          const rewritten = preflight ? answer : rewriteResponse(options.allowedMethods, request, answer, id)
          const headed = HttpServerResponse.setHeaders(rewritten, { ...NOSNIFF, [REQUEST_ID_HEADER]: id })
          const response = cors === undefined || preflight ? headed : cors.finish(headed)
          recordRequest(request, response.status, started, fiber.currentContext)
          // An unexpected failure's line is its error, with the cause (below).
          return logRequests && !isUnexpectedAnswer(answer)
            ? Effect.as(logResponse(request, response.status, startedAt, id), response)
            : Effect.succeed(response)
        })
      if (cors?.preflight !== undefined) return finish(cors.preflight, true)
      const baseUrl = beforeRouting(request, policy)
      if (Either.isLeft(baseUrl)) return finish(baseUrl.left)
      // Set on the request's own fiber, which ends with the request, rather than provided around `app`: nothing
      // needs them restored, and each `provideService` or `annotateLogs` costs a scope of its own per request.
      return HttpApp.appendPreResponseHandler((_, response) => finish(response)).pipe(
        Effect.zipRight(FiberRef.update(FiberRef.currentContext, Context.add(RequestBaseUrl, baseUrl.right))),
        Effect.zipRight(
          FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set<string, unknown>("request_id", id))
        ),
        Effect.zipRight(
          Effect.tapErrorCause(app, (cause) =>
            isExpectedEnd(cause) ? Effect.void : logUnexpectedFailure(request, cause, startedAt)
          )
        )
      )
    })
}
