import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import {
  type Actor,
  CreateTicket,
  type CustomerRef,
  decide,
  EventStore,
  type InboxRef,
  initialState,
  OrganizationId,
  type StreamAppend,
  type TicketCommand,
  type TicketState,
  ticketStreamId,
  toNewEvent
} from "@helpdesk/domain"
import { Console, type Context, DateTime, Effect, Either, Exit, Layer, Scope } from "effect"
import { Organizations } from "../src/Organizations/Organizations.js"
import { TicketDirectory } from "../src/Tickets/TicketDirectory.js"
import { Users } from "../src/Users/Users.js"
import { decideInOrder, loadAverage, runDatabase, ticketAppend, ticketServicesOn } from "./BenchDatabase.js"
import { machine } from "./Benchmark.js"

/*
 * What the timer benchmarks (snooze, SLA breach) share: lag figures, seeding tickets through the domain's decider
 * many streams per append, and the service's layers on a database created for the run.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"

/** Streams per seeding append. */
export const SEED_BATCH = 250

/** The `p`th percentile of ascending `sorted` values (NaN when empty). */
export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** Milliseconds as seconds with two decimals. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`

/** One line of lag figures: p50, p99, max and the count. */
export const describeLags = (label: string, lagsMs: ReadonlyArray<number>) => {
  const sorted = [...lagsMs].sort((a, b) => a - b)
  return `${label.padEnd(44)} p50 ${seconds(percentile(sorted, 50)).padStart(8)}   p99 ${seconds(percentile(sorted, 99)).padStart(8)}   max ${seconds(sorted[sorted.length - 1] ?? Number.NaN).padStart(8)}   (${sorted.length} tickets)`
}

/** The append of `command`'s events to a ticket's stream at `version` (decided on `state`). */
export const appendOf = (ticketId: number, state: TicketState, command: TicketCommand, version: number) =>
  ticketAppend(
    ticketId,
    Either.getOrThrow(decide(command, state)).map((event) => toNewEvent(event, randomUUID())),
    version
  )

/** Appends in batches of {@link SEED_BATCH} streams, one append after another. */
export const appendAll = (appends: ReadonlyArray<StreamAppend>) =>
  Effect.flatMap(EventStore, (store) =>
    Effect.forEach(
      Array.from({ length: Math.ceil(appends.length / SEED_BATCH) }, (_, i) => i),
      (i) => store.append(appends.slice(i * SEED_BATCH, (i + 1) * SEED_BATCH)),
      { discard: true }
    )
  )

/**
 * Decides `commandOf(id, i)` on each of `tickets` and appends them all at stream `version`, {@link SEED_BATCH} streams
 * per append; answers the tickets' states after.
 */
export const seedCommands = (
  tickets: Seeded,
  version: number,
  commandOf: (ticketId: number, i: number) => TicketCommand
) =>
  Effect.suspend(() => {
    const decided = tickets.map(({ id, state }, i) => ({ id, ...decideInOrder([commandOf(id, i)], state) }))
    return Effect.as(
      appendAll(decided.map(({ id, events }) => ticketAppend(id, events, version))),
      decided.map(({ id, state }): Seeded[number] => ({ id, state }))
    )
  })

const benchCustomer: CustomerRef = {
  id: 1,
  name: "Bench customer",
  email: "customer@example.com",
  isSpam: false,
  company: null,
  isCompanyManager: false
}

/** Where seeded tickets go, and who opens them. */
export interface SeedTarget {
  readonly organizationId: OrganizationId
  readonly inbox: InboxRef
  readonly actor: Actor
  readonly subject: string
}

/** A new organization `name` owned by `ownerEmail`: where its tickets go (its default inbox), opened by an associate. */
export const seedTarget = (ownerEmail: string, name: string, subject: string) =>
  Effect.gen(function* () {
    const owner = yield* (yield* Users).ensure(ownerEmail, "Bench")
    const organization = yield* (yield* Organizations).create({ name, createdBy: owner.id })
    const inbox = yield* (yield* TicketDirectory).defaultInbox(organization.id)
    const actor: Actor = { role: "associate", user: null }
    return { organizationId: organization.id, inbox, actor, subject } satisfies SeedTarget
  })

/** Seeded tickets: their ids and states. */
export type Seeded = ReadonlyArray<{ readonly id: number; readonly state: TicketState }>

/**
 * A timer's ceiling: `commandOf(id, at)`'s events for `tickets` (at stream `version`), decided in memory and appended
 * directly, `batch` streams per append (one commit each), one append after another, each batch at its own instant.
 */
export const appendDirectly = (
  tickets: Seeded,
  batch: number,
  version: number,
  commandOf: (ticketId: number, at: DateTime.Utc) => TicketCommand
) =>
  Effect.gen(function* () {
    for (let i = 0; i < tickets.length; i += batch) {
      const at = yield* DateTime.now
      yield* appendAll(
        tickets.slice(i, i + batch).map(({ id, state }) => appendOf(id, state, commandOf(id, at), version))
      )
    }
  })

/** Times `write` (the direct appends of `count` events of `eventType`) and prints its rate; answers that rate. */
export const directBaseline = <E, R>(
  write: Effect.Effect<void, E, R>,
  options: { readonly eventType: string; readonly units: string; readonly batch: number; readonly count: number }
) =>
  Effect.gen(function* () {
    const start = performance.now()
    yield* write
    const elapsed = (performance.now() - start) / 1000
    const rate = options.count / elapsed
    yield* Console.log(
      `\nbaseline: the same ${options.eventType} events appended directly (${options.batch} streams per append): ${rate.toFixed(0)} ${options.units}/s (${options.count} in ${elapsed.toFixed(2)} s)`
    )
    return rate
  })

/**
 * Creates `count` tickets (an associate's, waiting on the customer), the `i`th opened at `atOf(i)`; returns their
 * ids and states after creation.
 */
export const createTickets = (target: SeedTarget, count: number, atOf: (i: number) => DateTime.Utc) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string }>`SELECT nextval('hd_ticket_id_seq') AS id FROM generate_series(1, ${count})`
    return yield* seedCommands(
      rows.map((row) => ({ id: Number(row.id), state: initialState })),
      0,
      (ticketId, i) =>
        new CreateTicket({
          ticketId,
          at: atOf(i),
          actor: target.actor,
          publicId: String(ticketId),
          organizationId: OrganizationId.make(String(target.organizationId)),
          subject: `${target.subject} ${ticketId}`,
          description: "Seeded for a benchmark.",
          inbox: target.inbox,
          channel: { type: "api", connectionId: null },
          origin: "api",
          customer: benchCustomer
        })
    )
  })

/**
 * The service's layers (ticket services, read models, migrations) built on a database created for the run (dropped
 * after), with the header every timer benchmark prints: machine, server, database, `run` line, load.
 */
export const timerBenchContext = (label: string, runLine: string) =>
  Effect.gen(function* () {
    const { database, url } = yield* runDatabase(label, DEFAULT_URL)
    const context = yield* ticketServicesOn(url, 10)
    yield* Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [settings] = yield* sql<{ version: string; synchronousCommit: string }>`
        SELECT version() AS version, current_setting('synchronous_commit') AS synchronous_commit`
      yield* Console.log(`machine:      ${machine()}`)
      yield* Console.log(`server:       ${settings!.version}, synchronous_commit=${settings!.synchronousCommit}`)
      yield* Console.log(`database:     ${database} (created for this run, dropped after)`)
      yield* Console.log(`run:          ${runLine}`)
      yield* Console.log(`load average: ${loadAverage()}`)
    }).pipe(Effect.provide(context))
    return context
  })

/** What {@link timerBenchContext} provides: the ticket services, repositories and the migrated database. */
export type TimerBenchContext = Effect.Effect.Success<ReturnType<typeof timerBenchContext>>

type TimerBenchServices = TimerBenchContext extends Context.Context<infer S> ? S : never

/** A timer benchmark's run: `body` with {@link timerBenchContext}'s services. */
export const timerBenchRun = <E, R extends TimerBenchServices | Scope.Scope>(
  label: string,
  runLine: string,
  body: Effect.Effect<void, E, R>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const context = yield* timerBenchContext(label, runLine)
      yield* body.pipe(Effect.provide(context))
    })
  )

/** Every event of `eventType` in the tickets' streams: the `at` it carries (epoch ms), by stream id. */
const eventTimes = (eventType: string, ids: ReadonlyArray<number>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ streamId: string; at: string }>`
      SELECT stream_id, data ->> 'at' AS at FROM hd_events
      WHERE event_type = ${eventType} AND stream_id = ANY(${ids.map(ticketStreamId)}::text[])`.pipe(
      Effect.map((rows) => new Map(rows.map((row) => [row.streamId, Date.parse(row.at)])))
    )
  )

/** Polls every 250 ms until `done` names every ticket; answers when each was first seen done. */
const watch = <E, R>(
  ids: ReadonlyArray<number>,
  deadline: number,
  done: (pending: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<{ readonly ticketId: string }>, E, R>
) =>
  Effect.gen(function* () {
    const seen = new Map<number, number>()
    let pending = [...ids]
    while (pending.length > 0 && Date.now() < deadline) {
      const rows = yield* done(pending)
      const now = Date.now()
      for (const row of rows) seen.set(Number(row.ticketId), now)
      pending = pending.filter((id) => !seen.has(id))
      if (pending.length > 0) yield* Effect.sleep("250 millis")
    }
    return seen
  })

/** A timer under test: the service's loop, what it writes, and how a reader sees a ticket done. */
export interface Timer<E, R, RL> {
  /** The service's loop (its requirements come from the run's services). */
  readonly loop: Layer.Layer<never, unknown, RL>
  /** The event the timer writes, and what the figures call the due instant and one write. */
  readonly eventType: string
  readonly dueName: string
  readonly unit: string
  /** Which of `pending` a reader sees done. */
  readonly done: (pending: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<{ readonly ticketId: string }>, E, R>
}

/** A timer's loop run while tickets fall due. */
export interface TimerScenario<E, R, RL> extends Timer<E, R, RL> {
  readonly label: string
  readonly ids: ReadonlyArray<number>
  /** When each ticket falls due (epoch ms). */
  readonly dues: ReadonlyArray<number>
}

/**
 * Runs the loop until every ticket is seen done (or 3 minutes past the last due instant) and prints the lags (due →
 * the event's `at`, due → seen by a poller) and the writes per second from the first due instant; answers that rate.
 */
export const timerScenario = <E, R, RL>(s: TimerScenario<E, R, RL>) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    yield* Layer.buildWithScope(s.loop, scope)
    const seen = yield* watch(s.ids, Math.max(...s.dues) + 180_000, s.done)
    yield* Scope.close(scope, Exit.void)
    const events = yield* eventTimes(s.eventType, s.ids)
    const since = (times: (id: number) => number | undefined) =>
      s.ids.flatMap((id, i) => {
        const at = times(id)
        return at === undefined ? [] : [at - s.dues[i]!]
      })
    const firstDue = Math.min(...s.dues)
    const last = Math.max(...events.values())
    const rate = events.size / ((last - firstDue) / 1000)
    yield* Console.log(`\n${s.label}`)
    yield* Console.log(
      describeLags(
        `lag: ${s.dueName} → ${s.eventType} at`,
        since((id) => events.get(ticketStreamId(id)))
      )
    )
    yield* Console.log(
      describeLags(
        `lag: ${s.dueName} → visible to a poller`,
        since((id) => seen.get(id))
      )
    )
    yield* Console.log(
      `${"throughput".padEnd(44)} ${rate.toFixed(0)} ${s.unit}s/s (first due → last ${s.unit}: ${seconds(last - firstDue)})`
    )
    if (events.size !== s.ids.length) yield* Console.log(`NOT all done: ${events.size} of ${s.ids.length}`)
    return rate
  })

/** Makes a set of tickets fall due, the `i`th at `dueOf(i)` (epoch ms); answers their ids and states. */
export type MakeDue<E, R> = (dueOf: (i: number) => number) => Effect.Effect<Seeded, E, R>

/**
 * A timer benchmark's two sets after its baseline, each falling due from a moment safely after it is made due (making
 * the first set due took `setupSeconds`): the spread set due evenly over `windowSeconds`, then the burst set all due at
 * one instant (how fast the loop works off a backlog). Runs `timer`'s scenario on each, then prints the burst's rate as a
 * share of `baseRate` and the load average after.
 */
export const spreadThenBurst = <E, R, ET, RT, RL>(options: {
  readonly tickets: number
  readonly windowSeconds: number
  readonly setupSeconds: number
  /** The instant seeding must finish before, for the warnings: the spread set's first and the burst set's. */
  readonly firstDueName: string
  readonly burstDueName: string
  readonly spread: MakeDue<E, R>
  readonly burst: MakeDue<E, R>
  readonly timer: Timer<ET, RT, RL>
  readonly baseRate: number
}) =>
  Effect.gen(function* () {
    const { tickets, windowSeconds } = options
    const firstDue = () => Date.now() + Math.ceil(options.setupSeconds * 1500) + 2000

    const spreadStart = firstDue()
    const spreadDues = Array.from(
      { length: tickets },
      (_, i) => spreadStart + Math.floor((i * windowSeconds * 1000) / tickets)
    )
    const spread = yield* options.spread((i) => spreadDues[i]!)
    if (Date.now() >= spreadStart) yield* Console.log(`warning: seeding ran past ${options.firstDueName}`)
    yield* timerScenario({
      ...options.timer,
      label: `spread: ${tickets} tickets due evenly over ${windowSeconds} s (${(tickets / windowSeconds).toFixed(0)}/s), the service's loop`,
      ids: spread.map((t) => t.id),
      dues: spreadDues
    })

    const burstAt = firstDue()
    const burst = yield* options.burst(() => burstAt)
    if (Date.now() >= burstAt) yield* Console.log(`warning: seeding ran past ${options.burstDueName}`)
    const burstRate = yield* timerScenario({
      ...options.timer,
      label: `burst: ${tickets} tickets due at the same instant, the service's loop`,
      ids: burst.map((t) => t.id),
      dues: burst.map(() => burstAt)
    })
    yield* Console.log(`${"".padEnd(44)} ${((100 * burstRate) / options.baseRate).toFixed(1)}% of the baseline's rate`)
    yield* Console.log(`\nload average after: ${loadAverage()}`)
  })
