import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import {
  AddMessage,
  EventStore,
  ExpectedVersion,
  executeMerge,
  executeTicketCommand,
  fromRecordedEvents,
  loadTicket,
  MergeTickets,
  projectMessageViews,
  projectTicketView,
  TICKET_STATE_VERSION,
  ticketStreamId
} from "@helpdesk/domain"
import { DateTime, Effect, Either, Exit } from "effect"
import { type EventRow, eventColumns, toRecordedEvent } from "../src/EventStore/EventRows.js"
import type { InlineProjection } from "../src/EventStore/InlineProjection.js"
import { PostgresEventStore } from "../src/EventStore/PostgresEventStore.js"
import { RebuildInProgress, rebuildProjections } from "../src/EventStore/Rebuild.js"
import {
  decodeStoredMessageView,
  decodeStoredTicketView,
  encodeMessageView,
  encodeTicketView
} from "../src/Tickets/ReadModel/StoredViews.js"
import { ticketProjection, ticketReplayer } from "../src/Tickets/ReadModel/TicketProjection.js"
import { PostgresTicketStore } from "../src/Tickets/Store/PostgresTicketStore.js"
import { SNAPSHOT_EVERY } from "../src/Tickets/Store/TicketSnapshot.js"
import { appendTo, databaseStartup, eventStoreOnFreshDatabase, freshStream, newEvent } from "./eventstore/fixtures.js"
import { ticketLifecycle } from "./eventstore/ticketWorkload.js"
import { toJsonValue } from "./support/Json.js"
import { usesRealPostgres } from "./support/TestDatabase.js"

/** A projection counting events per stream; a `Poison` event makes its SQL fail. */
const counts: InlineProjection = {
  name: "test-counts",
  eventTypes: ["Counted", "Poison"],
  apply: (events) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE IF NOT EXISTS test_counts (stream_id text PRIMARY KEY, count int NOT NULL)`
      for (const event of events) {
        if (event.type === "Poison") yield* sql`SELECT 1 / 0`
        yield* sql`
          INSERT INTO test_counts (stream_id, count) VALUES (${event.streamId}, 1)
          ON CONFLICT (stream_id) DO UPDATE SET count = test_counts.count + 1`
      }
    }),
  reset: Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM test_counts`).pipe(Effect.asVoid)
}

/** What the `test-reading` projection's `apply` received of its read, append after append. */
const readsSeen: Array<unknown> = []

/** A projection that reads, with the append, how many events its streams held before it. */
const reading: InlineProjection = {
  name: "test-reading",
  readWithAppend: (sql, streamIds) =>
    sql`(SELECT count(*)::int FROM hd_events WHERE stream_id = ANY(${streamIds}::text[]))`,
  apply: (_events, context) => Effect.sync(() => void readsSeen.push(context?.reads?.get("test-reading"))),
  reset: Effect.void
}

/** The streams whose events the `test-written` projection's `apply` received. */
const appliedStreams: Array<string> = []

/** A projection that writes each appended stream's event count with the append; `apply` only records what it got. */
const writtenWithAppend: InlineProjection = {
  name: "test-written",
  writeWithAppend: (sql, appends, _context, appended) => ({
    expressions: appends.map(
      (append, i) => sql`${sql(`test_written_${i}`)} AS (
        INSERT INTO test_written (stream_id, events) SELECT ${append.streamId}, ${append.events.length} WHERE ${appended}
      )`
    ),
    streamIds: new Set(appends.slice(0, 1).map((append) => append.streamId))
  }),
  apply: (events) => Effect.sync(() => void appliedStreams.push(...events.map((e) => e.streamId))),
  reset: Effect.void
}

/**
 * A projection with a replayer that records each replayed event's global position; its writes fail on a batch
 * holding a `Boom` event (which `apply` ignores, so such an event can be stored).
 */
const replayed: InlineProjection = {
  name: "test-replayed",
  eventTypes: ["Counted", "Boom"],
  apply: () => Effect.void,
  reset: Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`CREATE TABLE IF NOT EXISTS test_replayed (global_position bigint PRIMARY KEY)`,
      sql`DELETE FROM test_replayed`
    )
  ).pipe(Effect.asVoid),
  replayer: () => ({
    prepare: (events) =>
      Effect.succeed(
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`
            INSERT INTO test_replayed (global_position)
            SELECT unnest(${events.map((e) => e.globalPosition.toString())}::bigint[])`
          if (events.some((e) => e.type === "Boom")) yield* sql`SELECT 1 / 0`
        })
      )
  })
}

/** {@link replayed}, but its writes take a while, and preparing a batch holding a `Bust` event dies. */
const slowlyReplayed: InlineProjection = {
  ...replayed,
  name: "test-slowly-replayed",
  eventTypes: ["Counted", "Bust"],
  replayer: () => ({
    prepare: (events) =>
      events.some((e) => e.type === "Bust")
        ? Effect.dieMessage("cannot prepare this batch")
        : Effect.succeed(
            Effect.flatMap(
              SqlClient.SqlClient,
              (sql) => sql`
                INSERT INTO test_replayed (global_position)
                SELECT unnest(${events.map((e) => e.globalPosition.toString())}::bigint[]) FROM pg_sleep(0.2)`
            ).pipe(Effect.asVoid)
          )
  })
}

const countOf = (streamId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ count: number }>`SELECT count FROM test_counts WHERE stream_id = ${streamId}`.pipe(
      Effect.map((rows) => rows[0]?.count ?? 0)
    )
  )

/** Every row of both ticket read tables, in a stable order. */
const readModels = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tickets = yield* sql`SELECT * FROM hd_tickets ORDER BY ticket_id`
  const messages = yield* sql`SELECT * FROM hd_ticket_messages ORDER BY ticket_id, message_id`
  return { tickets, messages }
})

const ticketRow = (ticketId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Record<string, unknown>>`SELECT * FROM hd_tickets WHERE ticket_id = ${ticketId}`.pipe(Effect.map((r) => r[0]))
  )

const messageRows = (ticketId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ messageId: string; view: unknown }>`
      SELECT message_id, view FROM hd_ticket_messages WHERE ticket_id = ${ticketId} ORDER BY message_id`
  )

/** The domain's events of a ticket stream. */
const domainEvents = (ticketId: number) =>
  Effect.map(EventStore, (store) => store.readStream(ticketStreamId(ticketId))).pipe(
    Effect.flatten,
    Effect.map((recorded) => Either.getOrThrow(fromRecordedEvents(recorded)))
  )

/** The domain's own views of a ticket stream, as JSON. */
const domainViews = (ticketId: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const recorded = yield* store.readStream(ticketStreamId(ticketId))
    const events = Either.getOrThrow(fromRecordedEvents(recorded))
    const view = projectTicketView(events)
    return {
      version: recorded.length,
      ticket: view === null ? null : encodeTicketView(view),
      messages: projectMessageViews(events).map(encodeMessageView)
    }
  })

const runLifecycle = (ticketId: number, organizationId?: string) =>
  Effect.forEach(ticketLifecycle(ticketId, organizationId), (command) => executeTicketCommand(command), {
    discard: true
  })

/**
 * Every stored event in global order, read directly: the global log's reader stops below the cluster's oldest open
 * transaction, which another database's work on the same server can hold back while this test runs.
 */
const everyEvent = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<EventRow>`SELECT ${eventColumns(sql)} FROM hd_events ORDER BY global_position`
  return rows.map(toRecordedEvent)
}).pipe(Effect.orDie)

/** The projection's count for a new stream of events of `types`, read as soon as their append returns. */
const countRightAfterAppending = (types: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const id = freshStream()
    const events = types.map((type) => newEvent(type))
    yield* store.append([appendTo(id, ExpectedVersion.noStream, events)])
    return yield* countOf(id)
  })

describe("inline projections", () => {
  layer(eventStoreOnFreshDatabase([writtenWithAppend]), { timeout: databaseStartup })((it) => {
    it.effect(
      "given a projection's writes, then they are made with the append, only if it goes through, and apply skips their streams",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* PostgresEventStore
          yield* sql`CREATE TABLE IF NOT EXISTS test_written (stream_id text NOT NULL, events int NOT NULL)`
          const [written, other] = [freshStream(), freshStream()]
          appliedStreams.length = 0
          yield* store.append([
            appendTo(written, ExpectedVersion.noStream, [newEvent("Counted"), newEvent("Counted")]),
            appendTo(other, ExpectedVersion.noStream, [newEvent("Counted")])
          ])
          const rows = (stream: string) =>
            sql<{ events: number }>`SELECT events FROM test_written WHERE stream_id = ${stream}`.pipe(
              Effect.map((found) => found.map((row) => row.events))
            )
          expect([yield* rows(written), yield* rows(other)]).toEqual([[2], [1]])
          expect(appliedStreams).toEqual([other])

          // A conflicting append, in a transaction that goes on after it: its writes were not made.
          const conflict = yield* sql.withTransaction(
            Effect.gen(function* () {
              const failed = yield* Effect.flip(
                store.append([appendTo(written, ExpectedVersion.exact(5), [newEvent("Counted")])], undefined, {
                  inTransaction: true
                })
              )
              return { failed: failed._tag, rows: yield* rows(written) }
            })
          )
          expect(conflict).toEqual({ failed: "StreamVersionConflict", rows: [2] })
        })
    )
  })

  layer(eventStoreOnFreshDatabase([reading]), { timeout: databaseStartup })((it) => {
    it.effect("given a projection's read, then it comes with the append and sees the stream before it", () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const id = freshStream()
        readsSeen.length = 0
        yield* store.append([appendTo(id, ExpectedVersion.noStream, [newEvent("Counted"), newEvent("Counted")])])
        yield* store.append([appendTo(id, ExpectedVersion.exact(2), [newEvent("Counted")])])
        expect(readsSeen).toEqual([0, 2])
      })
    )
  })

  layer(eventStoreOnFreshDatabase([counts]), { timeout: databaseStartup })((it) => {
    it.effect("given an append, then the projection's rows are there when the append returns", () =>
      Effect.gen(function* () {
        expect(yield* countRightAfterAppending(["Counted", "Counted"])).toBe(2)
      })
    )

    it.effect("given events of types it does not read, then it is not called with them", () =>
      Effect.gen(function* () {
        expect(yield* countRightAfterAppending(["Counted", "Ignored"])).toBe(1)
      })
    )

    it.effect("given a projection that fails, then the append fails and stores nothing", () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const id = freshStream()
        const other = freshStream()
        const exit = yield* Effect.exit(
          store.append([
            appendTo(other, ExpectedVersion.noStream, [newEvent("Counted")]),
            appendTo(id, ExpectedVersion.noStream, [newEvent("Counted"), newEvent("Poison")])
          ])
        )
        expect(Exit.isFailure(exit) && Exit.causeOption(exit)._tag === "Some").toBe(true)
        expect(yield* store.readStream(id)).toEqual([])
        expect(yield* store.readStream(other)).toEqual([])
        expect([yield* countOf(id), yield* countOf(other)]).toEqual([0, 0])
      })
    )

    it.effect(
      "given a rebuild whose batch fails, then the batches before it stay, it rolls back and none after it runs",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* EventStore
          const events = [1, 2, 3, 4, 5].map(() => newEvent("Counted"))
          events.splice(3, 0, newEvent("Boom"))
          yield* store.append([appendTo(freshStream(), ExpectedVersion.noStream, events)])
          const log = (yield* everyEvent).filter((e) => e.type === "Counted" || e.type === "Boom")
          const failing = Math.floor(log.findIndex((e) => e.type === "Boom") / 2) * 2
          expect(failing).toBeLessThan(log.length - 2)

          const exit = yield* Effect.exit(rebuildProjections([replayed], { batchSize: 2 }))
          expect(Exit.isFailure(exit)).toBe(true)
          const rows = yield* sql<{ globalPosition: string }>`
          SELECT global_position FROM test_replayed ORDER BY global_position`
          expect(rows.map((r) => r.globalPosition)).toEqual(
            log.slice(0, failing).map((e) => e.globalPosition.toString())
          )
        })
    )

    it.effect("given a batch that cannot be prepared, then the batch being written meanwhile still commits", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* EventStore
        const events = [newEvent("Counted"), newEvent("Counted"), newEvent("Bust")]
        yield* store.append([appendTo(freshStream(), ExpectedVersion.noStream, events)])
        const log = (yield* everyEvent).filter((e) => e.type === "Counted" || e.type === "Bust")
        const failing = Math.floor(log.findIndex((e) => e.type === "Bust") / 2) * 2
        expect(failing).toBeGreaterThan(0)

        const exit = yield* Effect.exit(rebuildProjections([slowlyReplayed], { batchSize: 2 }))
        expect(Exit.isFailure(exit)).toBe(true)
        const rows = yield* sql<{ globalPosition: string }>`
          SELECT global_position FROM test_replayed ORDER BY global_position`
        expect(rows.map((r) => r.globalPosition)).toEqual(log.slice(0, failing).map((e) => e.globalPosition.toString()))
      })
    )
  })
})

describe("ticket read models", () => {
  layer(eventStoreOnFreshDatabase([ticketProjection]), { timeout: databaseStartup })((it) => {
    it.effect("given a ticket's life, then its row holds the domain's ticket view and its listing columns", () =>
      Effect.gen(function* () {
        yield* runLifecycle(1, "org-1")
        const expected = yield* domainViews(1)
        const row = (yield* ticketRow(1))!
        expect(row.view).toEqual(expected.ticket)
        // The stored view is the schema's encoded form: it decodes back to the domain's view.
        expect(decodeStoredTicketView(row.view)).toEqual(projectTicketView(yield* domainEvents(1)))
        const view = expected.ticket as Record<string, unknown>
        expect({
          ticketId: row.ticketId,
          streamId: row.streamId,
          organizationId: row.organizationId,
          version: row.version,
          status: row.status,
          priority: row.priority,
          assigneeId: row.assigneeId,
          inboxId: row.inboxId,
          waitingOn: row.waitingOn,
          classification: row.classification,
          snoozedUntil: row.snoozedUntil,
          isSpam: row.isSpam,
          mergedInto: row.mergedInto,
          createdAt: (row.createdAt as Date).toISOString(),
          updatedAt: (row.updatedAt as Date).toISOString()
        }).toEqual({
          ticketId: "1",
          streamId: ticketStreamId(1),
          organizationId: "org-1",
          version: String(expected.version),
          status: "closed",
          priority: "high",
          assigneeId: "1",
          inboxId: "2",
          waitingOn: view.waitingOn,
          classification: "resolved",
          snoozedUntil: null,
          isSpam: false,
          mergedInto: null,
          createdAt: view.createdAt,
          updatedAt: view.updatedAt
        })
      })
    )

    it.effect("given a ticket's life, then each message has a row holding the domain's message view", () =>
      Effect.gen(function* () {
        yield* runLifecycle(2)
        const expected = yield* domainViews(2)
        const rows = yield* messageRows(2)
        expect(rows.map((r) => r.messageId)).toEqual(["201", "202", "203"])
        expect(rows.map((r) => r.view)).toEqual(expected.messages)
        expect(rows.map((r) => decodeStoredMessageView(r.view))).toEqual(projectMessageViews(yield* domainEvents(2)))
      })
    )

    it.effect("given a snoozed ticket, then snoozed_until is set, and cleared when it is unsnoozed", () =>
      Effect.gen(function* () {
        const life = ticketLifecycle(3)
        const snoozeAt = life.findIndex((c) => c._tag === "SnoozeTicket")
        yield* Effect.forEach(life.slice(0, snoozeAt + 1), (c) => executeTicketCommand(c), { discard: true })
        const snoozed = (yield* ticketRow(3))!
        const until = life[snoozeAt] as Extract<(typeof life)[number], { _tag: "SnoozeTicket" }>
        expect((snoozed.snoozedUntil as Date).toISOString()).toBe(DateTime.formatIso(until.until))
        yield* executeTicketCommand(life[snoozeAt + 1]!)
        expect((yield* ticketRow(3))!.snoozedUntil).toBeNull()
      })
    )

    it.effect("given a merge, then the source row points at the survivor, which lists the carried messages", () =>
      Effect.gen(function* () {
        yield* runLifecycle(4)
        const open = ticketLifecycle(5).slice(0, 2)
        yield* Effect.forEach(open, (c) => executeTicketCommand(c), { discard: true })
        const lastAt = (ticketLifecycle(4).at(-1) as { at: DateTime.Utc }).at
        const alice = { id: 1, email: "alice@support.test", name: "Alice", profilePictureUrl: "" }
        yield* executeMerge(
          new MergeTickets({
            sourceTicketId: 5,
            targetTicketId: 4,
            at: DateTime.add(lastAt, { minutes: 5 }),
            actor: { role: "associate", user: alice }
          })
        ).pipe(Effect.catchAll((error) => Effect.die(error)))
        expect((yield* ticketRow(5))!.mergedInto).toBe("4")
        const survivor = yield* domainViews(4)
        expect((yield* ticketRow(4))!.view).toEqual(survivor.ticket)
        expect((yield* messageRows(4)).map((r) => r.view)).toEqual(survivor.messages)
        expect((yield* messageRows(4)).map((r) => r.messageId)).toContain("501")
      })
    )

    it.effect("given the same events applied again, then the rows do not change", () =>
      Effect.gen(function* () {
        yield* runLifecycle(6)
        const before = yield* readModels
        const events = yield* everyEvent
        yield* ticketProjection.apply(events)
        yield* ticketProjection.apply(events.slice(3, 20))
        expect(yield* readModels).toEqual(before)
      })
    )

    it.effect("given a rebuild (in small batches, twice), then the rows are those the inline projection wrote", () =>
      Effect.gen(function* () {
        yield* runLifecycle(7)
        const before = yield* readModels
        const events = yield* everyEvent
        const first = yield* rebuildProjections([ticketProjection], { batchSize: 7 })
        expect(first.events).toBe(events.length)
        expect(yield* readModels).toEqual(before)
        yield* rebuildProjections([ticketProjection], { batchSize: 1000 })
        expect(yield* readModels).toEqual(before)
      })
    )

    it.effect("given a replay that skips events committed out of global order, then it folds the stream again", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* runLifecycle(11)
        const expected = yield* domainViews(11)
        const stream = (yield* everyEvent).filter((e) => e.streamId === ticketStreamId(11))
        yield* sql`DELETE FROM hd_tickets WHERE ticket_id = 11`
        yield* sql`DELETE FROM hd_ticket_messages WHERE ticket_id = 11`
        const replayer = ticketReplayer()
        // Events 1–3, then 5… (as if event 4 had committed after the rebuild read past its position).
        yield* sql.withTransaction(yield* replayer.prepare(stream.slice(0, 3)))
        expect((yield* ticketRow(11))!.version).toBe("3")
        yield* sql.withTransaction(yield* replayer.prepare(stream.slice(4)))
        expect((yield* ticketRow(11))!.version).toBe(String(expected.version))
        expect((yield* ticketRow(11))!.view).toEqual(expected.ticket)
        expect((yield* messageRows(11)).map((r) => r.view)).toEqual(expected.messages)
      })
    )

    it.effect("given a row that was lost, then the next append folds the whole stream back into it", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const life = ticketLifecycle(8)
        yield* Effect.forEach(life.slice(0, -1), (c) => executeTicketCommand(c), { discard: true })
        yield* sql`DELETE FROM hd_tickets WHERE ticket_id = 8`
        yield* sql`DELETE FROM hd_ticket_messages WHERE ticket_id = 8`
        yield* executeTicketCommand(life.at(-1)!)
        const expected = yield* domainViews(8)
        expect((yield* ticketRow(8))!.view).toEqual(expected.ticket)
        expect((yield* messageRows(8)).map((r) => r.view)).toEqual(expected.messages)
      })
    )
    it.effect(
      "given a ticket long enough for a snapshot, then a rebuild writes it again, and a write's load from it gives " +
        "the state its events give",
      () =>
        Effect.gen(function* () {
          const ticketId = 901
          const streamId = ticketStreamId(ticketId)
          yield* executeTicketCommand(ticketLifecycle(ticketId)[0]!)
          for (let i = 0; i < SNAPSHOT_EVERY + 8; i++)
            yield* executeTicketCommand(
              new AddMessage({
                ticketId,
                at: DateTime.unsafeMake(Date.UTC(2026, 0, 6) + i * 1000),
                actor: { role: "associate", user: null },
                messageId: ticketId * 1000 + i,
                content: `Note ${i}`,
                contentHtml: "",
                isVisibleToCustomer: false,
                sendsEmail: false
              })
            )
          const sql = yield* SqlClient.SqlClient
          const snapshot = sql<{ version: string; schemaVersion: number }>`
            SELECT version, schema_version FROM hd_ticket_snapshots WHERE stream_id = ${streamId}`
          const store = yield* EventStore
          const recorded = yield* store.readStream(streamId)
          const full = toJsonValue(Either.getOrThrow(loadTicket(recorded)).state)
          expect(yield* snapshot).toHaveLength(1)

          yield* sql`DELETE FROM hd_ticket_snapshots WHERE stream_id = ${streamId}`
          yield* rebuildProjections([ticketProjection], { batchSize: 10 })
          const [rebuilt] = yield* snapshot
          expect(rebuilt?.schemaVersion).toBe(TICKET_STATE_VERSION)
          const behind = recorded.length - Number(rebuilt!.version)
          expect(behind).toBeGreaterThanOrEqual(0)
          expect(behind).toBeLessThan(SNAPSHOT_EVERY)

          const loaded = yield* Effect.flatMap(PostgresTicketStore, (tickets) =>
            tickets.transaction(tickets.load(ticketId))
          ).pipe(Effect.provide(PostgresTicketStore.DefaultWithoutDependencies))
          expect([loaded.source, loaded.eventsRead, loaded.version]).toEqual(["snapshot", behind, recorded.length])
          expect(toJsonValue(loaded.state)).toEqual(full)
        })
    )
  })
})

// PGlite serves one session: concurrent connections' transactions are one, and their exchanges can be mixed up.
describe.runIf(usesRealPostgres)("ticket projection rebuild beside other connections", () => {
  layer(eventStoreOnFreshDatabase([ticketProjection]), { timeout: databaseStartup })((it) => {
    it.effect("given a rebuild that keeps one stream in memory, then streams it dropped are read again", () =>
      Effect.gen(function* () {
        // Two lives interleaved, command by command: every batch holds both streams, one of which was dropped.
        const [nine, ten] = [ticketLifecycle(9), ticketLifecycle(10)]
        for (let i = 0; i < Math.max(nine.length, ten.length); i++) {
          for (const command of [nine[i], ten[i]]) if (command !== undefined) yield* executeTicketCommand(command)
        }
        const before = yield* readModels
        const forgetful = { ...ticketProjection, replayer: () => ticketReplayer({ streamsKept: 1 }) }
        yield* rebuildProjections([forgetful], { batchSize: 5 })
        expect(yield* readModels).toEqual(before)
      })
    )

    it.effect("given appends while a rebuild runs, then the rows end as a quiet rebuild makes them", () =>
      Effect.gen(function* () {
        yield* runLifecycle(12)
        const lives = [13, 14, 15].map((id) => ticketLifecycle(id))
        yield* Effect.forEach(lives, (life) => Effect.forEach(life.slice(0, 3), (c) => executeTicketCommand(c)), {
          discard: true
        })
        yield* Effect.all(
          [
            rebuildProjections([ticketProjection], { batchSize: 3 }),
            Effect.forEach(lives, (life) => Effect.forEach(life.slice(3), (c) => executeTicketCommand(c)), {
              concurrency: "unbounded",
              discard: true
            })
          ],
          { concurrency: "unbounded" }
        )
        const during = yield* readModels
        yield* rebuildProjections([ticketProjection])
        expect(during).toEqual(yield* readModels)
        for (const id of [12, 13, 14, 15]) {
          const expected = yield* domainViews(id)
          expect((yield* ticketRow(id))!.view).toEqual(expected.ticket)
        }
      })
    )
  })
})

// PGlite serves one session, and a session's advisory lock does not exclude the same session.
describe.runIf(usesRealPostgres)("projection rebuild lock", () => {
  layer(eventStoreOnFreshDatabase([ticketProjection]), { timeout: databaseStartup })((it) => {
    it.scoped("given a rebuild holding the lock, then another rebuild of that projection is refused", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const holder = yield* sql.reserve
        yield* holder.executeValues("SELECT pg_advisory_lock(hashtext($1))", ["hd_rebuild:tickets"])
        const refused = yield* Effect.flip(rebuildProjections([ticketProjection]))
        expect(refused).toEqual(new RebuildInProgress({ projection: "tickets" }))
        yield* holder.executeValues("SELECT pg_advisory_unlock(hashtext($1))", ["hd_rebuild:tickets"])
        expect((yield* rebuildProjections([ticketProjection])).batches).toBeGreaterThanOrEqual(0)
      })
    )
  })
})
