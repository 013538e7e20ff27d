import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { ticketStreamId } from "@helpdesk/domain"
import { DateTime, Effect, Layer } from "effect"
import type { Caller } from "../src/Auth/CurrentCaller.js"
import { ServicesLive } from "../src/Services.js"
import { SlaBreachTimer } from "../src/Sla/SlaBreachTimer.js"
import { SlaPolicies } from "../src/Sla/SlaPolicies.js"
import { TicketCommands } from "../src/Tickets/TicketCommands.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import * as Fixtures from "./support/Fixtures.js"
import { replicaPool, twoReplicas } from "./support/Replicas.js"
import { usesRealPostgres } from "./support/TestDatabase.js"

/**
 * Two app instances (each its own pool, like two replicas) sweep the SLA breach timer at once: each breach is
 * written exactly once (decision 0503). Real PostgreSQL only: PGlite runs one session.
 */

const instance = (url: string, name: string) =>
  Layer.mergeAll(SlaBreachTimer.Default, SlaPolicies.Default).pipe(
    Layer.provideMerge(TicketServicesLive),
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(replicaPool(url, name, 6))
  )

const { layer: ReplicasLive, on } = twoReplicas("sla-replica", instance)

/** `count` tickets of a new organization whose one policy wants them resolved within `minutes` calendar minutes. */
const dueTickets = (count: number, minutes: number) =>
  Effect.gen(function* () {
    const org = yield* Fixtures.organization()
    yield* Effect.flatMap(SlaPolicies, (policies) =>
      policies.create(org.organization.id, {
        name: "Fast",
        resolution_minutes: minutes,
        business_hours: false,
        pause_when_waiting_on_customer: false
      })
    )
    const commands = yield* TicketCommands
    const caller: Caller = { _tag: "Person", userId: org.ownerId, tokenId: 0 }
    return yield* Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) =>
        Effect.map(
          commands.create({
            organizationId: org.organization.id,
            caller,
            createdByRole: "associate",
            subject: `Ticket ${i}`,
            description: "Please resolve.",
            descriptionHtml: "",
            kind: "text",
            inboxId: undefined,
            customer: { _tag: "ByEmail", email: `customer-${i}@example.com`, name: "" },
            origin: "api",
            channel: { type: "api", connectionId: null },
            externalRecipientEmails: [],
            bccRecipientEmails: [],
            tagIds: [],
            priority: "not_set",
            assigneeId: null,
            attachmentIds: []
          }),
          (ticket) => ticket.id
        ),
      { concurrency: 6 }
    )
  }).pipe(Effect.orDie)

describe.runIf(usesRealPostgres)("SLA breach timer on two replicas", () => {
  layer(ReplicasLive, { timeout: "120 seconds", excludeTestServices: true })("one database", (it) => {
    it.effect(
      "given 200 tickets past their resolution target, when both replicas sweep at once, each breach is written once",
      () =>
        Effect.gen(function* () {
          const ids = yield* on("a")(dueTickets(200, 1))
          const now = DateTime.unsafeMake(Date.now() + 10 * 60_000)
          const sweep = Effect.flatMap(SlaBreachTimer, (timer) => timer.sweep(now))
          const results = yield* Effect.all([on("a")(sweep), on("a")(sweep), on("b")(sweep), on("b")(sweep)], {
            concurrency: "unbounded"
          })
          const byA = results[0]!.acted + results[1]!.acted
          const byB = results[2]!.acted + results[3]!.acted
          assert.strictEqual(byA + byB, 200)
          const sql = yield* on("b")(SqlClient.SqlClient)
          const counts = yield* sql<{ streamId: string; n: string }>`
          SELECT stream_id, count(*) AS n FROM hd_events
          WHERE event_type = 'TicketSlaBreached' AND stream_id = ANY(${ids.map(ticketStreamId)}::text[])
          GROUP BY stream_id`
          assert.strictEqual(counts.length, 200)
          assert.isTrue(counts.every((row) => Number(row.n) === 1))
          const flags = yield* sql<{ n: string }>`
          SELECT count(*) AS n FROM hd_ticket_sla
          WHERE ticket_id = ANY(${ids}::bigint[]) AND breached AND next_breach_at IS NULL`
          assert.strictEqual(Number(flags[0]!.n), 200)
          // Swept again later: nothing more.
          const again = yield* on("a")(Effect.flatMap(SlaBreachTimer, (timer) => timer.sweep(now)))
          assert.strictEqual(again.acted, 0)
        })
    )
  })
})
