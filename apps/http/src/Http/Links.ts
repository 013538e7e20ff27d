import type { HttpServerRequest } from "@effect/platform"
import { Context, Effect, Either, Option } from "effect"
import type { BaseUrlPolicy } from "./PublicBaseUrl.js"

/**
 * The base URL of the request being answered (origin and path prefix, no trailing slash), decided once before
 * any handler runs (`decideBaseUrl`, provided by the wire conventions): every absolute link of the answer starts
 * with it. A reference rather than a requirement, so link building needs nothing from its callers; the default
 * only applies outside a served request.
 */
export class RequestBaseUrl extends Context.Reference<RequestBaseUrl>()("@helpdesk/http/Http/RequestBaseUrl", {
  defaultValue: (): string => "http://localhost"
}) {}

// `host`, `host:port`, `1.2.3.4:port` or `[v6]:port`: no spaces, user, path, query or empty port.
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/

/**
 * A `Host`-style value (`host[:port]`, port 1–65535) as it reads in a URL of `scheme` (lower-cased, default port
 * dropped), or `undefined` when it is not one.
 */
export const parseAuthority = (scheme: "http" | "https", value: string): string | undefined => {
  if (value.length === 0 || value.length > 262) return undefined
  const match = AUTHORITY.exec(value)
  if (match === null) return undefined
  if (match[1] !== undefined && (Number(match[1]) < 1 || Number(match[1]) > 65535)) return undefined
  try {
    const url = new URL(`${scheme}://${value}/`)
    return url.hostname === "" || url.username !== "" || url.pathname !== "/" ? undefined : url.host
  } catch {
    return undefined
  }
}

// The first of a header's comma-separated values (proxies append theirs), or undefined when absent or empty.
const firstValue = (value: string | undefined): string | undefined => {
  const first = value?.split(",")[0]?.trim()
  return first === undefined || first === "" ? undefined : first
}

/**
 * The base URL of a request, or the `detail` of its `400`: `PUBLIC_BASE_URL` when set (headers ignored); else,
 * behind a trusted proxy, `X-Forwarded-Proto`/`X-Forwarded-Host` (first values; `http` and `Host` when absent);
 * else `http://` and the `Host` header. A malformed value refuses the request rather than producing links.
 */
export const decideBaseUrl = (
  policy: BaseUrlPolicy,
  headers: Readonly<Record<string, string | undefined>>
): Either.Either<string, string> => {
  if (Option.isSome(policy.publicBaseUrl)) return Either.right(policy.publicBaseUrl.value)
  let scheme: "http" | "https" = "http"
  let host = headers.host
  let refused = "Invalid Host header."
  if (policy.trustProxy) {
    const proto = firstValue(headers["x-forwarded-proto"])?.toLowerCase()
    if (proto !== undefined) {
      if (proto !== "http" && proto !== "https") return Either.left("Invalid X-Forwarded-Proto header.")
      scheme = proto
    }
    const forwardedHost = firstValue(headers["x-forwarded-host"])
    if (forwardedHost !== undefined) {
      host = forwardedHost
      refused = "Invalid X-Forwarded-Host header."
    }
  }
  const authority = host === undefined ? undefined : parseAuthority(scheme, host)
  return authority === undefined ? Either.left(refused) : Either.right(`${scheme}://${authority}`)
}

// `base` is a decided base URL and `path` starts with `/`: this parses; the fallback only guards odd request targets.
const join = (base: string, path: string): URL => {
  try {
    return new URL(`${base}${path.startsWith("/") ? path : `/${path}`}`)
  } catch {
    return new URL(`${base}/`)
  }
}

/** The absolute URL of a path on this service (for `Location` headers and download links); never fails. */
export const absoluteUrl = (path: string): Effect.Effect<string> =>
  Effect.map(RequestBaseUrl, (base) => join(base, path).toString())

/** The absolute URL of the current request (path and query under the decided base URL); never fails. */
export const requestUrl = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<URL> =>
  Effect.map(RequestBaseUrl, (base) => join(base, request.url))
