import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Console, Duration, Effect, Fiber, Layer, Redacted } from "effect"
import { clientOptions } from "../src/Database/Database.js"
import * as PgPool from "../src/Database/PgPool.js"
import { PostgresEventStore } from "../src/EventStore/PostgresEventStore.js"
import { deliveryAgent, deliveryRounds, postSigned } from "../src/Webhooks/WebhookDelivery.js"
import { fanOutRound } from "../src/Webhooks/WebhookFanOut.js"
import { defaultWebhookOptions, type WebhookOptions } from "../src/Webhooks/WebhookOptions.js"
import { Webhooks } from "../src/Webhooks/Webhooks.js"
import { benchOrganization, describeRun, parcelTickets, runOnOwnDatabase, ticketServicesOn } from "./BenchDatabase.js"
import { type Benchmark, rateLine } from "./Benchmark.js"

/**
 * Webhook deliveries/s: the worker (fan-out from the global log into deliveries, claim, signed POST, outcome) to an
 * in-process node:http receiver, beside a baseline in the same run: the same bodies posted straight to the same
 * receiver with the same client, signed, as many in flight as the worker's batch. One worker instance, then two
 * with their own pools (as two replicas). PostgreSQL (`DATABASE_URL`, or the local test server), in a database
 * created for the run. `BENCH_WEBHOOK_TICKETS` (default 500) tickets per figure, each a few events.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const TICKETS = Number(process.env.BENCH_WEBHOOK_TICKETS ?? 500)
const OPTIONS: WebhookOptions = { ...defaultWebhookOptions, allowPrivate: true, pollInterval: Duration.millis(5) }

/** A receiver on 127.0.0.1 answering 204 to everything, counting requests. */
const receiverServer = Effect.acquireRelease(
  Effect.async<{ url: string; counter: { received: number }; server: ReturnType<typeof createServer> }>((resume) => {
    const counter = { received: 0 }
    const server = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        counter.received += 1
        res.writeHead(204).end()
      })
    })
    server.keepAliveTimeout = 30_000
    server.listen(0, "127.0.0.1", () =>
      resume(
        Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, counter, server })
      )
    )
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

const seedTickets = (organizationId: OrganizationId, userId: number, count: number, label: string) =>
  parcelTickets(organizationId, userId, count, label, {
    description: "Hello, the parcel I ordered two weeks ago has still not arrived. Could you please check?",
    descriptionHtml: "<p>Hello, the parcel I ordered two weeks ago has still not arrived.</p>"
  })

/** A worker instance with its own pool: fan-out and delivery loops, as `WebhookWorkerLive` runs them. */
const instance = (url: string) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      PostgresEventStore.Default.pipe(
        Layer.provideMerge(
          PgPool.layer({ url: Redacted.make(url), maxConnections: 8, namedStatements: true, ...clientOptions })
        )
      )
    )
    const rounds = yield* Effect.provide(deliveryRounds(OPTIONS), context)
    const loop = (step: Effect.Effect<number>) =>
      Effect.forever(Effect.flatMap(step, (n) => (n > 0 ? Effect.void : Effect.sleep(OPTIONS.pollInterval))))
    return Effect.all(
      [
        loop(Effect.uninterruptible(Effect.provide(fanOutRound, context))),
        loop(Effect.uninterruptible(Effect.map(Effect.provide(rounds.round, context), (r) => r.claimed)))
      ],
      { concurrency: 2 }
    )
  })

const line = (label: string, deliveries: number, seconds: number, baseline?: number) =>
  rateLine(label, 66, "deliveries", deliveries, seconds, baseline)

/** Runs the instances until `expected` more deliveries are recorded delivered; answers the seconds taken. */
const deliverAll = (instances: ReadonlyArray<Effect.Effect<unknown>>, expected: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const delivered = Effect.map(
      sql<{ n: string }>`SELECT count(*) AS n FROM hd_webhook_deliveries WHERE status = 'delivered'`.pipe(Effect.orDie),
      (rows) => Number(rows[0]!.n)
    )
    const target = (yield* delivered) + expected
    const start = performance.now()
    const fibers = yield* Effect.forEach(instances, (work) => Effect.fork(work))
    while ((yield* delivered) < target) yield* Effect.sleep(Duration.millis(10))
    const seconds = (performance.now() - start) / 1000
    yield* Effect.forEach(fibers, Fiber.interrupt, { discard: true })
    return seconds
  })

const run = runOnOwnDatabase(
  "webhooks",
  DEFAULT_URL,
  (url) => {
    // Before any service reads it: the receiver listens on loopback.
    process.env.WEBHOOKS_ALLOW_PRIVATE = "true"
    return ticketServicesOn(url, 12)
  },
  ({ database, url }) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* describeRun(database)

      const receiver = yield* receiverServer
      const { owner, organization } = yield* benchOrganization("Bench webhooks")
      const webhook = yield* (yield* Webhooks).create(organization.id, { url: receiver.url })
      const agent = deliveryAgent(OPTIONS)
      yield* Effect.addFinalizer(() => Effect.promise(() => agent.close()))
      const bodiesAfter = (afterId: string) =>
        sql<{ id: string; eventId: string; body: string }>`
        SELECT id, event_id, body FROM hd_webhook_deliveries WHERE id > ${afterId} ORDER BY id`
      const baseline = (rows: ReadonlyArray<{ eventId: string; body: string }>) =>
        Effect.gen(function* () {
          const start = performance.now()
          yield* Effect.forEach(
            rows,
            (row) =>
              postSigned(agent, OPTIONS, {
                url: receiver.url,
                eventId: row.eventId,
                body: row.body,
                secrets: [webhook.secret]
              }),
            { concurrency: OPTIONS.batchSize, discard: true }
          )
          return (performance.now() - start) / 1000
        })

      // Warm-up: connections, plans, the receiver's keep-alive sockets.
      yield* seedTickets(organization.id, owner.id, 50, "warm")
      const warmEvents = Number(
        (yield* sql<{
          n: string
        }>`SELECT count(*) AS n FROM hd_events WHERE organization_id = ${organization.id}`)[0]!.n
      )
      yield* deliverAll([yield* instance(url)], warmEvents)
      yield* baseline(yield* bodiesAfter("0"))

      const runFigure = (label: string, instances: number) =>
        Effect.gen(function* () {
          const [{ maxId }] = (yield* sql<{ maxId: string }>`
          SELECT coalesce(max(id), 0)::text AS max_id FROM hd_webhook_deliveries`) as [{ maxId: string }]
          const [{ n: before }] = (yield* sql<{ n: string }>`
          SELECT count(*) AS n FROM hd_events WHERE organization_id = ${organization.id}`) as [{ n: string }]
          yield* seedTickets(organization.id, owner.id, TICKETS, label)
          const [{ n: after }] = (yield* sql<{ n: string }>`
          SELECT count(*) AS n FROM hd_events WHERE organization_id = ${organization.id}`) as [{ n: string }]
          const events = Number(after) - Number(before)
          const workers = yield* Effect.forEach(Array.from({ length: instances }), () => instance(url))
          const seconds = yield* deliverAll(workers, events)
          const rows = yield* bodiesAfter(maxId)
          if (rows.length !== events)
            return yield* Effect.dieMessage(`expected ${events} deliveries, found ${rows.length}`)
          const base = yield* baseline(rows)
          return { events, seconds, base }
        })

      yield* Console.log(
        `workload:           ${TICKETS} tickets per figure (TicketCreated and what follows it), one webhook; batches of ${OPTIONS.batchSize}, all in flight; receiver answers 204\n`
      )
      for (const instances of [1, 2]) {
        const figure = yield* runFigure(`n${instances}`, instances)
        const baseRate = figure.events / figure.base
        yield* Console.log(
          line(
            `baseline: the same ${figure.events} bodies posted straight (undici, ${OPTIONS.batchSize} in flight, signed)`,
            figure.events,
            figure.base
          )
        )
        yield* Console.log(
          line(
            `webhook worker, ${instances} instance${instances === 1 ? "" : "s"} (fan-out → claim → POST → outcome)`,
            figure.events,
            figure.seconds,
            baseRate
          )
        )
      }
      const [{ pending }] = (yield* sql<{ pending: string }>`
      SELECT count(*) FILTER (WHERE status <> 'delivered') AS pending FROM hd_webhook_deliveries`) as [
        { pending: string }
      ]
      return `deliveries not delivered: ${pending}`
    })
)

/** Webhook deliveries/s through the worker, beside posting the same bodies straight. */
export const webhookBenchmark: Benchmark = {
  name: "webhooks",
  description: "webhook deliveries/s (log → deliveries → signed POST) against posting the same bodies straight",
  run
}
