import { createServer } from "node:http"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { EventStore, GlobalCheckpointStart, type NewEvent, type OrganizationId } from "@helpdesk/domain"
import { Console, Duration, Effect, Layer } from "effect"
import pg from "pg"
import { Tokens } from "../src/Auth/Tokens.js"
import { encodeCursor } from "../src/EventLog/Cursor.js"
import { EventFeed } from "../src/EventLog/EventFeed.js"
import { InlineProjections } from "../src/EventStore/InlineProjection.js"
import { PostgresEventStoreLive } from "../src/EventStore/PostgresEventStore.js"
import { Organizations } from "../src/Organizations/Organizations.js"
import { HttpAppLive } from "../src/Server.js"
import { ServicesLive } from "../src/Services.js"
import { Users } from "../src/Users/Users.js"
import { ticketLifecycle } from "../test/eventstore/ticketWorkload.js"
import { decideInOrder, loadAverage, migratedPool, runOnOwnDatabase, ticketAppend } from "./BenchDatabase.js"
import { type Benchmark, describeTiming, machine, ratio, timed } from "./Benchmark.js"

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/postgres"
/** Tickets per organization; two organizations, their tickets written alternately. */
const TICKETS = Number(process.env.BENCH_FEED_TICKETS ?? 2000)
const PAGE = 500
const ROUNDS = 5

/** A ticket's whole lifecycle (the workload of the store's tests) as new events of organization `organizationId`. */
const lifecycleEvents = (ticketId: number, organizationId: OrganizationId): ReadonlyArray<NewEvent> =>
  decideInOrder(ticketLifecycle(ticketId, String(organizationId))).events

/** The rows the feed reads, read the plainest way: `pg` alone, the same statement, no rendering. */
const BARE_SQL = `
  SELECT global_position, transaction_id, stream_id, stream_position, event_id, event_type, schema_version, data,
    metadata, created_at
  FROM hd_events
  WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
    AND (transaction_id, global_position) > ($2::xid8, $3::bigint) AND organization_id = $1
  ORDER BY transaction_id, global_position
  LIMIT ${PAGE}`

const bareReadAll = (client: pg.Client, organizationId: OrganizationId) =>
  Effect.promise(async () => {
    let tx = "0"
    let position = "0"
    let count = 0
    while (true) {
      const result = await client.query(BARE_SQL, [organizationId, tx, position])
      if (result.rows.length === 0) return count
      count += result.rows.length
      const last = result.rows[result.rows.length - 1]
      tx = last.transaction_id
      position = last.global_position
    }
  })

const serviceReadAll = (organizationId: OrganizationId) =>
  Effect.gen(function* () {
    const feed = yield* EventFeed
    let after = GlobalCheckpointStart
    let count = 0
    while (true) {
      const page = yield* feed.page({
        organizationId,
        after,
        limit: PAGE,
        wait: Duration.zero,
        visibility: { internalNotes: true }
      })
      if (page.events.length === 0) return count
      count += page.events.length
      after = page.checkpoint
    }
  })

const httpReadAll = (baseUrl: string, token: string) =>
  Effect.promise(async () => {
    let after = encodeCursor(GlobalCheckpointStart)
    let count = 0
    while (true) {
      const response = await fetch(`${baseUrl}?after=${after}&page_size=${PAGE}`, {
        headers: { "x-service-token": token }
      })
      const body = (await response.json()) as { cursor: string; results: ReadonlyArray<unknown> }
      if (body.results.length === 0) return count
      count += body.results.length
      after = body.cursor
    }
  })

/** The whole server (HTTP on a free port, services, migrated pool) on the run's database. */
const serverOn = (url: string) =>
  Layer.build(
    HttpAppLive().pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
      Layer.provideMerge(ServicesLive),
      Layer.provideMerge(migratedPool(url, 8))
    )
  )

const run = runOnOwnDatabase("feed", DEFAULT_URL, serverOn, ({ database, url, context }) =>
  Effect.gen(function* () {
    const store = yield* Layer.build(
      PostgresEventStoreLive.pipe(
        Layer.provide(InlineProjections.layer([])),
        Layer.provide(Layer.succeedContext(context))
      )
    )
    const feedContext = yield* Layer.build(
      EventFeed.Default.pipe(Layer.provide(Layer.succeedContext(store)), Layer.provide(Layer.succeedContext(context)))
    )
    const server = yield* HttpServer.HttpServer
    const port = server.address._tag === "TcpAddress" ? server.address.port : 0
    const owner = yield* (yield* Users).ensure("bench-owner@example.com", "Bench Owner")
    const organizations = yield* Organizations
    const ours = yield* organizations.create({ name: "Bench", createdBy: owner.id })
    const theirs = yield* organizations.create({ name: "Other", createdBy: owner.id })
    const token = (yield* (yield* Tokens).issuePersonal(owner.id)).token
    const feedUrl = `http://127.0.0.1:${port}/organizations/${ours.publicId}/events/`

    yield* Console.log(`machine:            ${machine()}`)
    yield* Console.log(`database:           ${database} (created for this run, dropped after)`)
    yield* Console.log(`load average:       ${loadAverage()} (other work on this machine skews every figure)`)

    // Two organizations' tickets, written alternately, one append per ticket: the feed of one skips the other's.
    const eventStore = yield* Effect.provide(EventStore, store)
    let ourEvents = 0
    for (let i = 1; i <= TICKETS; i++) {
      for (const [organizationId, ticketId] of [
        [ours.id, 2 * i],
        [theirs.id, 2 * i + 1]
      ] as const) {
        const events = lifecycleEvents(ticketId, organizationId)
        if (organizationId === ours.id) ourEvents += events.length
        yield* eventStore.append([ticketAppend(ticketId, events)])
      }
    }
    yield* Console.log(
      `log:                ${ourEvents.toLocaleString("en-US")} events of the organization read, as many of another interleaved (${TICKETS} tickets each, ${PAGE} per page)\n`
    )

    const client = new pg.Client({ connectionString: url })
    yield* Effect.promise(() => client.connect())
    yield* Effect.addFinalizer(() => Effect.promise(() => client.end()))
    const check = (label: string, count: number) =>
      count === ourEvents ? Effect.void : Effect.dieMessage(`${label} read ${count} events, expected ${ourEvents}`)

    // The log shows only what no running transaction can precede, server-wide: wait for others' to end.
    const deadline = Date.now() + 120_000
    while ((yield* bareReadAll(client, ours.id)) < ourEvents && Date.now() < deadline) yield* Effect.sleep("50 millis")
    // Warm-up: plans, caches, JIT.
    yield* Effect.flatMap(bareReadAll(client, ours.id), (n) => check("bare", n))
    yield* Effect.flatMap(serviceReadAll(ours.id), (n) => check("service", n)).pipe(Effect.provide(feedContext))
    yield* Effect.flatMap(httpReadAll(feedUrl, token), (n) => check("http", n))

    // Side by side, round after round, so load from elsewhere falls on each alike.
    const bare = yield* timed(ROUNDS, 1, () => bareReadAll(client, ours.id))
    const service = yield* timed(ROUNDS, 1, () => serviceReadAll(ours.id)).pipe(Effect.provide(feedContext))
    const http = yield* timed(ROUNDS, 1, () => httpReadAll(feedUrl, token))
    yield* Console.log(describeTiming("baseline: the same rows, bare `pg` query", bare, ourEvents))
    yield* Console.log(
      `${describeTiming("feed service (EventFeed.page: read + wire form + cursors)", service, ourEvents)}   ${ratio(service, bare)}`
    )
    yield* Console.log(
      `${describeTiming("feed over HTTP (GET events/, auth, JSON both ways)", http, ourEvents)}   ${ratio(http, bare)}`
    )
    yield* Console.log("(p50/p99: one whole read of the organization's log)")
    return undefined
  })
)

/** The change feed's read throughput beside the same rows read bare. */
export const eventFeedBenchmark: Benchmark = {
  name: "feed",
  description: "change feed read throughput (events/s): bare rows, the feed service, the feed over HTTP",
  run
}
