import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import { DateTime, Effect, Exit, Fiber, Layer, Stream } from "effect"
import { fileBlobStoreLayer } from "../src/Attachments/BlobStore.js"
import { PendingAttachments } from "../src/Attachments/PendingAttachments.js"
import type { Caller } from "../src/Auth/CurrentCaller.js"
import { ServicesLive } from "../src/Services.js"
import { TicketCommands } from "../src/Tickets/TicketCommands.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import { InactivityTimer } from "../src/Timers/InactivityTimer.js"
import { SnoozeTimer } from "../src/Timers/SnoozeTimer.js"
import type { SweepResult } from "../src/Timers/Sweep.js"
import { createTickets } from "./support/CommandTickets.js"
import * as Fixtures from "./support/Fixtures.js"
import { eventCounts, replicaPool, twoReplicas } from "./support/Replicas.js"

/**
 * Two app instances (each its own connection pool, services and timers, like two replicas) against one database:
 * every timer claims with `FOR UPDATE SKIP LOCKED`, so sweeping at once they share the work and act once per
 * ticket. Real PostgreSQL only: PGlite runs one session.
 */

const blobRoot = fs.mkdtempSync(path.join(os.tmpdir(), "hd-replicas-"))
const blobExists = (id: string) => fs.existsSync(path.join(blobRoot, id.slice(0, 2), id))

/** Both replicas keep files in one place (a shared volume), as they must to serve each other's uploads. */
const SharedBlobAttachments = PendingAttachments.DefaultWithoutDependencies.pipe(
  Layer.provide(fileBlobStoreLayer(blobRoot).pipe(Layer.provide(NodeFileSystem.layer)))
)

/** One replica: the timers, the ticket services and the repositories on a pool of its own. */
const instance = (url: string, name: string) =>
  Layer.mergeAll(SnoozeTimer.Default, InactivityTimer.Default).pipe(
    Layer.provideMerge(TicketServicesLive),
    Layer.provideMerge(ServicesLive),
    // Last, so this `PendingAttachments` is the one the tests get.
    Layer.merge(SharedBlobAttachments),
    Layer.provideMerge(replicaPool(url, name, 6))
  )

const { on, suite, twiceOnEach } = twoReplicas("replica", instance)

const total = (results: ReadonlyArray<SweepResult>) => results.reduce((sum, r) => sum + r.acted, 0)

/** `count` tickets an associate created for a customer, in a new organization; returns it and their ids. */
const tickets = (count: number) =>
  Effect.gen(function* () {
    const org = yield* Fixtures.organization()
    const caller: Caller = { _tag: "Person", userId: org.ownerId, tokenId: 0 }
    const ids = yield* createTickets(org.organizationId, org.ownerId, count, (i) => ({
      subject: `Ticket ${i}`,
      description: "Waiting for the customer.",
      customerEmail: `customer-${i}@example.com`
    }))
    return { org, caller, ids }
  }).pipe(Effect.orDie)

/**
 * Creates `count` tickets on replica a, snoozed for the next hour; answers their ids and the snooze timer's sweep of a
 * minute after the hour, when every one of them is due.
 */
const dueSnoozedTickets = (count: number) =>
  Effect.gen(function* () {
    const until = DateTime.unsafeMake(Date.now() + 3_600_000)
    const made = yield* tickets(count)
    const commands = yield* TicketCommands
    yield* Effect.forEach(made.ids, (id) => commands.snooze(made.org.organizationId, made.caller, id, until), {
      concurrency: 6,
      discard: true
    }).pipe(Effect.orDie)
    const now = DateTime.unsafeMake(until.epochMillis + 60_000)
    return { ids: made.ids, sweep: Effect.flatMap(SnoozeTimer, (timer) => timer.sweep(now)) }
  }).pipe(on("a"))

suite("timers on two replicas", (it) => {
  it.effect(
    "given 240 due snoozed tickets, when both replicas sweep at once, then each is unsnoozed exactly once",
    () =>
      Effect.gen(function* () {
        const { ids, sweep } = yield* dueSnoozedTickets(240)
        const results = yield* twiceOnEach(sweep)
        const byA = total(results.a)
        const byB = total(results.b)
        assert.strictEqual(byA + byB, 240)
        assert.isAbove(byA, 0, "replica a took a share")
        assert.isAbove(byB, 0, "replica b took a share")
        assert.deepStrictEqual(
          yield* on("a")(eventCounts(ids, "TicketUnsnoozed")),
          ids.map(() => 1)
        )
        const sql = yield* on("b")(SqlClient.SqlClient)
        const reasons = yield* sql<{ reason: string; n: string }>`
          SELECT view ->> 'lastUnsnoozeReason' AS reason, count(*) AS n FROM hd_tickets
          WHERE ticket_id = ANY(${ids}::bigint[]) GROUP BY 1`
        assert.deepStrictEqual(
          reasons.map((r) => [r.reason, Number(r.n)]),
          [["timer", 240]]
        )
      })
  )

  it.effect(
    "given a replica whose database connection dies in the middle of a sweep, then the other finishes it, each ticket once",
    () =>
      Effect.gen(function* () {
        const { ids, sweep } = yield* dueSnoozedTickets(150)
        const crashing = yield* Effect.fork(Effect.exit(on("b")(sweep)))
        // Kill replica b's sessions once it has committed something (or after a while): its open batch is lost.
        const sql = yield* on("a")(SqlClient.SqlClient)
        for (let i = 0; i < 200; i++) {
          const [done] = yield* eventCounts(ids, "TicketUnsnoozed").pipe(
            Effect.map((counts) => [counts.filter((n) => n > 0).length]),
            on("a")
          )
          if (done! > 0) break
          yield* Effect.sleep("10 millis")
        }
        yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'replica-b'`
        const crashed = yield* Fiber.join(crashing)
        yield* on("a")(sweep)
        assert.deepStrictEqual(
          yield* on("a")(eventCounts(ids, "TicketUnsnoozed")),
          ids.map(() => 1),
          `replica b ${Exit.isFailure(crashed) ? "crashed in the middle" : "had finished before the crash"}`
        )
      })
  )

  it.effect(
    "given 80 tickets due for a reminder, when both replicas sweep at once, then each gets one reminder and one e-mail",
    () =>
      Effect.gen(function* () {
        const { org, ids } = yield* on("a")(tickets(80))
        const sql = yield* on("a")(SqlClient.SqlClient)
        yield* sql`
            UPDATE inboxes SET enable_inactivity_reminders = true, customer_inactivity_reminder_period = 1
            WHERE organization_id = ${org.organization.id}`
        const now = DateTime.unsafeMake(Date.now() + 2 * 86_400_000)
        const sweep = Effect.flatMap(InactivityTimer, (timer) => timer.sweep(now))
        const results = yield* twiceOnEach(sweep)
        assert.strictEqual(total([...results.a, ...results.b]), 80)
        const messages = yield* sql<{ ticketId: string; n: string }>`
            SELECT ticket_id, count(*) AS n FROM hd_ticket_messages
            WHERE ticket_id = ANY(${ids}::bigint[]) AND view ->> 'role' = 'system' GROUP BY ticket_id`
        assert.deepStrictEqual(
          messages.map((m) => Number(m.n)),
          ids.map(() => 1)
        )
        const mails = yield* sql<{ n: string }>`
            SELECT count(*) AS n FROM hd_outbox WHERE ticket_id = ANY(${ids}::bigint[]) AND kind = 'message'`
        assert.strictEqual(Number(mails[0]!.n), 80)
        const reminded = yield* sql<{ n: string }>`
            SELECT count(*) AS n FROM hd_inactivity_reminders WHERE ticket_id = ANY(${ids}::bigint[])`
        assert.strictEqual(Number(reminded[0]!.n), 80)
      })
  )

  it.effect("given 60 expired uploads, when both replicas reap at once, then each is deleted once, row and file", () =>
    Effect.gen(function* () {
      const org = yield* on("a")(Fixtures.organization())
      const caller: Caller = { _tag: "Person", userId: org.ownerId, tokenId: 0 }
      const uploads = yield* on("a")(
        Effect.flatMap(PendingAttachments, (attachments) =>
          Effect.forEach(
            Array.from({ length: 60 }, (_, i) => i),
            (i) =>
              attachments.upload({
                organizationId: org.organizationId,
                caller,
                fileName: `f${i}.txt`,
                contentType: "text/plain",
                content: Stream.make(new TextEncoder().encode(`file ${i}`))
              }),
            { concurrency: 6 }
          )
        )
      )
      const kept = uploads.pop()!
      const ids = uploads.map((u) => u.id)
      const sql = yield* on("a")(SqlClient.SqlClient)
      yield* sql`UPDATE attachments SET expires_at = now() - interval '1 minute' WHERE id IN ${sql.in(ids)}`
      const reapAll = Effect.flatMap(PendingAttachments, (attachments) =>
        Effect.gen(function* () {
          let reaped = 0
          for (;;) {
            const n = yield* attachments.reapExpired(7)
            reaped += n
            if (n === 0) return reaped
          }
        })
      )
      const reaped = yield* twiceOnEach(reapAll)
      assert.strictEqual(
        [...reaped.a, ...reaped.b].reduce((a, b) => a + b, 0),
        59
      )
      const left = yield* sql<{
        id: string
      }>`SELECT id FROM attachments WHERE organization_id = ${org.organization.id}`
      assert.deepStrictEqual(
        left.map((row) => row.id),
        [kept.id]
      )
      assert.deepStrictEqual(ids.filter(blobExists), [])
      assert.isTrue(blobExists(kept.id))
    })
  )
})
