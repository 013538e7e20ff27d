import { SqlClient, Statement } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import {
  AddMessage,
  ChangePriority,
  EventStore,
  loadTicket,
  runTicketCommands,
  TICKET_STATE_VERSION,
  TicketStore,
  ticketStreamId
} from "@helpdesk/domain"
import { DateTime, Effect, Either, Layer } from "effect"
import { PostgresEventStoreLive } from "../src/EventStore/PostgresEventStore.js"
import { TicketReadModelsLive } from "../src/Tickets/ReadModel/TicketProjection.js"
import { type LoadedFold, PostgresTicketStore } from "../src/Tickets/Store/PostgresTicketStore.js"
import { SNAPSHOT_EVERY } from "../src/Tickets/Store/TicketSnapshot.js"
import { TicketOutboxLive } from "../src/Tickets/TicketOutbox.js"
import { toJsonValue } from "./support/Json.js"
import { patch, post, testAppLive } from "./support/TestApp.js"
import { usesRealPostgres } from "./support/TestDatabase.js"
import { organizationWithTicket, postMessage, readTicket, ticket, ticketPath } from "./TicketsSupport.js"

/** A ticket store of its own (an empty in-memory cache) on the test's database, as another replica has. */
const otherReplica = PostgresTicketStore.Default.pipe(
  Layer.provideMerge(PostgresEventStoreLive),
  Layer.provide([TicketReadModelsLive, TicketOutboxLive])
)

/** The ticket folded from every stored event, as JSON (instants as ISO text). */
const fullFold = (ticketId: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const loaded = Either.getOrThrow(loadTicket(yield* store.readStream(ticketStreamId(ticketId))))
    return { version: loaded.version, state: toJsonValue(loaded.state) }
  })

const streamVersion = (ticketId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ version: string }>`SELECT version FROM hd_streams WHERE stream_id = ${ticketStreamId(ticketId)}`.pipe(
      Effect.map((rows) => Number(rows[0]!.version))
    )
  ).pipe(Effect.orDie)

const snapshotOf = (ticketId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ version: string; schemaVersion: number }>`
      SELECT version, schema_version FROM hd_ticket_snapshots WHERE stream_id = ${ticketStreamId(ticketId)}`.pipe(
      Effect.map((rows) =>
        rows[0] === undefined ? null : { version: Number(rows[0].version), schemaVersion: rows[0].schemaVersion }
      )
    )
  ).pipe(Effect.orDie)

/** Loads the ticket as a write does after a lost race (in a transaction, holding the stream's lock until it ends). */
const loadForWrite = (ticketId: number) =>
  Effect.flatMap(PostgresTicketStore, (store) =>
    store.transaction(store.loadMany([ticketId])).pipe(
      Effect.map(([result]) => Either.getOrThrow(result!)),
      Effect.map((loaded) => ({
        source: loaded.source,
        eventsRead: loaded.eventsRead,
        version: loaded.version,
        state: toJsonValue(loaded.state)
      }))
    )
  )

/** A plan: an associate's message, an internal note or a reply to the customer that goes out by e-mail. */
const associateMessage = (ticketId: number, messageId: number, content: string, emailed: boolean) => () =>
  Effect.map(DateTime.now, (at) => ({
    commands: [
      new AddMessage({
        ticketId,
        at,
        actor: { role: "associate", user: null },
        messageId,
        content,
        contentHtml: "",
        isVisibleToCustomer: emailed,
        sendsEmail: emailed
      })
    ],
    result: undefined
  }))

/** The plan of a write adding an internal note (message `messageId`) by an associate, mailed to no one. */
const internalNote = (ticketId: number, messageId: number, content: string) =>
  associateMessage(ticketId, messageId, content, false)

/** The plan of an associate's reply (message `messageId`) that goes out by e-mail. */
const emailedReply = (ticketId: number, messageId: number, content: string) =>
  associateMessage(ticketId, messageId, content, true)

/**
 * A new ticket, loaded under the lock (`before`), then a note written through this store and rolled back after its
 * append by a failing policy: the store has folded a write that was never stored.
 */
const ticketWithRolledBackWrite = Effect.gen(function* () {
  const { org, t } = yield* organizationWithTicket()
  const store = yield* PostgresTicketStore
  const before = yield* loadForWrite(t.id)
  const failed = yield* runTicketCommands({
    ticketId: t.id,
    plan: internalNote(t.id, 9_000_000 + t.id, "Never stored"),
    policies: [() => Effect.fail("the policy failed" as const)]
  }).pipe(Effect.provideService(TicketStore, TicketStore.of(store)), Effect.flip)
  assert.strictEqual(failed, "the policy failed")
  return { org, t, store, before }
})

// As the service runs: on PGlite one connection (its one session serves one transaction at a time).
const TestAppLive = testAppLive({}, { connections: usesRealPostgres ? 20 : 1 })

/** `self`, with the text of every statement it sends (a transaction's begin and commit are not statements). */
const withStatements = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const texts: Array<string> = []
    return self.pipe(
      Statement.withTransformer((statement) => {
        texts.push(statement.compile()[0].replace(/\s+/g, " ").trim())
        return Effect.succeed(statement)
      }),
      Effect.map((result) => ({ result, texts }))
    )
  })

layer(TestAppLive, { excludeTestServices: true })("tickets: the command pipeline", (it) => {
  it.effect(
    "a write of a ticket in memory sends two statements and no lock: the append (proving the fold, with the SLA projection's read and the read model's writes), the SLA state",
    () =>
      Effect.gen(function* () {
        const { t } = yield* organizationWithTicket()
        const store = yield* PostgresTicketStore
        yield* loadForWrite(t.id)
        const { texts } = yield* withStatements(
          runTicketCommands({
            ticketId: t.id,
            plan: internalNote(t.id, 9_200_000 + t.id, "Two statements")
          }).pipe(Effect.provideService(TicketStore, TicketStore.of(store)))
        )
        assert.strictEqual(texts.length, 2, texts.join("\n"))
        assert.match(texts[0]!, /^WITH appended AS \( SELECT .* FROM hd_append_to_stream\(/)
        assert.match(texts[0]!, /SELECT CASE WHEN EXISTS \(SELECT 1 FROM hd_events WHERE stream_id = /)
        assert.include(texts[0]!, "FROM hd_ticket_sla", "the SLA facts and rules come with the append")
        assert.include(texts[0]!, "INSERT INTO hd_tickets", "the read model is written with the append")
        assert.include(texts[1]!, "INSERT INTO hd_ticket_sla")
        // Every row at the stream's version: the ticket (its view with the SLA part), the note, the SLA state.
        const version = yield* streamVersion(t.id)
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ ticket: string; hasSla: boolean; message: string | null; sla: string }>`
          SELECT t.version AS ticket, t.view ? 'sla' AS has_sla, m.ticket_version AS message, s.version AS sla
          FROM hd_tickets t JOIN hd_ticket_sla s USING (ticket_id)
          LEFT JOIN hd_ticket_messages m ON m.ticket_id = t.ticket_id AND m.message_id = ${9_200_000 + t.id}
          WHERE t.ticket_id = ${t.id}`
        assert.deepStrictEqual(
          [Number(row!.ticket), row!.hasSla, Number(row!.message), Number(row!.sla)],
          [version, true, version, version]
        )
      }).pipe(Effect.provide(otherReplica))
  )

  it.effect(
    "a reply that goes out by e-mail sends two statements too: its outbox row is made in the append's statement, " +
      "and only by an append that goes through",
    () =>
      Effect.gen(function* () {
        const { org, t } = yield* organizationWithTicket()
        const store = yield* PostgresTicketStore
        const sql = yield* SqlClient.SqlClient
        const outboxRows = (messageId: number) =>
          sql<{ kind: string; text: string }>`
            SELECT kind, payload->>'text' AS text FROM hd_outbox WHERE ticket_id = ${t.id} AND message_id = ${messageId}`
        yield* loadForWrite(t.id)
        const { texts } = yield* withStatements(
          runTicketCommands({
            ticketId: t.id,
            plan: emailedReply(t.id, 9_250_000 + t.id, "Sent with the append")
          }).pipe(Effect.provideService(TicketStore, TicketStore.of(store)))
        )
        assert.strictEqual(texts.length, 2, texts.join("\n"))
        assert.include(texts[0]!, "INSERT INTO hd_outbox", "the outbox row is written with the append")
        assert.deepStrictEqual(yield* outboxRows(9_250_000 + t.id), [{ kind: "message", text: "Sent with the append" }])

        // Another replica writes; this one's fold is stale, so its first append conflicts and the retry goes through.
        assert.strictEqual(
          (yield* postMessage(org, t.id, { content: "The other replica's", is_visible_to_customer: false })).status,
          201
        )
        const attempts: Array<string> = []
        yield* runTicketCommands({
          ticketId: t.id,
          plan: (loaded) => {
            attempts.push((loaded as LoadedFold).source)
            return emailedReply(t.id, 9_260_000 + t.id, "Sent once")()
          }
        }).pipe(Effect.provideService(TicketStore, TicketStore.of(store)))
        assert.deepStrictEqual(attempts.length, 2, "the first append conflicted, the second went through")
        assert.strictEqual(attempts[0], "memory")
        assert.deepStrictEqual(yield* outboxRows(9_260_000 + t.id), [{ kind: "message", text: "Sent once" }])
      }).pipe(Effect.provide(otherReplica))
  )

  it.effect(
    "a write rolled back after its append (a failing policy), then another replica's write at the same version: " +
      "the next write's append refuses the fold in memory, and under the lock it decides on the stored state",
    () =>
      Effect.gen(function* () {
        const { org, t, store, before } = yield* ticketWithRolledBackWrite
        // This process now holds a fold one event ahead, of an event that was never stored; the test app's store (another
        // replica) writes an event at that very version.
        assert.strictEqual(
          (yield* postMessage(org, t.id, { content: "The other replica's", is_visible_to_customer: false })).status,
          201
        )
        assert.strictEqual(yield* streamVersion(t.id), before.version + 1)
        const loads: Array<{ readonly source: string; readonly version: number }> = []
        const outcome = yield* runTicketCommands({
          ticketId: t.id,
          plan: (loaded) => {
            loads.push({ source: (loaded as LoadedFold).source, version: loaded.version })
            return internalNote(t.id, 9_400_000 + t.id, "Decided on the stored state")()
          }
        }).pipe(Effect.provideService(TicketStore, TicketStore.of(store)))
        assert.deepStrictEqual(loads, [
          { source: "memory", version: before.version + 1 },
          { source: "stream", version: before.version + 1 }
        ])
        const full = yield* fullFold(t.id)
        assert.strictEqual(outcome.version, full.version)
        assert.deepStrictEqual(toJsonValue(outcome.state), full.state, "the write's state is the stored events' fold")
        const contents = (outcome.state as { messages: ReadonlyArray<{ content: string }> }).messages.map(
          (m) => m.content
        )
        assert.includeMembers(contents, ["The other replica's", "Decided on the stored state"])
        assert.notInclude(contents, "Never stored")
      }).pipe(Effect.provide(otherReplica))
  )

  it.effect(
    "a decision on the fold in memory that appends nothing stands only once the stream confirms it: after another " +
      "replica's change, the same command is decided again on the stored state",
    () =>
      Effect.gen(function* () {
        const { org, t } = yield* organizationWithTicket()
        const store = yield* PostgresTicketStore
        yield* loadForWrite(t.id)
        const priority = (yield* readTicket(org, t.id)).body.priority as
          | "not_set"
          | "low"
          | "medium"
          | "high"
          | "urgent"
        const other = priority === "urgent" ? "low" : "urgent"
        // Another replica (the test app's store) changes the priority; this one still holds the old fold.
        assert.strictEqual(
          (yield* patch(ticketPath(org, t.id), { json: { priority: other }, token: org.ownerToken })).status,
          200
        )
        const outcome = yield* runTicketCommands({
          ticketId: t.id,
          plan: () =>
            Effect.map(DateTime.now, (at) => ({
              commands: [
                new ChangePriority({ ticketId: t.id, at, actor: { role: "associate", user: null }, priority })
              ],
              result: undefined
            }))
        }).pipe(Effect.provideService(TicketStore, TicketStore.of(store)))
        // On the fold in memory the priority was already `priority` (nothing to append); on the stored state it was not.
        assert.deepStrictEqual(
          outcome.events.map((e) => e._tag),
          ["TicketPriorityChanged"]
        )
        assert.strictEqual((yield* readTicket(org, t.id)).body.priority, priority)
      }).pipe(Effect.provide(otherReplica))
  )

  it.effect(
    "a ticket merged by another replica while this one holds its fold open: the next write meets the closed stream, " +
      "is decided again on the stored, merged state, and is refused naming the survivor; nothing reaches the stream",
    () =>
      Effect.gen(function* () {
        const { org, t } = yield* organizationWithTicket()
        const survivor = yield* ticket(org)
        const store = yield* PostgresTicketStore
        yield* loadForWrite(t.id)
        // Another replica (the test app's store) merges the ticket; this one still holds it open in memory.
        const merged = yield* post(ticketPath(org, t.id, "merge/"), {
          token: org.ownerToken,
          json: { into: survivor.id }
        })
        assert.strictEqual(merged.status, 200, merged.text)
        const version = yield* streamVersion(t.id)
        const loads: Array<string> = []
        const refused = yield* runTicketCommands({
          ticketId: t.id,
          plan: (loaded) => {
            loads.push((loaded as LoadedFold).source)
            return internalNote(t.id, 9_450_000 + t.id, "Too late")()
          }
        }).pipe(Effect.provideService(TicketStore, TicketStore.of(store)), Effect.flip)
        assert.strictEqual(refused._tag, "TicketMergedAway")
        assert.strictEqual(refused._tag === "TicketMergedAway" && refused.mergedInto.id, survivor.id)
        assert.deepStrictEqual(loads, ["memory", "stream"], "decided on memory, then once again on the stored state")
        assert.strictEqual(yield* streamVersion(t.id), version)
      }).pipe(Effect.provide(otherReplica))
  )

  it.effect("a write rolled back after its append (a failing policy) leaves no trace in the next write's load", () =>
    Effect.gen(function* () {
      const { org, t, before } = yield* ticketWithRolledBackWrite
      // The process folded the write before it was rolled back; the next load under the lock notices and reads the
      // database.
      const after = yield* loadForWrite(t.id)
      assert.notStrictEqual(after.source, "cache", "the fold of the rolled-back write is not trusted")
      assert.strictEqual(after.version, before.version)
      assert.strictEqual(after.version, yield* streamVersion(t.id))
      assert.deepStrictEqual(after.state, before.state)
      assert.deepStrictEqual(after.state, (yield* fullFold(t.id)).state)
      assert.strictEqual(
        (yield* postMessage(org, t.id, { content: "Stored", is_visible_to_customer: false })).status,
        201
      )
    }).pipe(Effect.provide(otherReplica))
  )

  it.effect("50 replies posted at once to one ticket all answer 201; each is stored once, none lost", () =>
    Effect.gen(function* () {
      const { org, t } = yield* organizationWithTicket()
      const before = yield* streamVersion(t.id)
      const responses = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => postMessage(org, t.id, { content: `Reply ${i}`, is_visible_to_customer: i % 2 === 0 }),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(
        responses.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text}`),
        [],
        "every reply is accepted"
      )
      const ids = new Set(responses.map((r) => r.body.id as number))
      assert.strictEqual(ids.size, 50)

      const sql = yield* SqlClient.SqlClient
      const added = yield* sql<{ content: string }>`
        SELECT data->'message'->>'content' AS content FROM hd_events
        WHERE stream_id = ${ticketStreamId(t.id)} AND event_type = 'MessageAdded'`
      assert.deepStrictEqual(
        added.map((row) => row.content).sort(),
        Array.from({ length: 50 }, (_, i) => `Reply ${i}`).sort(),
        "one MessageAdded per reply"
      )
      const rows = yield* sql<{
        messageId: string
      }>`SELECT message_id FROM hd_ticket_messages WHERE ticket_id = ${t.id}`
      assert.deepStrictEqual(new Set(rows.map((r) => Number(r.messageId))), ids, "one message row per reply")
      const after = yield* streamVersion(t.id)
      const positions = yield* sql<{ n: string; max: string }>`
        SELECT count(*) AS n, max(stream_position) AS max FROM hd_events WHERE stream_id = ${ticketStreamId(t.id)}`
      assert.strictEqual(Number(positions[0]!.n), after, "stream positions are contiguous")
      assert.isAtLeast(after - before, 50)
      const read = yield* readTicket(org, t.id)
      assert.strictEqual(read.status, 200)
      assert.strictEqual((yield* fullFold(t.id)).version, after)
    }).pipe(Effect.provide(otherReplica))
  )

  it.effect(
    "a write loads the ticket's snapshot and only the events after it; without the snapshot, the same state",
    () =>
      Effect.gen(function* () {
        const { org, t } = yield* organizationWithTicket()
        for (let i = 0; i < SNAPSHOT_EVERY + 8; i++) {
          // Quotes, backslashes, braces and non-ASCII text: the snapshot carries them through its JSON.
          const content = `Note ${i}: "quoted", back\\slash, {braced}, é 🎫`
          const response = yield* postMessage(org, t.id, { content, is_visible_to_customer: false })
          assert.strictEqual(response.status, 201, response.text)
        }
        const version = yield* streamVersion(t.id)
        const snapshot = yield* snapshotOf(t.id)
        assert.isNotNull(snapshot, "the projection wrote a snapshot in the append transaction")
        assert.strictEqual(snapshot!.schemaVersion, TICKET_STATE_VERSION)
        assert.isAtMost(snapshot!.version, version)
        assert.isBelow(version - snapshot!.version, SNAPSHOT_EVERY, "the snapshot keeps up with the stream")
        const full = yield* fullFold(t.id)

        // A replica without the ticket in memory: the snapshot plus the events after it.
        const fromSnapshot = yield* loadForWrite(t.id)
        assert.strictEqual(fromSnapshot.source, "snapshot")
        assert.strictEqual(fromSnapshot.eventsRead, version - snapshot!.version)
        assert.strictEqual(fromSnapshot.version, version)
        assert.deepStrictEqual(fromSnapshot.state, full.state)

        // The same replica again: what it folded, and no event (none was written since).
        const again = yield* loadForWrite(t.id)
        assert.deepStrictEqual([again.source, again.eventsRead], ["cache", 0])
        assert.deepStrictEqual(again.state, full.state)

        // Another replica writes: this one reads only that write's events.
        assert.strictEqual(
          (yield* postMessage(org, t.id, { content: "One more", is_visible_to_customer: false })).status,
          201
        )
        const tail = yield* loadForWrite(t.id)
        assert.strictEqual(tail.source, "cache")
        assert.strictEqual(tail.eventsRead, (yield* streamVersion(t.id)) - version)
        assert.deepStrictEqual(tail.state, (yield* fullFold(t.id)).state)

        const sql = yield* SqlClient.SqlClient
        const store = yield* PostgresTicketStore
        // A snapshot of another state version is ignored: the stream is folded from its start.
        yield* sql`UPDATE hd_ticket_snapshots SET schema_version = ${TICKET_STATE_VERSION + 1} WHERE stream_id = ${ticketStreamId(t.id)}`
        yield* store.forget
        const stale = yield* loadForWrite(t.id)
        assert.strictEqual(stale.source, "stream")
        assert.deepStrictEqual(stale.state, (yield* fullFold(t.id)).state)
        // The next write of this store puts a snapshot of the code's state version in its place.
        yield* runTicketCommands({
          ticketId: t.id,
          plan: internalNote(t.id, 9_100_000 + t.id, "After a snapshot of another state version")
        }).pipe(Effect.provideService(TicketStore, TicketStore.of(store)))
        assert.deepStrictEqual(yield* snapshotOf(t.id), {
          version: yield* streamVersion(t.id),
          schemaVersion: TICKET_STATE_VERSION
        })
        yield* store.forget
        assert.strictEqual((yield* loadForWrite(t.id)).source, "snapshot")

        // Without its snapshot, the same state from the events alone.
        yield* sql`DELETE FROM hd_ticket_snapshots WHERE stream_id = ${ticketStreamId(t.id)}`
        yield* store.forget
        const folded = yield* loadForWrite(t.id)
        assert.deepStrictEqual([folded.source, folded.eventsRead], ["stream", yield* streamVersion(t.id)])
        assert.deepStrictEqual(folded.state, (yield* fullFold(t.id)).state)
      }).pipe(Effect.provide(otherReplica))
  )
})
