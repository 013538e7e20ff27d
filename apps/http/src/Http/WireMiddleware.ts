import { randomUUID } from "node:crypto"
import { HttpApiBuilder, HttpApiError, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Either } from "effect"
import { addFieldError, type FieldErrors, NON_FIELD_ERRORS, ValidationError } from "./Errors.js"
import { decideBaseUrl, RequestBaseUrl } from "./Links.js"
import { type BaseUrlPolicy, HOST_HEADER_POLICY } from "./PublicBaseUrl.js"
import { redactUrl } from "./Redaction.js"
import { CurrentRequestId, REQUEST_ID_HEADER } from "./RequestId.js"

/** Paths served without the trailing slash: probes, metrics and documentation, not API resources. */
export const UNSLASHED_PATHS: ReadonlySet<string> = new Set([
  "/healthz",
  "/readyz",
  "/metrics",
  "/openapi.json",
  "/docs"
])

/** Sent with every answer: a browser must not read a JSON error (or a download) as HTML or script. */
export const NOSNIFF = { "x-content-type-options": "nosniff" } as const

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { ...NOSNIFF, ...headers } })

const withNosniff = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, NOSNIFF)

const isTagged = (u: unknown, tag: string) =>
  typeof u === "object" && u !== null && "_tag" in u && (u as { _tag: unknown })._tag === tag

const isEmpty = (response: HttpServerResponse.HttpServerResponse) => response.body._tag === "Empty"

/**
 * Rewrites what the platform answers on its own (after the API's error encoding) into the wire shapes: an empty
 * 404 (no route) becomes `{"detail":"Not found."}`, an empty 5xx (a defect, or an error no schema encodes)
 * becomes the 500 body with the request id, every 401 gets `WWW-Authenticate`, and every answer `nosniff`.
 */
const finishResponse =
  (
    requestId: () => string,
    knownId: () => string | undefined,
    allowedMethods: (pathname: string) => ReadonlyArray<string>
  ) =>
  (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) =>
    Effect.sync(() => {
      const rewritten = withNosniff(rewriteResponse(requestId, allowedMethods, request, response))
      return withRequestIdOf(knownId(), rewritten)
    })

// A rewritten answer is a new response: it keeps the request's id (when there is one, or a 500 made one).
const withRequestIdOf = (id: string | undefined, response: HttpServerResponse.HttpServerResponse) =>
  id === undefined ? response : HttpServerResponse.setHeader(response, REQUEST_ID_HEADER, id)

const rewriteResponse = (
  requestId: () => string,
  allowedMethods: (pathname: string) => ReadonlyArray<string>,
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  // `/metrics` challenges for its own bearer token (METRICS_TOKEN); every other 401 is the API's.
  if (response.status === 401 && response.headers["www-authenticate"] === undefined)
    return HttpServerResponse.setHeader(response, "www-authenticate", "X-Service-Token")
  if (response.status === 404 && isEmpty(response)) {
    // No route: the path exists with other methods (405, as DRF), or not at all (404; also a path parameter
    // longer than the router accepts).
    const allowed = allowedMethods(pathOf(request.url))
    return allowed.length > 0 && !allowed.includes(request.method)
      ? json(405, { detail: `Method "${request.method}" not allowed.` }, { allow: allowed.join(", ") })
      : json(404, { detail: "Not found." })
  }
  if (response.status >= 500 && isEmpty(response))
    return json(500, { detail: "Internal server error.", request_id: requestId() }, { "x-request-id": requestId() })
  return response
}

// The path as the router sees it: no URL parsing (which throws on odd request targets such as `//`).
const pathOf = (url: string) => {
  const queryAt = url.indexOf("?")
  return queryAt < 0 ? url : url.slice(0, queryAt)
}

/**
 * Ends of a request that are not failures of the service: an interruption, no route, or a client that went away
 * before its answer (the platform's `499`, which would otherwise be logged as an unexpected failure).
 */
export const isExpectedEnd = (cause: Cause.Cause<unknown>): boolean => {
  if (Cause.isInterruptedOnly(cause)) return true
  const error = Cause.squash(cause)
  return isTagged(error, "RouteNotFound") || (HttpServerResponse.isServerResponse(error) && error.status === 499)
}

/**
 * The wire conventions that apply before routing and after everything else (pass it to
 * `HttpApiBuilder.serve`):
 * - a path without its trailing slash: GET/HEAD → `301` to the slashed path; other methods → `404` naming it;
 * - no route → `404 {"detail":"Not found."}`, or `405` with `Allow` when the path exists with other methods;
 * - the request's base URL is decided (`Links.decideBaseUrl`) before anything else runs and provided as
 *   `Links.RequestBaseUrl`; a malformed `Host` (or forwarded host/scheme) → `400 {"detail":"Invalid Host header."}`
 *   (the probes and documentation, which make no links, are never refused);
 * - every `401` carries `WWW-Authenticate: X-Service-Token`;
 * - every answer carries `X-Content-Type-Options: nosniff`;
 * - anything unexpected → `500 {"detail":"Internal server error.","request_id":"…"}`, the cause logged under
 *   that id.
 *
 * The platform writes the response before a server middleware sees it, so the rewriting is a pre-response
 * handler, and the failure (which still reaches this middleware afterwards) is only logged here. What this
 * middleware answers itself skips that handler, so those answers carry their headers already.
 */
export const wireConventions =
  (options: {
    readonly allowedMethods: (pathname: string) => ReadonlyArray<string>
    /** How each request's base URL is decided (default: the validated `Host`, no proxy trusted). */
    readonly baseUrl?: BaseUrlPolicy
  }) =>
  (app: HttpApp.Default): HttpApp.Default =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      // The path as the router sees it (no URL parsing on every request).
      const queryAt = request.url.indexOf("?")
      const pathname = queryAt < 0 ? request.url : request.url.slice(0, queryAt)
      if (!pathname.endsWith("/") && !UNSLASHED_PATHS.has(pathname)) {
        const slashed = `${pathname}/`
        if (request.method === "GET" || request.method === "HEAD") {
          const search = queryAt < 0 ? "" : request.url.slice(queryAt)
          return HttpServerResponse.empty({ status: 301, headers: { ...NOSNIFF, location: `${slashed}${search}` } })
        }
        return json(404, {
          detail: `Not found. Every path ends with a slash: ${request.method} ${slashed} (no redirect is made for ${request.method}).`
        })
      }
      // Once, before any handler: links built after a write commits can no longer fail on a header.
      const baseUrl = UNSLASHED_PATHS.has(pathname)
        ? Either.right(RequestBaseUrl.defaultValue())
        : decideBaseUrl(options.baseUrl ?? HOST_HEADER_POLICY, request.headers)
      if (Either.isLeft(baseUrl)) return json(400, { detail: baseUrl.left })
      // The request's (`withRequestId` around the app), else made only when something needs it (a 500 and its log
      // line), then the same for both.
      let id = yield* CurrentRequestId
      const requestId = () => {
        id ??= randomUUID()
        return id
      }
      const started = Date.now()
      yield* HttpApp.appendPreResponseHandler(finishResponse(requestId, () => id, options.allowedMethods))
      return yield* app.pipe(
        Effect.provideService(RequestBaseUrl, baseUrl.right),
        Effect.tapErrorCause((cause) =>
          isExpectedEnd(cause)
            ? Effect.void
            : // The request's one log line (the request logger leaves it to this one), with its cause.
              Effect.logError("Unexpected failure", cause).pipe(
                Effect.annotateLogs({
                  request_id: requestId(),
                  method: request.method,
                  path: redactUrl(request.url),
                  status: 500,
                  duration_ms: Date.now() - started
                })
              )
        )
      )
    })

/**
 * Path, query and header decode failures of HttpApi (`HttpApiDecodeError`) as DRF field errors, so even an
 * endpoint with a strict `setUrlParams` schema answers in the wire shape.
 */
export const DecodeErrorsAsFieldErrors = HttpApiBuilder.middleware(
  (app) =>
    Effect.catchIf(
      app as HttpApp.Default<unknown>,
      (error): error is HttpApiError.HttpApiDecodeError => error instanceof HttpApiError.HttpApiDecodeError,
      (error) => {
        const tree: Record<string, unknown> = {}
        for (const issue of error.issues) {
          const key = issue.path.length === 0 ? NON_FIELD_ERRORS : String(issue.path[issue.path.length - 1])
          addFieldError(tree, [key], [issue._tag === "Missing" ? "This field is required." : issue.message])
        }
        return Effect.fail(new ValidationError({ errors: tree as FieldErrors }))
      }
    ) as HttpApp.Default<never>
)

/** For `wireConventions`: the methods an API serves at a concrete path (`/organizations/acme-x/` → GET, PATCH). */
export const routeMethods = (routes: ReadonlyArray<{ readonly method: string; readonly path: string }>) => {
  const patterns = routes.map(({ method, path }) => ({
    method,
    regex: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:\w+/g, "[^/]+")}$`)
  }))
  return (pathname: string): ReadonlyArray<string> => {
    const methods = new Set(patterns.filter((p) => p.regex.test(pathname)).map((p) => p.method))
    if (methods.has("GET")) methods.add("HEAD")
    return [...methods]
  }
}
