import { describe, expect, layer } from "@effect/vitest"
import {
  type Actor,
  AddMessage,
  defaultConflictRetry,
  EventStore,
  executeTicketCommand,
  provideTicketStoreFromEventStore,
  runTicketCommands,
  StreamVersionConflict,
  TicketStore,
  ticketStreamId
} from "@helpdesk/domain"
import { Chunk, Context, DateTime, Duration, Effect, Layer, Schedule } from "effect"
import { InlineProjections } from "../src/EventStore/InlineProjection.js"
import { PostgresEventStoreLive } from "../src/EventStore/PostgresEventStore.js"
import { ticketProjection } from "../src/Tickets/ReadModel/TicketProjection.js"
import { PostgresTicketStore, PostgresTicketStoreLive } from "../src/Tickets/Store/PostgresTicketStore.js"
import { databaseStartup } from "./eventstore/fixtures.js"
import { ticketLifecycle } from "./eventstore/ticketWorkload.js"
import { testDatabaseLive, usesRealPostgres } from "./support/TestDatabase.js"

/**
 * The one command pipeline (`runTicketCommands`, decision 0305) under concurrency, on both ticket stores: the
 * `EventStore` port alone (optimistic: a lost race starts over from a fresh load) and the service's
 * `PostgresTicketStore` (a decision on the fold in memory, proved by the append; after a lost race, the stream row
 * locked at load: writers queue).
 */

// As the service runs: one connection to PGlite (its one session serves one transaction at a time).
const projectionsLive = InlineProjections.layer([ticketProjection])
const StoresLive = PostgresTicketStoreLive.pipe(
  Layer.provideMerge(PostgresEventStoreLive),
  Layer.provide(projectionsLive),
  Layer.provideMerge(testDatabaseLive(usesRealPostgres ? 20 : 1))
)

const associate: Actor = { role: "associate", user: null }
let nextTicket = Math.floor(Math.random() * 1_000_000) * 10

/** A new ticket (created through the port), and its id. */
const newTicket = Effect.suspend(() => {
  const ticketId = ++nextTicket
  return Effect.as(executeTicketCommand(ticketLifecycle(ticketId)[0]!), ticketId)
})

/** A reply by `writer` (its message id is the writer's number, so each reply can be told apart). */
const reply = (ticketId: number, writer: number) =>
  Effect.map(
    DateTime.now,
    (at) =>
      new AddMessage({
        ticketId,
        at,
        actor: associate,
        messageId: ticketId * 1000 + writer,
        content: `Reply ${writer}`,
        contentHtml: "",
        isVisibleToCustomer: false,
        sendsEmail: false
      })
  )

/** One reply through the pipeline, answering the version it was decided on. */
const writeOne = (ticketId: number, writer: number, retry: Schedule.Schedule<unknown, unknown>) =>
  runTicketCommands({
    ticketId,
    retry,
    plan: ({ version }) => Effect.map(reply(ticketId, writer), (command) => ({ commands: [command], result: version }))
  })

const repliesOf = (ticketId: number) =>
  Effect.map(
    Effect.flatMap(EventStore, (store) => store.readStream(ticketStreamId(ticketId))),
    (events) =>
      events
        .filter((e) => e.type === "MessageAdded")
        .map((e) => ({
          position: e.streamPosition,
          writer: (e.data as { message: { id: number } }).message.id - ticketId * 1000
        }))
  )

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

/**
 * 50 replies at once to `ticketId` through the pipeline with its default retry, writer `n`'s run through `on(n, …)`
 * (e.g. another replica's store): each decided on the version just before its own event. Answers how many times each
 * writer's plan ran.
 */
const fiftyCountedReplies = (
  ticketId: number,
  on: <A, E>(writer: number, write: Effect.Effect<A, E, TicketStore>) => Effect.Effect<A, E, TicketStore>
) =>
  Effect.gen(function* () {
    const plans = range(50).map(() => 0)
    const answers = yield* Effect.forEach(
      range(50),
      (writer) =>
        on(
          writer,
          runTicketCommands({
            ticketId,
            plan: ({ version }) => {
              plans[writer]! += 1
              return Effect.map(reply(ticketId, writer), (command) => ({ commands: [command], result: version }))
            }
          })
        ),
      { concurrency: "unbounded" }
    )
    for (const answer of answers) expect(answer.version).toBe(answer.result + 1)
    expect(new Set(answers.map((a) => a.version)).size).toBe(50)
    return plans
  })

/**
 * 50 replies at once to a new ticket, writer `n` by `write(ticketId, n)`: every one is stored, and each writer decided
 * on the version just before its own event. Answers the writers' answers.
 */
const fiftyConcurrentReplies = <E, R>(
  write: (
    ticketId: number,
    writer: number
  ) => Effect.Effect<{ readonly version: number; readonly result: number }, E, R>
) =>
  Effect.gen(function* () {
    const ticketId = yield* newTicket
    const answers = yield* Effect.forEach(range(50), (writer) => write(ticketId, writer), { concurrency: "unbounded" })
    const stored = yield* repliesOf(ticketId)
    expect(stored.map((e) => e.writer).sort((a, b) => a - b)).toEqual(range(50))
    for (const answer of answers) expect(answer.version).toBe(answer.result + 1)
    return answers
  })

describe("the command pipeline under concurrency", () => {
  // Real clock: retries sleep between attempts.
  layer(StoresLive, { excludeTestServices: true, timeout: databaseStartup })((it) => {
    it.effect(
      "given 50 concurrent replies on the service's ticket store, then each loses at most one race (deciding on the " +
        "fold in memory) and then queues on the stream's lock; nothing is lost",
      () =>
        Effect.gen(function* () {
          // The ticket in this store's memory first, so the writers start from it rather than from the lock.
          const ticketId = yield* newTicket
          yield* writeOne(ticketId, 50, Schedule.stop)
          const plans = yield* fiftyCountedReplies(ticketId, (_, write) => write)
          expect((yield* repliesOf(ticketId)).map((e) => e.writer).sort((a, b) => a - b)).toEqual([...range(50), 50])
          expect(Math.max(...plans)).toBeLessThanOrEqual(2)
          // One connection (PGlite) runs one write at a time: none can lose.
          if (!usesRealPostgres) expect(Math.max(...plans)).toBe(1)
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "given two replicas holding the ticket in memory and 50 writers at once, half on each, then nothing is lost " +
        "and each writer loses at most one race",
      () =>
        Effect.gen(function* () {
          const ticketId = yield* newTicket
          const there = TicketStore.of(
            yield* Effect.map(
              Layer.build(Layer.fresh(PostgresTicketStore.Default).pipe(Layer.provide(projectionsLive))),
              Context.get(PostgresTicketStore)
            )
          )
          // Both replicas fold the ticket; this one's fold is then one write behind the other's.
          yield* writeOne(ticketId, 50, Schedule.stop)
          yield* writeOne(ticketId, 51, Schedule.stop).pipe(Effect.provideService(TicketStore, there))
          const plans = yield* fiftyCountedReplies(ticketId, (writer, write) =>
            writer % 2 === 0 ? write : Effect.provideService(write, TicketStore, there)
          )
          expect((yield* repliesOf(ticketId)).map((e) => e.writer).sort((a, b) => a - b)).toEqual(range(52))
          expect(Math.max(...plans)).toBeLessThanOrEqual(2)
        }).pipe(Effect.scoped),
      { timeout: 60_000 }
    )

    it.effect(
      "given 50 concurrent replies on the port alone (optimistic), retrying until they win, then nothing is lost " +
        "and each decided on the version it appended after",
      () =>
        Effect.gen(function* () {
          const untilTheyWin = Schedule.spaced("2 millis").pipe(
            Schedule.jittered,
            Schedule.intersect(Schedule.recurs(500))
          )
          yield* fiftyConcurrentReplies((ticketId, writer) =>
            writeOne(ticketId, writer, untilTheyWin).pipe(provideTicketStoreFromEventStore)
          )
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "given a stream that always moves on (optimistic), then the command is tried 1 + retries times and fails " +
        "with the typed conflict",
      () =>
        Effect.gen(function* () {
          const ticketId = yield* newTicket
          let attempts = 0
          const error = yield* runTicketCommands({
            ticketId,
            retry: Schedule.recurs(3),
            plan: () =>
              Effect.gen(function* () {
                attempts += 1
                // A rival write lands between this load and this append, every time.
                yield* executeTicketCommand(yield* reply(ticketId, 500 + attempts))
                return { commands: [yield* reply(ticketId, attempts)], result: undefined }
              })
          }).pipe(provideTicketStoreFromEventStore, Effect.flip)
          expect(error).toBeInstanceOf(StreamVersionConflict)
          expect(attempts).toBe(4)
          expect((yield* repliesOf(ticketId)).map((e) => e.writer)).toEqual([501, 502, 503, 504])
        })
    )

    it.effect(
      "the default retry waits 5 ms growing ×1.5 (capped at 200 ms, each jittered by at most 20%), 12 times",
      () =>
        Effect.gen(function* () {
          const delays = yield* Schedule.run(Schedule.delays(defaultConflictRetry), 0, range(20))
          const millis = Chunk.toReadonlyArray(delays).map(Duration.toMillis)
          expect(millis.length).toBe(13)
          millis.slice(0, 12).forEach((ms, i) => {
            const nominal = Math.min(5 * 1.5 ** i, 200)
            expect(ms).toBeGreaterThanOrEqual(0.8 * nominal)
            expect(ms).toBeLessThanOrEqual(1.2 * nominal)
          })
        })
    )

    it.effect("given a plan with no commands, then nothing is appended and the plan's result is returned", () =>
      Effect.gen(function* () {
        const ticketId = yield* newTicket
        const outcome = yield* runTicketCommands({
          ticketId,
          plan: ({ version }) => Effect.succeed({ commands: [], result: `at ${version}` })
        })
        expect([outcome.append, outcome.events, outcome.result]).toEqual([null, [], `at ${outcome.version}`])
      })
    )

    it.effect("given a domain refusal, then it is not retried, rolls back, and surfaces as is", () =>
      Effect.gen(function* () {
        let attempts = 0
        const missing = ++nextTicket
        const error = yield* runTicketCommands({
          ticketId: missing,
          plan: () => {
            attempts += 1
            return Effect.map(reply(missing, 1), (command) => ({ commands: [command], result: undefined }))
          }
        }).pipe(Effect.flip)
        expect([error._tag, attempts]).toEqual(["TicketNotFound", 1])
        const store = yield* TicketStore
        expect((yield* store.transaction(store.load(missing))).version).toBe(0)
      })
    )
  })
})
