import {
  HttpApiBuilder,
  HttpApiError,
  type HttpApp,
  type HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Cause, Effect, Either } from "effect"
import { addFieldError, type FieldErrors, NON_FIELD_ERRORS, ValidationError } from "./Errors.js"
import { decideBaseUrl, RequestBaseUrl } from "./Links.js"
import type { BaseUrlPolicy } from "./PublicBaseUrl.js"

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

const isTagged = (u: unknown, tag: string) =>
  typeof u === "object" && u !== null && "_tag" in u && (u as { _tag: unknown })._tag === tag

const isEmpty = (response: HttpServerResponse.HttpServerResponse) => response.body._tag === "Empty"

/** The path as the router sees it: no URL parsing (which throws on odd request targets such as `//`). */
export const pathOf = (url: string) => {
  const queryAt = url.indexOf("?")
  return queryAt < 0 ? url : url.slice(0, queryAt)
}

/**
 * What the wire conventions answer before routing, else the request's base URL (`Links.decideBaseUrl`), decided
 * once before any handler so that links built after a write commits can no longer fail on a header:
 * - a path without its trailing slash: GET/HEAD → `301` to the slashed path; other methods → `404` naming it;
 * - a malformed `Host` (or forwarded host/scheme) → `400 {"detail":"Invalid Host header."}` (the probes and
 *   documentation, which make no links, are never refused).
 */
export const beforeRouting = (
  request: HttpServerRequest.HttpServerRequest,
  policy: BaseUrlPolicy
): Either.Either<string, HttpServerResponse.HttpServerResponse> => {
  const pathname = pathOf(request.url)
  if (UNSLASHED_PATHS.has(pathname)) return Either.right(RequestBaseUrl.defaultValue())
  if (!pathname.endsWith("/")) {
    const slashed = `${pathname}/`
    if (request.method === "GET" || request.method === "HEAD")
      return Either.left(
        HttpServerResponse.empty({
          status: 301,
          headers: { ...NOSNIFF, location: `${slashed}${request.url.slice(pathname.length)}` }
        })
      )
    return Either.left(
      json(404, {
        detail: `Not found. Every path ends with a slash: ${request.method} ${slashed} (no redirect is made for ${request.method}).`
      })
    )
  }
  return Either.mapLeft(decideBaseUrl(policy, request.headers), (detail) => json(400, { detail }))
}

/**
 * Rewrites what the platform answers on its own (after the API's error encoding) into the wire shapes: an empty
 * 404 (no route) becomes `{"detail":"Not found."}`, or `405` with `Allow` when the path exists with other
 * methods; an empty 5xx (a defect, or an error no schema encodes) becomes the 500 body with the request id; every
 * 401 gets `WWW-Authenticate`.
 */
export const rewriteResponse = (
  allowedMethods: (pathname: string) => ReadonlyArray<string>,
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string
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
  if (isUnexpectedAnswer(response)) return json(500, { detail: "Internal server error.", request_id: requestId })
  return response
}

/** The platform's answer to a failure no schema encodes: an empty 5xx, logged with its cause, never as a line. */
export const isUnexpectedAnswer = (response: HttpServerResponse.HttpServerResponse) =>
  response.status >= 500 && isEmpty(response)

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

/** For {@link rewriteResponse}: the methods an API serves at a concrete path (`/organizations/acme-x/` → GET, PATCH). */
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
