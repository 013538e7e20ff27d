import { SqlClient } from "@effect/sql"
import { RecordSlaBreach, systemActor } from "@helpdesk/domain"
import { Console, DateTime, Effect } from "effect"
import { SLA_BREACH_BATCH, SlaBreachTimerLive } from "../src/Sla/SlaBreachTimer.js"
import { SlaPolicies } from "../src/Sla/SlaPolicies.js"
import type { SlaPolicyCreate } from "../src/Sla/SlaPolicy.js"
import type { Benchmark } from "./Benchmark.js"
import {
  appendDirectly,
  createTickets,
  directBaseline,
  type Seeded,
  seedTarget,
  spreadThenBurst,
  timerBenchRun
} from "./TimerBench.js"

/**
 * SLA breach lag: `BENCH_SLA_TICKETS` (default 10,000) tickets whose resolution target falls due at instants spread
 * evenly over `BENCH_SLA_WINDOW` seconds (default 30), breached by the service's own loop (`SlaBreachTimerLive`, at
 * its default interval unless `SLA_BREACH_TIMER_INTERVAL` is set) on real PostgreSQL. The tickets are opened (their
 * `TicketCreated` instant) 60 minutes before their due instant under a 60-calendar-minute resolution policy, so the
 * due times are the service's own computation. Lag = the `TicketSlaBreached` event's `at` (stamped by the write,
 * just before its batch commits) − its `dueAt`; "visible" = when a reader polling `hd_ticket_sla.breached` every
 * 250 ms first saw it. A second set all due at one instant measures breaches/s while the loop drains a backlog.
 * Baseline in the same run: the same `RecordSlaBreach` writes appended directly in batches of the timer's size (the
 * timer's write path with its inline projections, no claiming query, no waiting for a round): the timer's ceiling.
 */

const TICKETS = Number(process.env.BENCH_SLA_TICKETS ?? 10_000)
const WINDOW_SECONDS = Number(process.env.BENCH_SLA_WINDOW ?? 30)
const RESOLUTION_MINUTES = 60
const MINUTE_MS = 60_000

/** One organization with one policy (resolution in 60 calendar minutes, never paused) and tickets due when told. */
const seeder = Effect.gen(function* () {
  const target = yield* seedTarget("bench-sla@example.com", "SLA bench", "SLA ticket")
  const policy = yield* (yield* SlaPolicies).create(target.organizationId, {
    name: "Bench",
    resolution_minutes: RESOLUTION_MINUTES,
    business_hours: false,
    pause_when_waiting_on_customer: false
  } as SlaPolicyCreate)

  /** Tickets whose resolution falls due at `dueOf(i)` (epoch ms). */
  const create = (count: number, dueOf: (i: number) => number) =>
    createTickets(target, count, (i) => DateTime.unsafeMake(dueOf(i) - RESOLUTION_MINUTES * MINUTE_MS))

  /** The ceiling: the timer's events for `tickets`, appended directly, `batch` streams per append, in sequence. */
  const breachDirectly = (tickets: Seeded, dueAt: number, batch: number) =>
    appendDirectly(
      tickets,
      batch,
      1,
      (ticketId, at) =>
        new RecordSlaBreach({
          ticketId,
          at,
          actor: systemActor,
          policyId: policy.id,
          target: "resolution",
          dueAt: DateTime.unsafeMake(dueAt)
        })
    )

  return { create, breachDirectly } as const
})

/** The service's breach loop; a reader polling `hd_ticket_sla.breached` sees a ticket breached. */
const breachTimer = {
  loop: SlaBreachTimerLive,
  eventType: "TicketSlaBreached",
  dueName: "due",
  unit: "breach",
  done: (pending: ReadonlyArray<number>) =>
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ ticketId: string }>`
        SELECT ticket_id FROM hd_ticket_sla WHERE ticket_id = ANY(${pending}::bigint[]) AND breached`
    )
}

const run = timerBenchRun(
  "sla",
  `${TICKETS} tickets per set, loop interval ${process.env.SLA_BREACH_TIMER_INTERVAL ?? "1 second (default)"}, batches of ${SLA_BREACH_BATCH}`,
  Effect.gen(function* () {
    const seed = yield* seeder

    // Baseline: tickets already due (no timer runs yet), their breaches appended directly.
    const seedStart = performance.now()
    const baseDue = Date.now() - 1000
    const baseTickets = yield* seed.create(TICKETS, () => baseDue)
    const seedSeconds = (performance.now() - seedStart) / 1000
    yield* Console.log(`seeded:       ${TICKETS} tickets in ${seedSeconds.toFixed(1)} s (each set)`)
    const baseRate = yield* directBaseline(seed.breachDirectly(baseTickets, baseDue, SLA_BREACH_BATCH), {
      eventType: "TicketSlaBreached",
      units: "breaches",
      batch: SLA_BREACH_BATCH,
      count: TICKETS
    })

    // Spread, then burst: each set seeded just before it falls due.
    yield* spreadThenBurst({
      tickets: TICKETS,
      windowSeconds: WINDOW_SECONDS,
      setupSeconds: seedSeconds,
      firstDueName: "the first due instant",
      burstDueName: "the due instant",
      spread: (dueOf) => seed.create(TICKETS, dueOf),
      burst: (dueOf) => seed.create(TICKETS, dueOf),
      timer: breachTimer,
      baseRate
    })
  })
)

/** SLA breach lag with 10,000 tickets falling due, beside the direct writes' ceiling. */
export const slaBreachBenchmark: Benchmark = {
  name: "sla-breach",
  description:
    "SLA breach lag (due instant → TicketSlaBreached) with 10,000 tickets falling due, against direct writes",
  run
}
