import { createHash, timingSafeEqual } from "node:crypto"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Config, Effect, Metric, Option, Redacted } from "effect"
import { PgPool } from "../Database/PgPool.js"
import { NOSNIFF } from "../Http/WireMiddleware.js"
import {
  outboxDepth,
  outboxOldestAge,
  poolConnections,
  poolIdle,
  poolMax,
  poolWaiting,
  timersDue,
  timersOldestDueAge
} from "../Observability/Metrics.js"
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from "../Observability/Prometheus.js"

/** What the scrape-time query reads: outbox depth and age, due snoozes and the most overdue one's age. */
interface Backlog {
  readonly outboxPending: string
  readonly outboxOldestAge: number | null
  readonly snoozesDue: string
  readonly snoozeOldestAge: number | null
}

const sha256 = (text: string) => createHash("sha256").update(text).digest()

/** Whether `Authorization` is `Bearer <token>` (compared in constant time). */
const bearerMatches = (header: string | undefined, token: Redacted.Redacted<string>) => {
  const presented = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim()
  return presented !== undefined && timingSafeEqual(sha256(presented), sha256(Redacted.value(token)))
}

/**
 * `GET /metrics`: every metric of the process in the Prometheus text format (docs/operations.md, "Metrics"). The
 * gauges of backlogs (outbox, due timers) are read with one query when scraped, the pool's from the `pg` pool.
 * Open unless `METRICS_TOKEN` is set, then `Authorization: Bearer <METRICS_TOKEN>` is required: the figures say
 * how busy the service is, so the path should not be reachable from the public side of a proxy either way.
 */
export const MetricsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const token = yield* Config.option(Config.redacted("METRICS_TOKEN"))
    const sql = yield* SqlClient.SqlClient
    const { pool } = yield* PgPool
    const backlog = sql<Backlog>`
      SELECT
        (SELECT count(*) FROM hd_outbox WHERE status IN ('pending', 'sending')) AS outbox_pending,
        (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM hd_outbox
          WHERE status IN ('pending', 'sending')) AS outbox_oldest_age,
        (SELECT count(*) FROM hd_tickets WHERE snoozed_until <= now()) AS snoozes_due,
        (SELECT extract(epoch FROM now() - min(snoozed_until))::float8 FROM hd_tickets
          WHERE snoozed_until <= now()) AS snooze_oldest_age`.pipe(
      Effect.flatMap(([row]) =>
        row === undefined
          ? Effect.void
          : Effect.all([
              Metric.set(outboxDepth, Number(row.outboxPending)),
              Metric.set(outboxOldestAge, row.outboxOldestAge ?? 0),
              Metric.set(timersDue.pipe(Metric.tagged("timer", "snooze")), Number(row.snoozesDue)),
              Metric.set(timersOldestDueAge.pipe(Metric.tagged("timer", "snooze")), row.snoozeOldestAge ?? 0)
            ])
      ),
      Effect.timeout("2 seconds"),
      // The other figures are still worth answering with when the database is slow or away.
      Effect.catchAllCause((cause) => Effect.logWarning("Metrics: the backlog gauges could not be read", cause))
    )
    const poolGauges = Effect.all([
      Metric.set(poolConnections, pool.totalCount),
      Metric.set(poolIdle, pool.idleCount),
      Metric.set(poolWaiting, pool.waitingCount),
      Metric.set(poolMax, pool.options.max ?? 10)
    ])
    yield* router.get(
      "/metrics",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (Option.isSome(token) && !bearerMatches(request.headers.authorization, token.value))
          return HttpServerResponse.unsafeJson(
            { detail: "Authentication credentials were not provided or are invalid." },
            { status: 401, headers: { ...NOSNIFF, "www-authenticate": 'Bearer realm="metrics"' } }
          )
        yield* Effect.all([backlog, poolGauges], { concurrency: 2 })
        return HttpServerResponse.text(renderPrometheus(yield* Metric.snapshot), {
          contentType: PROMETHEUS_CONTENT_TYPE,
          headers: { ...NOSNIFF, "cache-control": "no-store" }
        })
      })
    )
  })
)
