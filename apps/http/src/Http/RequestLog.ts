import { type HttpApp, HttpMiddleware, HttpServerError, HttpServerRequest } from "@effect/platform"
import { Effect, FiberRef } from "effect"
import { redactUrl } from "./Redaction.js"
import { withRequestId } from "./RequestId.js"
import { isExpectedEnd } from "./WireMiddleware.js"

/**
 * One log line per request (docs/decisions/0410-request-logs.md): `Sent HTTP response` with `method`, `path`
 * (the URL as requested, secrets redacted by {@link redactUrl}: survey links, read-receipt pixels and download
 * links carry their credential in it), `status` and `duration_ms`; `request_id` comes from {@link withRequestId}
 * around it. An unexpected failure is not logged here: the wire middleware logs it once, with its cause, as that
 * request's line. Honours `HttpMiddleware.withLoggerDisabled`.
 */
export const requestLogger = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = Date.now()
    const exit = yield* Effect.exit(app)
    if (yield* FiberRef.get(HttpMiddleware.loggerDisabled)) return yield* exit
    if (exit._tag === "Failure" && !isExpectedEnd(exit.cause)) return yield* exit
    const status =
      exit._tag === "Success" ? exit.value.status : HttpServerError.causeResponseStripped(exit.cause)[0].status
    yield* Effect.log("Sent HTTP response").pipe(
      Effect.annotateLogs({
        method: request.method,
        path: redactUrl(request.url),
        status,
        duration_ms: Date.now() - started
      })
    )
    return yield* exit
  })

/**
 * What the service wraps its whole HTTP application in: a request id for every request (outermost, so that every
 * answer and every log line of the request carries it), and the request's log line when `logRequests`.
 */
export const observeRequests =
  (logRequests: boolean) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    withRequestId(logRequests ? requestLogger(app) : app)
