import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { ExpectedVersion, GlobalCheckpointStart, OrganizationId } from "@helpdesk/domain"
import { Effect, Exit } from "effect"
import eventOrganizations from "../src/Database/migrations/0096_event_organizations.js"
import { PostgresEventStore } from "../src/EventStore/PostgresEventStore.js"
import * as Fixtures from "./eventstore/fixtures.js"
import { usesRealPostgres } from "./support/TestDatabase.js"

/** A stream whose first event names organization `org` (as a ticket's `TicketCreated` does). */
const createdIn = (org: number | string, type = "Created") => Fixtures.newEvent(type, { organizationId: String(org) })

/** Everything the organization's log holds after the start (every transaction before this call ended first). */
const organizationLog = (org: number, types?: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const organizationId = OrganizationId.make(String(org))
    const store = yield* PostgresEventStore
    yield* Fixtures.settled
    return (yield* store.readAll(
      GlobalCheckpointStart,
      10_000,
      types === undefined ? { organizationId } : { organizationId, types }
    )).events
  })

describe("events tied to organizations (migration 0096)", () => {
  layer(Fixtures.eventStoreOnFreshDatabase(), { timeout: Fixtures.databaseStartup })((it) => {
    it.effect("every event of a stream carries the organization its first event names; others carry none", () =>
      Effect.gen(function* () {
        const store = yield* PostgresEventStore
        const sql = yield* SqlClient.SqlClient
        const one = Fixtures.freshStream("ticket")
        const two = Fixtures.freshStream("ticket")
        const none = Fixtures.freshStream("other")
        const odd = Fixtures.freshStream("odd")
        const first = createdIn(101)
        const later = Fixtures.newEvent("Later", { organizationId: "102" })
        const theirs = createdIn(102)
        yield* store.append([Fixtures.appendTo(one, ExpectedVersion.noStream, [first])])
        yield* store.append([Fixtures.appendTo(two, ExpectedVersion.any, [theirs])])
        // A later event naming another organization does not move the stream.
        yield* store.append([Fixtures.appendTo(one, ExpectedVersion.exact(1), [later])])
        const third = Fixtures.newEvent("Third")
        yield* store.append([Fixtures.appendTo(one, ExpectedVersion.streamExists, [third])])
        yield* store.append([Fixtures.appendTo(none, ExpectedVersion.noStream, [Fixtures.newEvent("X", { n: 1 })])])
        yield* store.append([
          Fixtures.appendTo(odd, ExpectedVersion.noStream, [Fixtures.newEvent("X", { organizationId: "acme" })])
        ])

        const rows = yield* sql<{ streamId: string; organizationId: string | null }>`
          SELECT stream_id, organization_id FROM hd_events
          WHERE stream_id IN (${one}, ${two}, ${none}, ${odd}) ORDER BY global_position`
        expect(rows.map((r) => [r.streamId, r.organizationId === null ? null : Number(r.organizationId)])).toEqual([
          [one, 101],
          [two, 102],
          [one, 101],
          [one, 101],
          [none, null],
          [odd, null]
        ])
        expect(Fixtures.idsOf(yield* organizationLog(101))).toEqual([first.eventId, later.eventId, third.eventId])
        expect(Fixtures.idsOf(yield* organizationLog(102))).toEqual([theirs.eventId])
        expect(Fixtures.idsOf(yield* organizationLog(101, ["Third", "Created"]))).toEqual([
          first.eventId,
          third.eventId
        ])
        expect(yield* organizationLog(101, [])).toEqual([])
      })
    )

    it.effect("the organization's reader uses the organization's index", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        // A fresh table is small: without this the planner would rather read all of it.
        const plan = yield* sql.withTransaction(
          Effect.zipRight(
            sql`SET LOCAL enable_seqscan = off`,
            sql<Record<string, string>>`
              EXPLAIN SELECT global_position FROM hd_events
              WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
                AND (transaction_id, global_position) > ('0'::xid8, 0::bigint) AND organization_id = 7
              ORDER BY transaction_id, global_position LIMIT 10`
          )
        )
        expect(plan.map((r) => Object.values(r).join("")).join("\n")).toContain("hd_events_organization_log_idx")
      })
    )
  })
})

describe("migration 0096 on a log written before it", () => {
  layer(Fixtures.eventStoreOnFreshDatabase(), { timeout: Fixtures.databaseStartup })((it) => {
    it.effect("fills in every stored event's organization and the stream's, then appends keep it", () =>
      Effect.gen(function* () {
        const store = yield* PostgresEventStore
        const sql = yield* SqlClient.SqlClient
        const one = Fixtures.freshStream("ticket")
        const none = Fixtures.freshStream("other")
        yield* store.append([
          Fixtures.appendTo(one, ExpectedVersion.noStream, [createdIn(301), Fixtures.newEvent("Later")])
        ])
        yield* store.append([Fixtures.appendTo(none, ExpectedVersion.noStream, [Fixtures.newEvent("X")])])
        // Back to the schema before 0096 (its function, column and index gone), then the migration again.
        yield* sql`DROP INDEX hd_events_organization_log_idx`
        yield* sql`ALTER TABLE hd_events DROP COLUMN organization_id`
        yield* sql`ALTER TABLE hd_streams DROP COLUMN organization_id`
        yield* sql`DROP FUNCTION hd_organization_of(jsonb)`
        yield* eventOrganizations
        const rows = yield* sql<{ streamId: string; organizationId: string | null }>`
          SELECT stream_id, organization_id FROM hd_events WHERE stream_id IN (${one}, ${none}) ORDER BY global_position`
        expect(rows.map((r) => [r.streamId, r.organizationId === null ? null : Number(r.organizationId)])).toEqual([
          [one, 301],
          [one, 301],
          [none, null]
        ])
        const third = Fixtures.newEvent("Third")
        yield* store.append([Fixtures.appendTo(one, ExpectedVersion.exact(2), [third])])
        expect((yield* organizationLog(301)).map((e) => e.type)).toEqual(["Created", "Later", "Third"])
        // Still append-only once filled in.
        const update = yield* Effect.exit(sql`UPDATE hd_events SET organization_id = 1 WHERE stream_id = ${one}`)
        expect(update._tag).toBe("Failure")
      })
    )
  })
})

// PGlite serves one session: a second transaction cannot run while the first is open.
describe.runIf(usesRealPostgres)("an organization's log with transactions committing out of order", () => {
  layer(Fixtures.eventStoreOnFreshDatabase(), { timeout: Fixtures.databaseStartup })((it) => {
    it.effect("B commits first: the reader shows nothing until A commits, then A's event before B's", () =>
      Effect.gen(function* () {
        const store = yield* PostgresEventStore
        const { eventA, eventB, finish } = yield* Fixtures.interleaved(createdIn(201, "A"), createdIn(201, "B"))
        expect(
          yield* store.readAll(GlobalCheckpointStart, 100, { organizationId: OrganizationId.make("201") })
        ).toEqual({
          events: [],
          checkpoint: GlobalCheckpointStart
        })
        expect(Exit.isSuccess(yield* finish(true))).toBe(true)
        expect(Fixtures.idsOf(yield* organizationLog(201))).toEqual([eventA.eventId, eventB.eventId])
      })
    )
  })
})
