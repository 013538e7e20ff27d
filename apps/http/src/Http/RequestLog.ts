import { HttpMiddleware, type HttpServerRequest } from "@effect/platform"
import { type Cause, Effect, FiberRef } from "effect"
import { redactUrl } from "./Redaction.js"

/**
 * A request's log line (docs/decisions/0410-request-logs.md): `Sent HTTP response` with `method`, `path` (the URL
 * as requested, secrets redacted by {@link redactUrl}: survey links, read-receipt pixels and download links carry
 * their credential in it), `status` and `duration_ms` (`started` is `Date.now()` on arrival); `request_id` is the
 * request's log annotation. Honours `HttpMiddleware.withLoggerDisabled`.
 */
export const logResponse = (request: HttpServerRequest.HttpServerRequest, status: number, started: number) =>
  Effect.flatMap(FiberRef.get(HttpMiddleware.loggerDisabled), (disabled) =>
    disabled
      ? Effect.void
      : Effect.log("Sent HTTP response").pipe(
          Effect.annotateLogs({
            method: request.method,
            path: redactUrl(request.url),
            status,
            duration_ms: Date.now() - started
          })
        )
  )

/** An unexpected failure as its request's one log line: an error with its cause, answered `500`. */
export const logUnexpectedFailure = (
  request: HttpServerRequest.HttpServerRequest,
  cause: Cause.Cause<unknown>,
  started: number
) =>
  Effect.logError("Unexpected failure", cause).pipe(
    Effect.annotateLogs({
      method: request.method,
      path: redactUrl(request.url),
      status: 500,
      duration_ms: Date.now() - started
    })
  )
