import { HttpApi, type HttpServerRequest } from "@effect/platform"
import { Context, Metric, MetricLabel, Tracer } from "effect"
import { Api } from "../Api.js"
import { httpRequestDuration, httpRequests } from "./Metrics.js"
import { routeTemplates } from "./RouteTemplates.js"

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
 * Counts a request and times it (`helpdesk_http_requests_total`, `helpdesk_http_request_duration_seconds`) under
 * its route template, never its concrete path, with the status it is answered with; `started` is its
 * `performance.now()` on arrival. The service's edge calls it for every answer, those it makes itself included.
 * The template is also the server span's `http.route` attribute (read from `context`: `annotateCurrentSpan` builds
 * an exception when nothing is traced).
 */
export const recordRequest = (
  request: HttpServerRequest.HttpServerRequest,
  status: number,
  started: number,
  context: Context.Context<never>
): void => {
  const { route } = routeOf(request.method, request.url)
  const span = Context.getOption(context, Tracer.ParentSpan)
  if (span._tag === "Some" && span.value._tag === "Span") span.value.attribute("http.route", route)
  const { count, time } = seriesOf(METHODS.has(request.method) ? request.method : "other", route, status)
  count()
  time((performance.now() - started) / 1000)
}
