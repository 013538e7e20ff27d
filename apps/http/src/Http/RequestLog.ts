import { type HttpApp, HttpMiddleware, HttpServerError, HttpServerRequest } from "@effect/platform"
import { Cause, Effect, FiberRef } from "effect"
import { redactUrl } from "./Redaction.js"

/**
 * One log line per request, like `HttpMiddleware.logger` (`http.method`, `http.url`, `http.status` and the
 * duration as a log span), but with the URL and any failure's text passed through {@link redactUrl}: the
 * platform's logger prints `request.url` as it came, and survey links, read-receipt pixels and download links
 * carry their credential in it. Honours `HttpMiddleware.withLoggerDisabled`.
 */
export const requestLogger = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const exit = yield* Effect.exit(app)
    if (yield* FiberRef.get(HttpMiddleware.loggerDisabled)) return yield* exit
    const annotations = { "http.method": request.method, "http.url": redactUrl(request.url) }
    if (exit._tag === "Success")
      yield* Effect.log("Sent HTTP response").pipe(
        Effect.annotateLogs({ ...annotations, "http.status": exit.value.status })
      )
    else {
      const [response, cause] = HttpServerError.causeResponseStripped(exit.cause)
      const message = cause._tag === "Some" ? redactUrl(Cause.pretty(cause.value)) : "Sent HTTP response"
      yield* Effect.log(message).pipe(Effect.annotateLogs({ ...annotations, "http.status": response.status }))
    }
    return yield* exit
  }).pipe(Effect.withLogSpan("http.request"))
