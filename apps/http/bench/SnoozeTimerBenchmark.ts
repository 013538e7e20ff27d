import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import {
  type Actor,
  CreateTicket,
  decide,
  EventStore,
  ExpectedVersion,
  evolve,
  initialState,
  SnoozeTicket,
  SnoozeTimerElapsed,
  type StreamAppend,
  systemActor,
  type TicketCommand,
  type TicketState,
  ticketStreamId,
  ticketStreamType,
  toNewEvent
} from "@helpdesk/domain"
import { Console, DateTime, Effect, Either, Exit, Layer, Scope } from "effect"
import { Organizations } from "../src/Organizations/Organizations.js"
import { TicketDirectory } from "../src/Tickets/TicketDirectory.js"
import { SNOOZE_BATCH, SnoozeTimerLive } from "../src/Timers/SnoozeTimer.js"
import { Users } from "../src/Users/Users.js"
import { describeRun, loadAverage, runDatabase, ticketServicesOn } from "./BenchDatabase.js"
import { type Benchmark, percentile } from "./Benchmark.js"

/**
 * Snooze-timer lag: `BENCH_SNOOZE_TICKETS` (default 10,000) tickets snoozed until instants spread evenly over
 * `BENCH_SNOOZE_WINDOW` seconds (default 60), unsnoozed by the service's own loop (`SnoozeTimerLive`, at its
 * default interval unless `SNOOZE_TIMER_INTERVAL` is set) on real PostgreSQL. Lag = the `TicketUnsnoozed` event's
 * `at` (stamped by the write, just before its batch commits) − the ticket's `snoozed_until`; "visible" = when a
 * reader polling `hd_tickets` every 250 ms first saw the ticket unsnoozed. A second set all due at one instant
 * measures how fast the loop drains a backlog. Baseline in the same run: the same `SnoozeTimerElapsed` writes
 * issued directly in a tight loop (the timer's own write path, batches of the same size, no claiming query, no
 * waiting for a round): the ceiling of the timer.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const TICKETS = Number(process.env.BENCH_SNOOZE_TICKETS ?? 10_000)
const WINDOW_SECONDS = Number(process.env.BENCH_SNOOZE_WINDOW ?? 60)
const SEED_BATCH = 250

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

const describeLags = (label: string, lagsMs: ReadonlyArray<number>) => {
  const sorted = [...lagsMs].sort((a, b) => a - b)
  return `${label.padEnd(44)} p50 ${seconds(percentile(sorted, 50, Number.NaN)).padStart(8)}   p99 ${seconds(percentile(sorted, 99, Number.NaN)).padStart(8)}   max ${seconds(sorted[sorted.length - 1] ?? Number.NaN).padStart(8)}   (${sorted.length} tickets)`
}

/** Tickets in one organization, created (and snoozed) through the domain's decider, many streams per append. */
const seeder = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const store = yield* EventStore
  const owner = yield* (yield* Users).ensure("bench-snooze@example.com", "Bench")
  const organization = yield* (yield* Organizations).create({ name: "Snooze bench", createdBy: owner.id })
  const inbox = yield* (yield* TicketDirectory).defaultInbox(organization.id)
  const actor: Actor = { role: "associate", user: null }
  let nextPublicId = 1

  const appendAll = (appends: ReadonlyArray<StreamAppend>) =>
    Effect.forEach(
      Array.from({ length: Math.ceil(appends.length / SEED_BATCH) }, (_, i) => i),
      (i) => store.append(appends.slice(i * SEED_BATCH, (i + 1) * SEED_BATCH)),
      { discard: true }
    )

  const appendOf = (ticketId: number, state: TicketState, command: TicketCommand, version: number) => {
    const events = Either.getOrThrow(decide(command, state))
    return {
      streamId: ticketStreamId(ticketId),
      streamType: ticketStreamType,
      expected: version === 0 ? ExpectedVersion.noStream : ExpectedVersion.exact(version),
      events: events.map((event) => toNewEvent(event, randomUUID()))
    } satisfies StreamAppend
  }

  /** Creates `count` tickets (waiting on the customer, as an associate's would); returns their ids and states. */
  const create = (count: number) =>
    Effect.gen(function* () {
      const rows = yield* sql<{
        id: string
      }>`SELECT nextval('hd_ticket_id_seq') AS id FROM generate_series(1, ${count})`
      const ids = rows.map((row) => Number(row.id))
      const at = yield* DateTime.now
      const commands = ids.map(
        (ticketId) =>
          new CreateTicket({
            ticketId,
            at,
            actor,
            publicId: String(nextPublicId++),
            organizationId: String(organization.id),
            subject: `Snoozed ticket ${ticketId}`,
            description: "Waiting until later.",
            inbox,
            channel: { type: "api", connectionId: null },
            origin: "api",
            customer: {
              id: 1,
              name: "Bench customer",
              email: "customer@example.com",
              isSpam: false,
              company: null,
              isCompanyManager: false
            }
          })
      )
      yield* appendAll(ids.map((id, i) => appendOf(id, initialState, commands[i]!, 0)))
      return ids.map((id, i) => {
        let state: TicketState = initialState
        for (const event of Either.getOrThrow(decide(commands[i]!, initialState))) state = evolve(state, event)
        return { id, state }
      })
    })

  /** Snoozes each ticket until `untilOf(i)`; returns their states after. */
  const snooze = (
    tickets: ReadonlyArray<{ readonly id: number; readonly state: TicketState }>,
    untilOf: (i: number) => number
  ) =>
    Effect.gen(function* () {
      const at = yield* DateTime.now
      const commands = tickets.map(
        ({ id }, i) => new SnoozeTicket({ ticketId: id, at, actor, until: DateTime.unsafeMake(untilOf(i)) })
      )
      yield* appendAll(tickets.map(({ id, state }, i) => appendOf(id, state, commands[i]!, 1)))
      return tickets.map(({ id, state }, i) => ({
        id,
        state: Either.getOrThrow(decide(commands[i]!, state)).reduce(evolve, state)
      }))
    })

  /**
   * The ceiling: the timer's events for snoozed `tickets` (stream version 2), decided in memory and appended
   * directly, `batch` streams per append (one commit each), one append after another.
   */
  const unsnoozeDirectly = (
    tickets: ReadonlyArray<{ readonly id: number; readonly state: TicketState }>,
    snoozedUntil: number,
    batch: number
  ) =>
    Effect.gen(function* () {
      for (let i = 0; i < tickets.length; i += batch) {
        const at = yield* DateTime.now
        yield* store.append(
          tickets.slice(i, i + batch).map(({ id, state }) =>
            appendOf(
              id,
              state,
              new SnoozeTimerElapsed({
                ticketId: id,
                at,
                actor: systemActor,
                snoozedUntil: DateTime.unsafeMake(snoozedUntil)
              }),
              2
            )
          )
        )
      }
    })

  return { organizationId: organization.id, create, snooze, unsnoozeDirectly } as const
})

/** Every `TicketUnsnoozed` of the tickets: its stream's ticket id and its `at` (epoch ms). */
const unsnoozedAt = (ids: ReadonlyArray<number>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ streamId: string; at: string }>`
      SELECT stream_id, data ->> 'at' AS at FROM hd_events
      WHERE event_type = 'TicketUnsnoozed' AND stream_id = ANY(${ids.map(ticketStreamId)}::text[])`.pipe(
      Effect.map((rows) => new Map(rows.map((row) => [row.streamId, Date.parse(row.at)])))
    )
  )

/** Polls `hd_tickets` every 250 ms until every ticket is unsnoozed; answers when each was first seen so. */
const watch = (ids: ReadonlyArray<number>, deadline: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const seen = new Map<number, number>()
    let pending = [...ids]
    while (pending.length > 0 && Date.now() < deadline) {
      const rows = yield* sql<{ ticketId: string }>`
        SELECT ticket_id FROM hd_tickets WHERE ticket_id = ANY(${pending}::bigint[]) AND snoozed_until IS NULL`
      const now = Date.now()
      for (const row of rows) seen.set(Number(row.ticketId), now)
      pending = pending.filter((id) => !seen.has(id))
      if (pending.length > 0) yield* Effect.sleep("250 millis")
    }
    return seen
  })

/** Runs the service's snooze loop while tickets `ids`, due at `untilOf`, get unsnoozed; prints the lags. */
const scenario = (
  label: string,
  ids: ReadonlyArray<number>,
  untils: ReadonlyArray<number>,
  context: Layer.Layer<EventStore | SqlClient.SqlClient>
) =>
  Effect.gen(function* () {
    const lastDue = Math.max(...untils)
    const scope = yield* Scope.make()
    yield* Layer.buildWithScope(SnoozeTimerLive.pipe(Layer.provide(context)), scope)
    const seen = yield* watch(ids, lastDue + 180_000)
    yield* Scope.close(scope, Exit.void)
    const events = yield* unsnoozedAt(ids)
    const lags = ids.flatMap((id, i) => {
      const at = events.get(ticketStreamId(id))
      return at === undefined ? [] : [at - untils[i]!]
    })
    const visible = ids.flatMap((id, i) => {
      const at = seen.get(id)
      return at === undefined ? [] : [at - untils[i]!]
    })
    const firstDue = Math.min(...untils)
    const lastUnsnooze = Math.max(...events.values())
    yield* Console.log(`\n${label}`)
    yield* Console.log(describeLags("lag: snoozed_until → TicketUnsnoozed at", lags))
    yield* Console.log(describeLags("lag: snoozed_until → visible to a poller", visible))
    yield* Console.log(
      `${"throughput".padEnd(44)} ${(events.size / ((lastUnsnooze - firstDue) / 1000)).toFixed(0)} unsnoozes/s (first due → last unsnooze: ${seconds(lastUnsnooze - firstDue)})`
    )
    if (events.size !== ids.length) yield* Console.log(`NOT all unsnoozed: ${events.size} of ${ids.length}`)
    return { lags, events }
  })

const run = Effect.scoped(
  Effect.gen(function* () {
    const { database, url } = yield* runDatabase("snooze", DEFAULT_URL)
    const context = yield* ticketServicesOn(url, 10)
    const contextLayer = Layer.succeedContext(context)

    yield* Effect.gen(function* () {
      yield* describeRun(database, 14)
      yield* Console.log(
        `run:          ${TICKETS} tickets per set, loop interval ${process.env.SNOOZE_TIMER_INTERVAL ?? "1 second (default)"}, batches of ${SNOOZE_BATCH}`
      )
      const seed = yield* seeder

      // Every ticket first (three sets), then each set's snoozes just before its scenario.
      const seedStart = performance.now()
      const baseTickets = yield* seed.create(TICKETS)
      const spreadTickets = yield* seed.create(TICKETS)
      const burstTickets = yield* seed.create(TICKETS)
      const createSeconds = (performance.now() - seedStart) / 1000
      yield* Console.log(`seeded:       ${3 * TICKETS} tickets in ${createSeconds.toFixed(1)} s`)

      // Baseline: the same events appended directly, one batch after another.
      const snoozeStart = performance.now()
      const dueAt = Date.now() + 1000
      const snoozedBase = yield* seed.snooze(baseTickets, () => dueAt)
      const snoozeSeconds = (performance.now() - snoozeStart) / 1000
      yield* Console.log(`snoozed:      ${TICKETS} tickets in ${snoozeSeconds.toFixed(1)} s`)
      yield* Effect.sleep(`${Math.max(0, dueAt - Date.now())} millis`)
      const baseStart = performance.now()
      yield* seed.unsnoozeDirectly(snoozedBase, dueAt, SNOOZE_BATCH)
      const baseSeconds = (performance.now() - baseStart) / 1000
      const baseRate = baseTickets.length / baseSeconds
      yield* Console.log(
        `\nbaseline: the same TicketUnsnoozed events appended directly (${SNOOZE_BATCH} streams per append): ${baseRate.toFixed(0)} unsnoozes/s (${baseTickets.length} in ${baseSeconds.toFixed(2)} s)`
      )

      // Each set is due from a moment safely after its snoozes are stored (snoozing the first set took snoozeSeconds).
      const firstDue = () => Date.now() + Math.ceil(snoozeSeconds * 1500) + 2000

      // Spread: due evenly over the window.
      const spreadStart = firstDue()
      const spreadUntils = spreadTickets.map((_, i) => spreadStart + Math.floor((i * WINDOW_SECONDS * 1000) / TICKETS))
      yield* seed.snooze(spreadTickets, (i) => spreadUntils[i]!)
      if (Date.now() >= spreadStart) yield* Console.log("warning: seeding ran past the first snoozed_until")
      yield* scenario(
        `spread: ${TICKETS} tickets due evenly over ${WINDOW_SECONDS} s (${(TICKETS / WINDOW_SECONDS).toFixed(0)}/s), the service's loop`,
        spreadTickets.map((t) => t.id),
        spreadUntils,
        contextLayer
      )

      // Burst: all due at one instant; how fast the loop works off a backlog.
      const burstAt = firstDue()
      yield* seed.snooze(burstTickets, () => burstAt)
      if (Date.now() >= burstAt) yield* Console.log("warning: seeding ran past snoozed_until")
      const burst = yield* scenario(
        `burst: ${TICKETS} tickets due at the same instant, the service's loop`,
        burstTickets.map((t) => t.id),
        burstTickets.map(() => burstAt),
        contextLayer
      )
      const burstRate = burst.events.size / ((Math.max(...burst.events.values()) - burstAt) / 1000)
      yield* Console.log(`${"".padEnd(44)} ${((100 * burstRate) / baseRate).toFixed(1)}% of the baseline's rate`)
      yield* Console.log(`\nload average after: ${loadAverage()}`)
    }).pipe(Effect.provide(context))
  })
)

/** Snooze-timer lag with 10,000 snoozed tickets, beside the direct writes' ceiling. */
export const snoozeTimerBenchmark: Benchmark = {
  name: "snooze-timer",
  description: "snooze-timer lag (snoozed_until → unsnooze) with 10,000 snoozed tickets, against direct writes",
  run
}
