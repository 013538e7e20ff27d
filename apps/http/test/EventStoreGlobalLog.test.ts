import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { EventStore, ExpectedVersion, GlobalCheckpointStart, type NewEvent, type RecordedEvent } from "@helpdesk/domain"
import { Effect, Exit } from "effect"
import { checkpointOf, positionOf } from "../src/EventStore/Checkpoint.js"
import {
  CheckpointConflict,
  type Consumer,
  catchUp,
  loadCheckpoint,
  processNextBatch,
  storeCheckpoint
} from "../src/EventStore/Consumer.js"
import * as Fixtures from "./eventstore/fixtures.js"
import { usesRealPostgres } from "./support/TestDatabase.js"

/** Everything the global log holds after `from`, read in batches of `limit`. */
const readEverything = (limit: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    yield* Fixtures.settled
    const events: Array<RecordedEvent> = []
    let checkpoint = GlobalCheckpointStart
    while (true) {
      const batch = yield* store.readAll(checkpoint, limit)
      if (batch.events.length === 0) return { events, checkpoint }
      events.push(...batch.events)
      checkpoint = batch.checkpoint
    }
  })

/** Appends `events` as a new stream, then waits until the global log shows them (see `settled`). */
const appendSettled = (events: ReadonlyArray<NewEvent>) =>
  Effect.flatMap(EventStore, (store) =>
    store.append([Fixtures.appendTo(Fixtures.freshStream(), ExpectedVersion.noStream, events)])
  ).pipe(Effect.zipRight(Fixtures.settled))

/** A consumer that records each event id it handles in its own table (created on first use). */
const recordingConsumer = (consumerId: string, batchSize = 100): Consumer<never, SqlClient.SqlClient> => ({
  consumerId,
  batchSize,
  handle: (events) =>
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql`INSERT INTO test_seen ${sql.insert(events.map((e) => ({ consumerId, eventId: e.eventId })))}`
    ).pipe(Effect.orDie)
})

const seenBy = (consumerId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ eventId: string }>`SELECT event_id FROM test_seen WHERE consumer_id = ${consumerId} ORDER BY seq`
  ).pipe(Effect.map(Fixtures.idsOf), Effect.orDie)

const createSeenTable = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE IF NOT EXISTS test_seen (
      seq bigserial PRIMARY KEY, consumer_id text NOT NULL, event_id text NOT NULL, UNIQUE (consumer_id, event_id)
    )`
).pipe(Effect.orDie)

describe("global log", () => {
  layer(Fixtures.eventStoreOnFreshDatabase(), { timeout: Fixtures.databaseStartup })((it) => {
    it.effect("readAll pages through every committed event in (transaction, position) order", () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const before = yield* readEverything(1000)
        const a = Fixtures.freshStream()
        const b = Fixtures.freshStream()
        const appended: Array<NewEvent> = []
        for (let i = 0; i < 4; i++) {
          const events = Fixtures.newEvents(3)
          appended.push(...events)
          yield* store.append([Fixtures.appendTo(i % 2 === 0 ? a : b, ExpectedVersion.any, events)])
        }
        const both = [Fixtures.newEvent(), Fixtures.newEvent()]
        appended.push(...both)
        yield* store.append([
          Fixtures.appendTo(a, ExpectedVersion.any, [both[0]!]),
          Fixtures.appendTo(b, ExpectedVersion.any, [both[1]!])
        ])

        yield* Fixtures.settled
        let checkpoint = before.checkpoint
        const read: Array<RecordedEvent> = []
        for (let page = 0; page < 10; page++) {
          const batch = yield* store.readAll(checkpoint, 5)
          expect(batch.events.length).toBeLessThanOrEqual(5)
          read.push(...batch.events)
          checkpoint = batch.checkpoint
        }
        expect(new Set(Fixtures.idsOf(read))).toEqual(new Set(Fixtures.idsOf(appended)))
        const keys = read.map((e) => {
          const { transactionId, globalPosition } = positionOf(e.checkpoint)
          expect(globalPosition).toBe(e.globalPosition)
          return [transactionId, globalPosition] as const
        })
        const sorted = [...keys].sort(([t1, p1], [t2, p2]) => (t1 === t2 ? Number(p1 - p2) : Number(t1 - t2)))
        expect(keys).toEqual(sorted)
        const last = read[read.length - 1]!
        expect(checkpoint).toEqual(last.checkpoint)
        expect(yield* store.readAll(checkpoint, 5)).toEqual({ events: [], checkpoint })
        expect((yield* store.readAll(checkpoint, 0)).events).toEqual([])
      })
    )

    it.effect("a rolled-back append leaves nothing in the log", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* EventStore
        const start = (yield* readEverything(1000)).checkpoint
        const lost = Fixtures.newEvent()
        const exit = yield* Effect.exit(
          sql.withTransaction(
            Effect.zipRight(
              store.append([Fixtures.appendTo(Fixtures.freshStream(), ExpectedVersion.noStream, [lost])]),
              Effect.fail("rolled back" as const)
            )
          )
        )
        expect(Exit.isFailure(exit)).toBe(true)
        const kept = Fixtures.newEvent()
        yield* appendSettled([kept])
        expect(Fixtures.idsOf((yield* store.readAll(start, 100)).events)).toEqual([kept.eventId])
      })
    )

    describe("consumers", () => {
      it.effect("catchUp hands every event to the consumer exactly once, batch by batch, and resumes after", () =>
        Effect.gen(function* () {
          yield* createSeenTable
          const everything = yield* readEverything(1000)
          const consumer = recordingConsumer("c-once", 3)
          expect(yield* catchUp(consumer)).toBe(everything.events.length)
          expect(yield* seenBy("c-once")).toEqual(Fixtures.idsOf(everything.events))
          expect(yield* loadCheckpoint("c-once")).toEqual(everything.checkpoint)

          const more = Fixtures.newEvents(4)
          yield* appendSettled(more)
          expect(yield* catchUp(consumer)).toBe(4)
          expect(yield* catchUp(consumer)).toBe(0)
          expect((yield* seenBy("c-once")).slice(-4)).toEqual(Fixtures.idsOf(more))
        })
      )

      it.effect("a failing handler rolls back its writes and leaves the checkpoint where it was", () =>
        Effect.gen(function* () {
          yield* createSeenTable
          yield* appendSettled(Fixtures.newEvents(2))
          const failing: Consumer<string, SqlClient.SqlClient> = {
            consumerId: "c-failing",
            handle: (events) =>
              Effect.zipRight(recordingConsumer("c-failing").handle(events), Effect.fail("handler failed"))
          }
          expect(yield* Effect.flip(processNextBatch(failing))).toBe("handler failed")
          expect(yield* seenBy("c-failing")).toEqual([])
          expect(yield* loadCheckpoint("c-failing")).toEqual(GlobalCheckpointStart)
        })
      )

      it.effect("storing a checkpoint from a position it has left is a conflict", () =>
        Effect.gen(function* () {
          const first = checkpointOf({ transactionId: 10n, globalPosition: 5n })
          const second = checkpointOf({ transactionId: 11n, globalPosition: 9n })
          yield* storeCheckpoint("c-cas", GlobalCheckpointStart, first)
          yield* storeCheckpoint("c-cas", first, second)
          const stale = yield* Effect.flip(
            storeCheckpoint("c-cas", first, checkpointOf({ transactionId: 12n, globalPosition: 1n }))
          )
          expect(stale).toEqual(new CheckpointConflict({ consumerId: "c-cas" }))
          const again = yield* Effect.flip(storeCheckpoint("c-cas", GlobalCheckpointStart, first))
          expect(again).toBeInstanceOf(CheckpointConflict)
          const missing = yield* Effect.flip(storeCheckpoint("c-none", first, second))
          expect(missing).toBeInstanceOf(CheckpointConflict)
          expect(yield* loadCheckpoint("c-cas")).toEqual(second)
          expect(yield* loadCheckpoint("c-none")).toEqual(GlobalCheckpointStart)
        })
      )
    })
  })
})

// PGlite serves one session: a second transaction cannot run while the first is open.
describe.runIf(usesRealPostgres)("global log with transactions committing out of order", () => {
  layer(Fixtures.eventStoreOnFreshDatabase(), { timeout: Fixtures.databaseStartup })((it) => {
    // Fresh events each time: an event id is stored once.
    const interleave = Effect.suspend(() => Fixtures.interleaved(Fixtures.newEvent("A"), Fixtures.newEvent("B")))

    it.effect("a reader does not return B's event until A commits, then returns A's before B's", () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const start = (yield* readEverything(1000)).checkpoint
        const { eventA, eventB, finish } = yield* interleave
        const sql = yield* SqlClient.SqlClient
        // The hazard: a reader by position alone sees B, and would move past A's smaller position.
        const byPosition = yield* sql<{ eventId: string }>`SELECT event_id FROM hd_events WHERE global_position > 0`
        expect(Fixtures.idsOf(byPosition)).toContain(eventB.eventId)

        const whileAOpen = yield* store.readAll(start, 100)
        expect(whileAOpen).toEqual({ events: [], checkpoint: start })

        expect(Exit.isSuccess(yield* finish(true))).toBe(true)
        yield* Fixtures.settled
        const afterCommit = yield* store.readAll(start, 100)
        expect(Fixtures.idsOf(afterCommit.events)).toEqual([eventA.eventId, eventB.eventId])
      })
    )

    it.effect("a reader does not return B's event until A rolls back, then returns B's alone", () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const start = (yield* readEverything(1000)).checkpoint
        const { eventB, finish } = yield* interleave
        expect((yield* store.readAll(start, 100)).events).toEqual([])
        expect(Exit.isFailure(yield* finish(false))).toBe(true)
        yield* Fixtures.settled
        expect(Fixtures.idsOf((yield* store.readAll(start, 100)).events)).toEqual([eventB.eventId])
      })
    )

    it.effect("a consumer polling throughout handles both events exactly once, in commit-safe order", () =>
      Effect.gen(function* () {
        yield* createSeenTable
        const consumer = recordingConsumer("c-race")
        yield* catchUp(consumer)
        const { eventA, eventB, finish } = yield* interleave
        expect(yield* catchUp(consumer)).toBe(0)
        yield* finish(true)
        yield* Fixtures.settled
        expect(yield* catchUp(consumer)).toBe(2)
        expect((yield* seenBy("c-race")).slice(-2)).toEqual([eventA.eventId, eventB.eventId])
      })
    )

    it.effect("two instances of one consumer never both store the same batch", () =>
      Effect.gen(function* () {
        yield* createSeenTable
        yield* appendSettled(Fixtures.newEvents(30))
        const consumer = recordingConsumer("c-replicas", 5)
        const [one, two] = yield* Effect.all([catchUp(consumer), catchUp(consumer)], { concurrency: 2 })
        const rest = yield* catchUp(consumer)
        const everything = yield* readEverything(1000)
        expect(one + two + rest).toBe(everything.events.length)
        expect(yield* seenBy("c-replicas")).toEqual(Fixtures.idsOf(everything.events))
      })
    )
  })
})
