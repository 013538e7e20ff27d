import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { ServicesLive } from "../src/Services.js"
import { SlaBreachTimer } from "../src/Sla/SlaBreachTimer.js"
import { SlaPolicies } from "../src/Sla/SlaPolicies.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import { createTickets } from "./support/CommandTickets.js"
import * as Fixtures from "./support/Fixtures.js"
import { eventCounts, replicaPool, twoReplicas } from "./support/Replicas.js"

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

const { on, suite, twiceOnEach } = twoReplicas("sla-replica", instance)

/** `count` tickets of a new organization whose one policy wants them resolved within `minutes` calendar minutes. */
const dueTickets = (count: number, minutes: number) =>
  Effect.gen(function* () {
    const org = yield* Fixtures.organization()
    yield* Effect.flatMap(SlaPolicies, (policies) =>
      policies.create(org.organizationId, {
        name: "Fast",
        resolution_minutes: minutes,
        business_hours: false,
        pause_when_waiting_on_customer: false
      })
    )
    return yield* createTickets(org.organizationId, org.ownerId, count, (i) => ({
      subject: `Ticket ${i}`,
      description: "Please resolve.",
      customerEmail: `customer-${i}@example.com`
    }))
  }).pipe(Effect.orDie)

suite("SLA breach timer on two replicas", (it) => {
  it.effect(
    "given 200 tickets past their resolution target, when both replicas sweep at once, each breach is written once",
    () =>
      Effect.gen(function* () {
        const ids = yield* on("a")(dueTickets(200, 1))
        const now = DateTime.unsafeMake(Date.now() + 10 * 60_000)
        const sweep = Effect.flatMap(SlaBreachTimer, (timer) => timer.sweep(now))
        const results = yield* twiceOnEach(sweep)
        const byA = results.a[0].acted + results.a[1].acted
        const byB = results.b[0].acted + results.b[1].acted
        assert.strictEqual(byA + byB, 200)
        assert.deepStrictEqual(
          yield* on("b")(eventCounts(ids, "TicketSlaBreached")),
          ids.map(() => 1)
        )
        const sql = yield* on("b")(SqlClient.SqlClient)
        const flags = yield* sql<{ n: string }>`
          SELECT count(*) AS n FROM hd_ticket_sla
          WHERE ticket_id = ANY(${ids}::bigint[]) AND breached AND next_breach_at IS NULL`
        assert.strictEqual(Number(flags[0]!.n), 200)
        // Swept again later: nothing more.
        const again = yield* on("a")(sweep)
        assert.strictEqual(again.acted, 0)
      })
  )
})
