import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { EventStore, ExpectedVersion, type NewEvent, type StreamAppend } from "@helpdesk/domain"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { type InlineProjection, InlineProjections } from "../../src/EventStore/InlineProjection.js"
import { PostgresEventStoreLive } from "../../src/EventStore/PostgresEventStore.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** How long a fresh database may take to start and migrate (an in-memory PGlite on a busy machine is slow). */
export const databaseStartup = "3 minutes"

/** A new event with a fresh id. */
export const newEvent = (type = "Noted", data: unknown = { n: 1 }): NewEvent => ({
  eventId: randomUUID(),
  type,
  schemaVersion: 1,
  data
})

/** `count` new events numbered from 1 in their data. */
export const newEvents = (count: number, type = "Noted"): ReadonlyArray<NewEvent> =>
  Array.from({ length: count }, (_, i) => newEvent(type, { n: i + 1 }))

/** One stream's part of an append. */
export const appendTo = (
  streamId: string,
  expected: ExpectedVersion,
  events: ReadonlyArray<NewEvent>,
  close?: boolean
): StreamAppend => ({
  streamId,
  streamType: "test",
  expected,
  events,
  ...(close === undefined ? {} : { close })
})

/** A stream id no other test uses. */
export const freshStream = (prefix = "s") => `${prefix}-${randomUUID()}`

/** The ids of events, in order (what tests compare a read against). */
export const idsOf = (events: ReadonlyArray<{ readonly eventId: string }>) => events.map((e) => e.eventId)

/** The store (port and service) on a fresh migrated database, with these inline projections. */
export const eventStoreOnFreshDatabase = (projections: ReadonlyArray<InlineProjection> = []) =>
  PostgresEventStoreLive.pipe(Layer.provide(InlineProjections.layer(projections)), Layer.provideMerge(TestDatabaseLive))

/**
 * Waits until every transaction that was running anywhere on the server when it was called has ended. The global
 * log shows only events below the oldest running transaction id, server-wide, and other test files share the server.
 * (Real time: a test's clock is a TestClock that never moves by itself.)
 */
export const settled = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [{ horizon }] = yield* sql<{ readonly horizon: string }>`
    SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS horizon`
  const deadline = Date.now() + 60_000
  while (true) {
    const [{ passed }] = yield* sql<{ readonly passed: boolean }>`
      SELECT pg_snapshot_xmin(pg_current_snapshot()) >= ${horizon}::xid8 AS passed`
    if (passed) return
    if (Date.now() > deadline) return yield* Effect.die(new Error("a transaction stayed open for 60 s"))
    yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
  }
}).pipe(Effect.orDie)

/**
 * Transaction A takes its transaction id first and appends `eventA`; B appends `eventB` later (a higher id and
 * position) and commits while A is still open. Answers once B has committed, with `finish(commit)` ending A (commit
 * or roll back) and answering how A's transaction exited. Real PostgreSQL only: PGlite runs one session.
 */
export const interleaved = (eventA: NewEvent, eventB: NewEvent) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* EventStore
    const aAppended = yield* Deferred.make<void>()
    const finishA = yield* Deferred.make<boolean>()
    const txA = yield* Effect.fork(
      sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_current_xact_id()`
          yield* store.append([appendTo(freshStream("a"), ExpectedVersion.noStream, [eventA])])
          yield* Deferred.succeed(aAppended, undefined)
          if (!(yield* Deferred.await(finishA))) return yield* Effect.fail("rolled back" as const)
        })
      )
    )
    yield* Deferred.await(aAppended)
    yield* store.append([appendTo(freshStream("b"), ExpectedVersion.noStream, [eventB])])
    const finish = (commit: boolean) => Effect.zipRight(Deferred.succeed(finishA, commit), Effect.exit(Fiber.join(txA)))
    return { eventA, eventB, finish }
  })
