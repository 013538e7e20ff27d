import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { ExpectedVersion, type NewEvent, type OrganizationId } from "@helpdesk/domain"
import { Deferred, Effect, Fiber, Layer } from "effect"
import type { Role } from "../src/Auth/CurrentCaller.js"
import { allows } from "../src/Auth/Permissions.js"
import { encodeCursor } from "../src/EventLog/Cursor.js"
import { checkpointOf } from "../src/EventStore/Checkpoint.js"
import { InlineProjections } from "../src/EventStore/InlineProjection.js"
import { PostgresEventStore } from "../src/EventStore/PostgresEventStore.js"
import { settled } from "./eventstore/fixtures.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, post, TestAppLive } from "./support/TestApp.js"
import { usesRealPostgres } from "./support/TestDatabase.js"
import * as Tickets from "./TicketsSupport.js"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

const history = (org: Tickets.TicketOrg, id: number, query = "", token = org.ownerToken) =>
  get(`${Tickets.ticketPath(org, id, "events/")}${query}`, { token })

const feed = (org: Tickets.TicketOrg, query = "", token = org.ownerToken) =>
  get(`${org.path}events/${query}`, { token })

/** Every event of the organization's feed after `after`, page by page (every transaction before this ended). */
const readFeed = (org: Tickets.TicketOrg, options: { after?: string; pageSize?: number; types?: string } = {}) =>
  Effect.gen(function* () {
    yield* settled
    const events: Array<Json> = []
    let cursor = options.after ?? ""
    for (let page = 0; page < 1000; page++) {
      const params = new URLSearchParams({ after: cursor, page_size: String(options.pageSize ?? 100) })
      if (options.types !== undefined) params.set("types", options.types)
      const response = yield* feed(org, `?${params}`)
      assert.strictEqual(response.status, 200, response.text)
      if (response.body.results.length === 0) return { events, cursor: response.body.cursor as string }
      events.push(...response.body.results)
      cursor = response.body.cursor
    }
    throw new Error("the feed did not end")
  })

/** The position the feed has reached now (its cursor after everything visible). */
const feedEnd = (org: Tickets.TicketOrg) => Effect.map(readFeed(org), (read) => read.cursor)

/** The PostgreSQL event store on the test's database, without projections (raw appends). */
const rawStore = PostgresEventStore.Default.pipe(Layer.provide(InlineProjections.layer([])))

/** A stream of organization `org` (a fresh ticket id far above the app's), its creation event first. */
const rawTicketStream = (organizationId: OrganizationId) => ({
  streamId: `ticket-${900_000_000 + Math.floor(Math.random() * 99_999_999)}`,
  created: {
    eventId: randomUUID(),
    type: "TicketLanguageDetected",
    schemaVersion: 1,
    data: { organizationId, at: new Date().toISOString(), by: { role: "system", user: null } }
  } satisfies NewEvent
})

layer(TestAppLive, { excludeTestServices: true })("ticket history and change feed", (it) => {
  it.effect("the history of a ticket that was snoozed, merged into and closed, with old → new", () =>
    Effect.gen(function* () {
      const { org, t: target } = yield* Tickets.organizationWithTicket({ subject: "Original" })
      const until = Tickets.inAnHour()
      assert.strictEqual((yield* Tickets.snoozeTicket(org, target.id, until)).status, 200)
      const source = yield* Tickets.ticket(org, { subject: "Duplicate" })
      assert.strictEqual((yield* Tickets.postMessage(org, source.id, { content: "On the duplicate" })).status, 201)
      assert.strictEqual(
        (yield* Tickets.postMessage(org, source.id, { content: "Only for us", is_visible_to_customer: false })).status,
        201
      )
      const merged = yield* post(Tickets.ticketPath(org, source.id, "merge/"), {
        token: org.ownerToken,
        json: { into: target.id }
      })
      assert.strictEqual(merged.status, 200, merged.text)
      assert.strictEqual(
        (yield* Tickets.updateTicket(org, target.id, { status: "closed", classification: "resolved" })).status,
        200
      )

      const response = yield* history(org, target.id)
      assert.strictEqual(response.status, 200, response.text)
      const entries: Array<Json> = response.body.results
      assert.strictEqual(response.body.count, entries.length)
      assert.deepStrictEqual(
        entries.map((e) => e.type),
        ["TicketCreated", "TicketLanguageDetected", "TicketSnoozed", "TicketMergedFrom", "TicketClosed"]
      )
      assert.deepStrictEqual(
        entries.map((e) => e.position),
        [1, 2, 3, 4, 5]
      )
      for (const entry of entries.filter((e) => e.type !== "TicketLanguageDetected")) {
        assert.strictEqual(entry.ticket_id, target.id)
        assert.match(entry.occurred_at, Tickets.ISO_MS)
        assert.match(entry.recorded_at, Tickets.ISO_MS)
        assert.match(entry.id, /^[0-9a-f-]{36}$/)
        assert.deepStrictEqual(entry.actor, {
          role: "associate",
          user: { id: org.ownerId, email: org.ownerEmail, profile_picture_url: "", name: "Owner" }
        })
        assert.notProperty(entry.data, "at")
        assert.notProperty(entry.data, "organization_id")
      }
      assert.strictEqual(entries[0].summary, `Ticket #${target.public_id} created: "Original"`)
      assert.strictEqual(entries[0].data.subject, "Original")
      assert.strictEqual(entries[1].summary, "Language detected (language: none → en)")
      assert.deepStrictEqual(entries[1].actor, { role: "system", user: null })
      assert.deepStrictEqual(entries[2].changes, [{ field: "snoozed_until", from: null, to: until }])
      assert.strictEqual(entries[2].data.until, until)
      assert.strictEqual(entries[3].summary, `Ticket #${source.public_id} merged into this one`)
      assert.deepStrictEqual(entries[3].data.from, { id: source.id, public_id: source.public_id, subject: "Duplicate" })
      assert.deepStrictEqual(
        // The carried messages end with the source's own (the merge may carry its description first).
        entries[3].data.messages.slice(-2).map((m: Json) => [m.content, m.is_visible_to_customer]),
        [
          ["On the duplicate", true],
          ["Only for us", false]
        ]
      )
      assert.deepStrictEqual(entries[4].changes, [
        { field: "status", from: "created", to: "closed" },
        { field: "classification", from: "", to: "resolved" },
        { field: "snoozed_until", from: until, to: null }
      ])
      assert.strictEqual(
        entries[4].summary,
        `Closed as resolved (status: created → closed; classification: none → resolved; snoozed until: ${until} → none)`
      )

      // The merged-away ticket keeps its own history, ending with the merge.
      const sourceHistory: Array<Json> = (yield* history(org, source.id)).body.results
      assert.deepStrictEqual(
        sourceHistory.map((e) => e.type),
        [
          "TicketCreated",
          "TicketLanguageDetected",
          "MessageAdded",
          "TicketActivated",
          "MessageAdded",
          "TicketMergedInto"
        ]
      )
      assert.strictEqual(sourceHistory[4].summary, "Internal note by Owner")
      assert.deepStrictEqual(sourceHistory[5].changes, [
        { field: "merged_into", from: null, to: { id: target.id, public_id: target.public_id } }
      ])

      // Paged as every list: page_size, next/previous, past the end → 404.
      const first = yield* history(org, target.id, "?page_size=3")
      assert.strictEqual(first.body.count, 5)
      assert.strictEqual(first.body.results.length, 3)
      assert.match(first.body.next, /page=2/)
      const second = yield* get(new URL(first.body.next).pathname + new URL(first.body.next).search, {
        token: org.ownerToken
      })
      assert.deepStrictEqual(second.body.results, entries.slice(3))
      assert.strictEqual((yield* history(org, target.id, "?page=3&page_size=3")).status, 404)
      assert.strictEqual((yield* history(org, target.id, "?page_size=x")).status, 400)
    })
  )

  it.effect("history: unknown, malformed and other organizations' tickets are 404", () =>
    Effect.gen(function* () {
      const [org, other] = yield* Tickets.organizationAndAnother
      const theirs = yield* Tickets.ticket(other)
      for (const id of [String(theirs.id), "987654321", "0", "x", "1.5"]) {
        const response = yield* get(`${org.tickets}${id}/events/`, { token: org.ownerToken })
        assert.strictEqual(response.status, 404, `${id}: ${response.text}`)
      }
      const outsider = yield* Fixtures.outsider
      assert.strictEqual((yield* history(other, theirs.id, "", outsider)).status, 404)
      assert.strictEqual((yield* history(other, theirs.id, "", "")).status, 401)
    })
  )

  it.effect("internal notes show to exactly the roles the table lets read them, in history and feed", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const start = yield* feedEnd(org)
      const t = yield* Tickets.ticket(org)
      yield* Tickets.postMessage(org, t.id, { content: "A secret", is_visible_to_customer: false })
      yield* settled
      const tokens: Record<Role, string> = {
        owner: org.ownerToken,
        admin: (yield* Fixtures.member(org, "admin")).token,
        member: (yield* Fixtures.member(org, "member")).token,
        token: org.integration
      }
      for (const role of ["owner", "admin", "member", "token"] as const) {
        const expected = allows("internal_notes.read", role)
        const fromHistory: Array<Json> = (yield* history(org, t.id, "", tokens[role])).body.results
        assert.strictEqual(
          fromHistory.some((e) => e.type === "MessageAdded"),
          expected,
          role
        )
        const fromFeed: Array<Json> = (yield* feed(org, `?after=${start}`, tokens[role])).body.results
        assert.strictEqual(
          fromFeed.some((e) => e.type === "MessageAdded" && e.data.message.content === "A secret"),
          expected,
          role
        )
      }
    })
  )

  it.effect("the feed: every event of the organization once, in log order, page by page; never another's", () =>
    Effect.gen(function* () {
      const [org, other] = yield* Tickets.organizationAndAnother
      const start = yield* feedEnd(org)
      const otherStart = yield* feedEnd(other)
      const a = yield* Tickets.ticket(org, { subject: "First" })
      const theirs = yield* Tickets.ticket(other, { subject: "Theirs" })
      const b = yield* Tickets.ticket(org, { subject: "Second" })
      yield* Tickets.updateTicket(org, a.id, { priority: "high" })
      yield* Tickets.updateTicket(other, theirs.id, { priority: "low" })
      yield* Tickets.postMessage(org, b.id, { content: "Hello" })
      yield* Tickets.updateTicket(org, a.id, { status: "closed", classification: "resolved" })

      const all = yield* readFeed(org, { after: start, pageSize: 2 })
      assert.deepStrictEqual(
        all.events.map((e) => [e.ticket_id, e.type]),
        [
          [a.id, "TicketCreated"],
          [a.id, "TicketLanguageDetected"],
          [b.id, "TicketCreated"],
          [b.id, "TicketLanguageDetected"],
          [a.id, "TicketPriorityChanged"],
          [b.id, "MessageAdded"],
          [b.id, "TicketActivated"],
          [a.id, "TicketClosed"]
        ]
      )
      assert.strictEqual(new Set(all.events.map((e) => e.id)).size, all.events.length)
      assert.strictEqual(all.events[4].data.priority, "high")
      assert.deepStrictEqual(all.events[4].actor.user.id, org.ownerId)
      // Each event's cursor resumes right after it.
      const resumed = yield* feed(org, `?after=${all.events[3].cursor}`)
      assert.deepStrictEqual(
        resumed.body.results.map((e: Json) => e.id),
        all.events.slice(4).map((e) => e.id)
      )
      assert.strictEqual(resumed.body.cursor, all.events[7].cursor)
      assert.include(resumed.body.next, `after=${all.events[7].cursor}`)
      // From the start without `after`: the same events (this organization has no others).
      assert.deepStrictEqual(
        (yield* readFeed(org)).events.map((e) => e.id),
        all.events.map((e) => e.id)
      )
      // The other organization sees only its own.
      const theirsRead = yield* readFeed(other, { after: otherStart })
      assert.deepStrictEqual(
        theirsRead.events.map((e) => [e.ticket_id, e.type]),
        [
          [theirs.id, "TicketCreated"],
          [theirs.id, "TicketLanguageDetected"],
          [theirs.id, "TicketPriorityChanged"]
        ]
      )
      // Filtered by type: repeated keys and commas.
      const filtered = yield* readFeed(org, { after: start, types: "TicketClosed,TicketPriorityChanged" })
      assert.deepStrictEqual(
        filtered.events.map((e) => e.type),
        ["TicketPriorityChanged", "TicketClosed"]
      )
      const repeated = yield* feed(org, `?after=${start}&types=TicketCreated&types=TicketActivated`)
      assert.deepStrictEqual(
        repeated.body.results.map((e: Json) => e.type),
        ["TicketCreated", "TicketCreated", "TicketActivated"]
      )
      // `after=now`: nothing yet, and the cursor of the organization's last event.
      const now = yield* feed(org, "?after=now")
      assert.strictEqual(now.status, 200, now.text)
      assert.deepStrictEqual(now.body.results, [])
      assert.strictEqual(now.body.cursor, all.events[all.events.length - 1].cursor)
      // A cursor is only a position: another organization's cursor shows this organization's events after it.
      const foreign = yield* feed(org, `?after=${theirsRead.cursor}`)
      assert.isTrue(foreign.body.results.every((e: Json) => e.ticket_id === a.id || e.ticket_id === b.id))
    })
  )

  it.effect("a cursor a client kept from before still reads: base64url of `v1:<transaction id>:<position>`", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { org, t: a } = yield* Tickets.organizationWithTicket({ subject: "Kept cursor" })
      yield* Tickets.updateTicket(org, a.id, { priority: "high" })
      const all = yield* readFeed(org)
      const [row] = yield* sql<{ tx: string; position: string }>`
        SELECT transaction_id::text AS tx, global_position::text AS position FROM hd_events
        WHERE event_id = ${all.events[0].id}`
      // Written by hand in the format cursors have had since the feed shipped, not by the code under test.
      const kept = Buffer.from(`v1:${row!.tx}:${row!.position}`, "utf8").toString("base64url")
      assert.strictEqual(all.events[0].cursor, kept)
      const resumed = yield* feed(org, `?after=${kept}`)
      assert.strictEqual(resumed.status, 200, resumed.text)
      assert.deepStrictEqual(
        resumed.body.results.map((e: Json) => e.id),
        all.events.slice(1).map((e) => e.id)
      )
      const fromStart = yield* feed(org, `?after=${Buffer.from("v1:0:0").toString("base64url")}`)
      assert.deepStrictEqual(
        fromStart.body.results.map((e: Json) => e.id),
        all.events.map((e) => e.id)
      )
    })
  )

  it.effect("the feed refuses malformed cursors, types, waits and page sizes with 400 naming each", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const b64 = (text: string) => Buffer.from(text).toString("base64url")
      const badCursors = [
        "garbage!",
        "x".repeat(200),
        b64("v1:1:2:3"),
        b64("v2:1:2"),
        b64("v1:01:2"),
        b64("v1:-1:2"),
        b64("v1:18446744073709551616:1"),
        b64("v1:1:9223372036854775808"),
        `${encodeCursor(checkpointOf({ transactionId: 5n, globalPosition: 6n }))}=`,
        "%00",
        "1"
      ]
      for (const cursor of badCursors) {
        const response = yield* feed(org, `?after=${encodeURIComponent(cursor)}`)
        assert.strictEqual(response.status, 400, `${cursor}: ${response.text}`)
        assert.isArray(response.body.after ?? response.body.detail ?? response.body, cursor)
      }
      const garbage = yield* feed(org, "?after=garbage")
      assert.deepStrictEqual(garbage.body, { after: ["Invalid cursor. Pass a `cursor` the feed answered."] })
      const all = yield* feed(org, "?after=nope&wait=31&page_size=0&types=Nope")
      assert.strictEqual(all.status, 400)
      assert.deepStrictEqual(Object.keys(all.body).sort(), ["after", "page_size", "types", "wait"])
      assert.deepStrictEqual(all.body.wait, ["Ensure this value is less than or equal to 30."])
      assert.include(all.body.types[0], "Unknown event type: Nope. Allowed: TicketCreated, ")
      for (const wait of ["-1", "1.5", "x", "1e1"])
        assert.strictEqual((yield* feed(org, `?wait=${wait}`)).status, 400, wait)
      assert.strictEqual((yield* feed(org, "?wait=0")).status, 200)
      assert.strictEqual((yield* feed(org, "?page_size=1")).status, 200)
      const clamped = yield* feed(org, "?page_size=100000")
      assert.strictEqual(clamped.status, 200)
      const maxCursor = encodeCursor(
        checkpointOf({ transactionId: 18446744073709551615n, globalPosition: 9223372036854775807n })
      )
      const atEnd = yield* feed(org, `?after=${maxCursor}`)
      assert.strictEqual(atEnd.status, 200)
      assert.deepStrictEqual(atEnd.body.results, [])
      assert.strictEqual(atEnd.body.cursor, maxCursor)
      // Not a member → 404; no token → 401.
      const outsider = yield* Fixtures.outsider
      assert.strictEqual((yield* feed(org, "", outsider)).status, 404)
      assert.strictEqual((yield* feed(org, "", "")).status, 401)
    })
  )

  it.effect("long-poll: a waiting read answers as soon as an event arrives, and empty when the wait is over", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const end = yield* feedEnd(org)
      const began = Date.now()
      const empty = yield* feed(org, `?after=${end}&wait=1`)
      const waited = Date.now() - began
      assert.strictEqual(empty.status, 200)
      assert.deepStrictEqual(empty.body.results, [])
      assert.strictEqual(empty.body.cursor, end)
      assert.isAtLeast(waited, 1000)
      assert.isBelow(waited, 5000)

      const waiting = yield* Effect.fork(
        Effect.map(feed(org, "?after=now&wait=30"), (response) => ({ response, at: Date.now() }))
      )
      yield* Effect.sleep("700 millis")
      const written = Date.now()
      const t = yield* Tickets.ticket(org, { subject: "Wakes the reader" })
      const { response, at } = yield* Fiber.join(waiting)
      assert.strictEqual(response.status, 200, response.text)
      assert.deepStrictEqual(
        response.body.results.map((e: Json) => [e.ticket_id, e.type]),
        [
          [t.id, "TicketCreated"],
          [t.id, "TicketLanguageDetected"]
        ]
      )
      // Answered when the event came, not at the end of the wait (the bound allows for a busy shared server).
      assert.isBelow(at - written, 20_000)
      assert.isAtLeast(at - began, 700)
    })
  )
})

// PGlite serves one session: a second transaction cannot run while the first is open.
describe.runIf(usesRealPostgres)("the change feed with concurrent writers committing out of order", () => {
  layer(TestAppLive, { excludeTestServices: true })((it) => {
    it.effect("every event shows once, in log order, though later transactions commit first", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* Effect.provide(PostgresEventStore, rawStore)
        const [org, other] = yield* Tickets.organizationAndAnother
        let cursor = yield* feedEnd(org)
        const seen: Array<Json> = []
        const poll = Effect.gen(function* () {
          const response = yield* feed(org, `?after=${cursor}&page_size=3`)
          assert.strictEqual(response.status, 200, response.text)
          seen.push(...response.body.results)
          cursor = response.body.cursor
          return response.body.results.length as number
        })

        // Six writers take their transaction ids in order, append two events each (one writer of another
        // organization between them), and then commit in reverse order while the feed is read throughout.
        const writers: Array<{
          ids: ReadonlyArray<string>
          commit: Deferred.Deferred<void>
          done: Fiber.RuntimeFiber<void>
        }> = []
        for (let i = 0; i < 6; i++) {
          const organizationId = i === 2 ? other.organizationId : org.organizationId
          const stream = rawTicketStream(organizationId)
          const second: NewEvent = { ...stream.created, eventId: randomUUID(), type: "TicketSummarized" }
          const appended = yield* Deferred.make<void>()
          const commit = yield* Deferred.make<void>()
          const done = yield* Effect.fork(
            sql
              .withTransaction(
                Effect.gen(function* () {
                  yield* sql`SELECT pg_current_xact_id()`
                  yield* store.append([
                    {
                      streamId: stream.streamId,
                      streamType: "ticket",
                      expected: ExpectedVersion.noStream,
                      events: [stream.created, second]
                    }
                  ])
                  yield* Deferred.succeed(appended, undefined)
                  yield* Deferred.await(commit)
                })
              )
              .pipe(Effect.orDie)
          )
          yield* Deferred.await(appended)
          writers.push({ ids: i === 2 ? [] : [stream.created.eventId, second.eventId], commit, done })
        }
        for (const writer of [...writers].reverse()) {
          yield* poll
          yield* Deferred.succeed(writer.commit, undefined)
          yield* Fiber.join(writer.done)
          yield* poll
        }
        yield* settled
        while ((yield* poll) > 0) {}

        const expected = writers.flatMap((w) => w.ids)
        assert.deepStrictEqual(
          seen.map((e) => e.id),
          expected
        )
        assert.strictEqual(new Set(seen.map((e) => e.id)).size, expected.length)
      })
    )
  })
})
