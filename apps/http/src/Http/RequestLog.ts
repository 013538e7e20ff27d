import { HttpMiddleware, type HttpServerRequest } from "@effect/platform"
import { type Cause, Effect, FiberRef, HashMap, LogLevel } from "effect"
import { redactUrl } from "./Redaction.js"

/**
 * Logs one line with `fields` added to the fiber's annotations for that line alone. Not `Effect.annotateLogs`, which
 * scopes the change with an acquire/use/release of some thirty runtime steps; a request's line is the last thing its
 * fiber logs, so the annotations are simply put back after it.
 */
const logLine = (
  level: LogLevel.LogLevel,
  message: string,
  fields: Readonly<Record<string, unknown>>,
  cause?: Cause.Cause<unknown>
) =>
  Effect.flatMap(
    FiberRef.getAndUpdate(FiberRef.currentLogAnnotations, (annotations) =>
      HashMap.mutate(annotations, (mutable) => {
        for (const key in fields) HashMap.set(mutable, key, fields[key])
      })
    ),
    (annotations) =>
      Effect.zipRight(
        cause === undefined ? Effect.logWithLevel(level, message) : Effect.logWithLevel(level, message, cause),
        FiberRef.set(FiberRef.currentLogAnnotations, annotations)
      )
  )

/**
 * A request's log line (docs/decisions/0410-request-logs.md): `Sent HTTP response` with `request_id` (`requestId`),
 * `method`, `path` (the URL as requested, secrets redacted by {@link redactUrl}: survey links, read-receipt pixels
 * and download links carry their credential in it), `status` and `duration_ms` (`started` is `Date.now()` on
 * arrival). Honours `HttpMiddleware.withLoggerDisabled`.
 */
export const logResponse = (
  request: HttpServerRequest.HttpServerRequest,
  status: number,
  started: number,
  requestId: string
) =>
  Effect.withFiberRuntime<void>((fiber) =>
    fiber.getFiberRef(HttpMiddleware.loggerDisabled)
      ? Effect.void
      : logLine(LogLevel.Info, "Sent HTTP response", {
          request_id: requestId,
          method: request.method,
          path: redactUrl(request.url),
          status,
          duration_ms: Date.now() - started
        })
  )

/** An unexpected failure as its request's one log line: an error with its cause, answered `500`. */
export const logUnexpectedFailure = (
  request: HttpServerRequest.HttpServerRequest,
  cause: Cause.Cause<unknown>,
  started: number
) =>
  logLine(
    LogLevel.Error,
    "Unexpected failure",
    { method: request.method, path: redactUrl(request.url), status: 500, duration_ms: Date.now() - started },
    cause
  )
