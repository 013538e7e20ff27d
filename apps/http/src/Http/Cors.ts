import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Config, ConfigError, Either } from "effect"
import { NOSNIFF } from "./WireMiddleware.js"

/**
 * Which browser origins may call the API (`CORS_ORIGINS`): none (the default: no CORS header is ever sent), any
 * (`*`), or a list of exact origins. Decision 0406.
 */
export type CorsOrigins =
  | { readonly _tag: "None" }
  | { readonly _tag: "Any" }
  | { readonly _tag: "List"; readonly origins: ReadonlySet<string> }

/** Methods a cross-origin caller may use: every method the API serves. */
export const CORS_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const

/** Request headers a cross-origin caller may send beyond the safelisted ones (JSON bodies need `Content-Type`). */
export const CORS_REQUEST_HEADERS = ["X-Service-Token", "Content-Type"] as const

/** Response headers a cross-origin caller's script may read beyond the safelisted ones. */
export const CORS_EXPOSED_HEADERS = ["Location", "X-Request-Id"] as const

/** How long a browser may reuse a preflight answer (seconds; Chromium caps it at 7200). */
export const CORS_MAX_AGE = 7200

/**
 * One origin as browsers send it in `Origin`: `scheme://host[:port]`, lower case, default port dropped. Anything
 * else (a path, a query, a user, another scheme) is refused.
 */
export const parseOrigin = (value: string): Either.Either<string, string> => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return Either.left(`"${value}" is not an origin (e.g. https://app.example.com)`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return Either.left(`"${value}" must start with http:// or https://`)
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "" || url.pathname !== "/")
    return Either.left(`"${value}" must be an origin only: scheme, host and port, no path`)
  return Either.right(url.origin)
}

/** Parses `CORS_ORIGINS`: empty → none; `*` → any; else comma-separated origins, each checked. */
export const parseCorsOrigins = (value: string): Either.Either<CorsOrigins, string> => {
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
  if (entries.length === 0) return Either.right({ _tag: "None" })
  if (entries.includes("*"))
    return entries.length === 1
      ? Either.right({ _tag: "Any" })
      : Either.left("`*` allows every origin and cannot be combined with others")
  const origins = new Set<string>()
  for (const entry of entries) {
    const origin = parseOrigin(entry)
    if (Either.isLeft(origin)) return Either.left(origin.left)
    origins.add(origin.right)
  }
  return Either.right({ _tag: "List", origins })
}

/** `CORS_ORIGINS`, checked at start: a malformed value stops the service rather than silently allowing nothing. */
export const corsOrigins: Config.Config<CorsOrigins> = Config.string("CORS_ORIGINS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((value) =>
    Either.mapLeft(parseCorsOrigins(value), (reason) =>
      ConfigError.InvalidData(["CORS_ORIGINS"], `CORS_ORIGINS: ${reason}.`)
    )
  )
)

// `Vary` lists every request header the answer depends on: add Origin to what is there (e.g. Accept-Encoding).
const varyOrigin = (response: HttpServerResponse.HttpServerResponse) => {
  const vary = response.headers.vary
  if (vary === undefined || vary === "") return HttpServerResponse.setHeader(response, "vary", "Origin")
  return vary
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .some((name) => name === "origin" || name === "*")
    ? response
    : HttpServerResponse.setHeader(response, "vary", `${vary}, Origin`)
}

/** What CORS does to one request: answer its preflight, or add its headers to the answer. */
export interface CorsDecision {
  /** The answer to a preflight from an allowed origin; the service answers nothing else for it. */
  readonly preflight: HttpServerResponse.HttpServerResponse | undefined
  /** Any other answer (errors and redirects included) with the request's CORS headers. */
  readonly finish: (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.HttpServerResponse
}

/**
 * CORS for the configured origins, decided per request before anything else (the service's edge applies it):
 * - a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) from an allowed origin → `204` with
 *   the allowed methods and headers and `Access-Control-Max-Age`, before any path or `Host` rule;
 * - any other answer to an allowed origin (errors and redirects included) carries `Access-Control-Allow-Origin`
 *   (the origin, or `*` when any is allowed) and `Access-Control-Expose-Headers: Location, X-Request-Id`;
 * - with CORS on, every answer carries `Vary: Origin`; no credentials are ever allowed (the token is a header,
 *   not a cookie). A disallowed origin gets no CORS header, and its preflight goes on to the API (`405`).
 * `undefined` with no origins configured: nothing to decide.
 */
export const corsPolicy = (
  origins: CorsOrigins
): ((request: HttpServerRequest.HttpServerRequest) => CorsDecision) | undefined => {
  if (origins._tag === "None") return undefined
  const allowedOrigin = (origin: string | undefined): string | undefined =>
    origin === undefined ? undefined : origins._tag === "Any" ? "*" : origins.origins.has(origin) ? origin : undefined
  const exposed = CORS_EXPOSED_HEADERS.join(", ")
  const finish = (origin: string | undefined) => (response: HttpServerResponse.HttpServerResponse) =>
    varyOrigin(
      origin === undefined
        ? response
        : HttpServerResponse.setHeaders(response, {
            "access-control-allow-origin": origin,
            "access-control-expose-headers": exposed
          })
    )
  const preflightHeaders = (origin: string) => ({
    ...NOSNIFF,
    "access-control-allow-origin": origin,
    "access-control-allow-methods": CORS_METHODS.join(", "),
    "access-control-allow-headers": CORS_REQUEST_HEADERS.join(", "),
    "access-control-max-age": String(CORS_MAX_AGE),
    vary: "Origin"
  })
  return (request) => {
    const origin = allowedOrigin(request.headers.origin)
    const preflight =
      origin !== undefined &&
      request.method === "OPTIONS" &&
      request.headers["access-control-request-method"] !== undefined
        ? HttpServerResponse.empty({ status: 204, headers: preflightHeaders(origin) })
        : undefined
    return { preflight, finish: finish(origin) }
  }
}
