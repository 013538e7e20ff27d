import type { HttpServerRequest } from "@effect/platform"

/**
 * The absolute URL of the current request, as clients reached it: the `Host` header, and the scheme from
 * `X-Forwarded-Proto` when a proxy terminates TLS (else `http`).
 */
export const requestUrl = (request: HttpServerRequest.HttpServerRequest): URL => {
  const forwarded = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim()
  const scheme = forwarded === "https" || forwarded === "http" ? forwarded : "http"
  const host = request.headers.host ?? "localhost"
  return new URL(request.url, `${scheme}://${host}`)
}

/** The absolute URL of a path on this service (for `Location` headers). */
export const absoluteUrl = (request: HttpServerRequest.HttpServerRequest, path: string): string =>
  new URL(path, requestUrl(request)).toString()
