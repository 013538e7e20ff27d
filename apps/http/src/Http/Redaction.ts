import { Effect, Layer, Tracer } from "effect"

/**
 * Secrets that travel in URLs, kept out of logs and traces (docs/decisions/0805-secrets-in-logs-and-at-rest.md):
 * the CSAT survey token (`/csat/{token}/`), the read-receipt token (`/mail/opened/{token}/`) and the signature of
 * download links (`?signature=`), plus any query parameter named like a credential.
 */
export const REDACTED = "[redacted]"

// A path segment ends at `/`, `?`, `#`, or where a URL quoted in a message ends.
const SECRET_SEGMENTS = /(\/csat\/|\/mail\/opened\/)[^/?#\s"'<>]+/g
const SECRET_PARAMS = /([?&](?:signature|sig|secret|password|[\w.-]*token|[\w.-]*api[_-]?key)=)[^&#\s"'<>]*/gi

/**
 * `url` with the token path segments of the survey and read-receipt routes and the values of credential-like
 * query parameters replaced by `[redacted]`; everything else as it was. Pure and idempotent. It also takes an
 * absolute URL or any text that quotes one (an error message naming the request's URL).
 */
export const redactUrl = (url: string): string =>
  // Most URLs (every request's is logged) have neither a query nor a token route: no regular expression for them.
  url.includes("?") || url.includes("&") || url.includes("/csat/") || url.includes("/mail/opened/")
    ? url.replace(SECRET_SEGMENTS, `$1${REDACTED}`).replace(SECRET_PARAMS, `$1${REDACTED}`)
    : url

// Span attributes the platform's HTTP tracer (and OpenTelemetry conventions) fill with the request's URL.
const URL_ATTRIBUTES = new Set(["url.full", "url.path", "url.query", "http.url", "http.target", "http.route"])

const redactAttribute = (key: string, value: unknown): unknown => {
  if (typeof value !== "string") return value
  if (key === "url.query") return redactUrl(`?${value}`).slice(1)
  return URL_ATTRIBUTES.has(key) ? redactUrl(value) : value
}

/** A span whose URL attributes are redacted before they reach the underlying span. */
const redactingSpan = (span: Tracer.Span): Tracer.Span =>
  new Proxy(span, {
    get: (target, property) => {
      if (property === "attribute")
        return (key: string, value: unknown) => target.attribute(key, redactAttribute(key, value))
      const value = Reflect.get(target, property)
      return typeof value === "function" ? value.bind(target) : value
    }
  })

/** `tracer` with every span's URL attributes ({@link redactUrl}) redacted; the spans themselves are its own. */
export const redactingTracer = (tracer: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      redactingSpan(
        tracer.span(
          name,
          parent,
          context,
          links,
          startTime,
          kind,
          options?.attributes === undefined
            ? options
            : {
                ...options,
                attributes: Object.fromEntries(
                  Object.entries(options.attributes).map(([key, value]) => [key, redactAttribute(key, value)])
                )
              }
        )
      ),
    context: (f, fiber) => tracer.context(f, fiber)
  })

/**
 * Wraps the tracer in effect (the one an embedding program provided) with {@link redactingTracer} for what the
 * layer it is provided to builds and runs: the platform's HTTP span records the request URL, which cannot be
 * changed before it does.
 */
export const RedactingTracerLive: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.map(Effect.tracer, (tracer) => Layer.setTracer(redactingTracer(tracer)))
)
