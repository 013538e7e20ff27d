import { HttpApi, type HttpApp, HttpServerError, HttpServerRequest } from "@effect/platform"
import { Context, Effect, Metric, MetricLabel, Tracer } from "effect"
import { Api } from "../Api.js"
import { httpRequestDuration, httpRequests } from "./Metrics.js"
import { routeTemplates, UNMATCHED } from "./RouteTemplates.js"

/** Paths served beside the API's routes (documentation and metrics). */
const EXTRA_ROUTES = [
  { method: "GET", path: "/openapi.json" },
  { method: "GET", path: "/docs" },
  { method: "GET", path: "/metrics" }
]

const apiRoutes: Array<{ method: string; path: string }> = [...EXTRA_ROUTES]
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => {
    apiRoutes.push({ method: endpoint.method, path: endpoint.path })
  }
})

/** The route template of a request to the service (`unmatched` when no route has its path). */
export const routeOf = routeTemplates(apiRoutes)

// Any other method a client invents would make a label per request.
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

// One tagged counter and histogram per (method, route, status): bounded, since each of the three is.
const series = new Map<string, { readonly count: () => void; readonly time: (seconds: number) => void }>()
const seriesOf = (method: string, route: string, status: number) => {
  const key = `${method} ${route} ${status}`
  let found = series.get(key)
  if (found === undefined) {
    // One label array per series: the metric caches its registry entry by that array, so it is looked up once.
    const labels = [
      MetricLabel.make("method", method),
      MetricLabel.make("route", route),
      MetricLabel.make("status", String(status))
    ]
    const counter = Metric.taggedWithLabels(httpRequests, labels)
    const histogram = Metric.taggedWithLabels(httpRequestDuration, labels)
    // Updated in place (the service sets no fiber metric labels): two Effect steps fewer on every request.
    found = { count: () => counter.unsafeUpdate(1, []), time: (seconds) => histogram.unsafeUpdate(seconds, []) }
    series.set(key, found)
  }
  return found
}

/**
 * Counts every request and times it (`helpdesk_http_requests_total`, `helpdesk_http_request_duration_seconds`)
 * under its route template, never its concrete path. Wraps the whole application, so that answers the wire
 * conventions and CORS make themselves are counted too. The status is the one the request's log line names; a
 * path served only with other methods counts as the 405 the service answers. The template is also the server
 * span's `http.route` attribute.
 */
export const measureRequests = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const started = performance.now()
    return Effect.onExit(app, (exit) =>
      Effect.withFiberRuntime<void>((fiber) => {
        const method = METHODS.has(request.method) ? request.method : "other"
        const { route, methodServed } = routeOf(request.method, request.url)
        // The server span (when traced) is around this middleware: it gets the template as OpenTelemetry's
        // `http.route`. Read from the context: `annotateCurrentSpan` builds an exception when nothing is traced.
        const span = Context.getOption(fiber.currentContext, Tracer.ParentSpan)
        if (span._tag === "Some" && span.value._tag === "Span") span.value.attribute("http.route", route)
        const answered =
          exit._tag === "Success" ? exit.value.status : HttpServerError.causeResponseStripped(exit.cause)[0].status
        const status = answered === 404 && route !== UNMATCHED && !methodServed ? 405 : answered
        const { count, time } = seriesOf(method, route, status)
        count()
        time((performance.now() - started) / 1000)
        return Effect.void
      })
    )
  })
