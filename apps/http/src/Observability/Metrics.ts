import { Duration, Metric, MetricBoundaries } from "effect"

/**
 * The service's metrics, in Effect's process-wide registry and served at `/metrics` (docs/operations.md,
 * "Metrics"; docs/decisions/0411-metrics-and-traces.md). Durations are in seconds, as Prometheus names them.
 */

// Request latencies from 5 ms to 10 s.
const REQUEST_SECONDS = MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])

// An append is one or a few statements: from half a millisecond to 2.5 s.
const APPEND_SECONDS = MetricBoundaries.fromIterable([
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5
])

/** Requests answered, by `method`, `route` (the route's template, or `unmatched`) and `status`. */
export const httpRequests = Metric.counter("helpdesk_http_requests_total", {
  description: "HTTP requests answered, by method, route template and status.",
  incremental: true
})

/** Time from a request's arrival to its answer, by `method`, `route` and `status`. */
export const httpRequestDuration = Metric.histogram(
  "helpdesk_http_request_duration_seconds",
  REQUEST_SECONDS,
  "Time to answer an HTTP request (until its response is ready to write), by method, route template and status."
)

/** How long each event-store append takes (its statements and inline projections), fed with `trackDuration`. */
export const eventAppendDuration = Metric.histogram(
  "helpdesk_event_store_append_duration_seconds",
  APPEND_SECONDS,
  "Time of one event-store append: its statements and inline projections."
).pipe(Metric.mapInput((duration: Duration.Duration) => Duration.toSeconds(duration)))

/** Outbox rows not yet delivered (`pending` or `sending`); set when `/metrics` is read. */
export const outboxDepth = Metric.gauge("helpdesk_outbox_pending", {
  description: "Outbox rows not delivered yet (pending or sending), read at scrape time."
})

/** Age of the oldest undelivered outbox row (0 when there is none); set when `/metrics` is read. */
export const outboxOldestAge = Metric.gauge("helpdesk_outbox_oldest_pending_age_seconds", {
  description: "Age of the oldest outbox row not delivered yet (0 when none), read at scrape time."
})

/** Snoozes due and not fired yet; set when `/metrics` is read. */
export const timersDue = Metric.gauge("helpdesk_timers_due", {
  description: "Timers due and not fired yet, by timer, read at scrape time."
})

/** How late the most overdue timer is (0 when none is due): the timers' current lag; set when `/metrics` is read. */
export const timersOldestDueAge = Metric.gauge("helpdesk_timers_oldest_due_age_seconds", {
  description: "How long the most overdue timer has been due (0 when none), by timer, read at scrape time."
})

/** Connections the database pool holds (idle and in use). */
export const poolConnections = Metric.gauge("helpdesk_db_pool_connections", {
  description: "Connections open in the database pool (idle and in use)."
})

/** Idle connections of the database pool. */
export const poolIdle = Metric.gauge("helpdesk_db_pool_idle_connections", {
  description: "Idle connections in the database pool."
})

/** Queries waiting for a connection of the database pool. */
export const poolWaiting = Metric.gauge("helpdesk_db_pool_waiting_clients", {
  description: "Queries waiting for a connection of the database pool."
})

/** The most connections the database pool opens (`DATABASE_POOL_SIZE`; 1 on the embedded database). */
export const poolMax = Metric.gauge("helpdesk_db_pool_max_connections", {
  description: "Most connections the database pool opens."
})
