import { SqlClient } from "@effect/sql"
import { SnoozeTicket, SnoozeTimerElapsed, systemActor } from "@helpdesk/domain"
import { Console, DateTime, Effect } from "effect"
import { SNOOZE_BATCH, SnoozeTimerLive } from "../src/Timers/SnoozeTimer.js"
import type { Benchmark } from "./Benchmark.js"
import {
  appendDirectly,
  createTickets,
  directBaseline,
  type Seeded,
  seedCommands,
  seedTarget,
  spreadThenBurst,
  timerBenchRun
} from "./TimerBench.js"

/**
 * Snooze-timer lag: `BENCH_SNOOZE_TICKETS` (default 10,000) tickets snoozed until instants spread evenly over
 * `BENCH_SNOOZE_WINDOW` seconds (default 60), unsnoozed by the service's own loop (`SnoozeTimerLive`, at its
 * default interval unless `SNOOZE_TIMER_INTERVAL` is set) on real PostgreSQL. Lag = the `TicketUnsnoozed` event's
 * `at` (stamped by the write, just before its batch commits) − the ticket's `snoozed_until`; "visible" = when a
 * reader polling `hd_tickets` every 250 ms first saw the ticket unsnoozed. A second set all due at one instant
 * measures how fast the loop drains a backlog. Baseline in the same run: the same `SnoozeTimerElapsed` writes
 * issued directly in a tight loop (the timer's own write path, batches of the same size, no claiming query, no
 * waiting for a round): the ceiling of the timer.
 */

const TICKETS = Number(process.env.BENCH_SNOOZE_TICKETS ?? 10_000)
const WINDOW_SECONDS = Number(process.env.BENCH_SNOOZE_WINDOW ?? 60)

/** Tickets in one organization, created (and snoozed) through the domain's decider, many streams per append. */
const seeder = Effect.gen(function* () {
  const target = yield* seedTarget("bench-snooze@example.com", "Snooze bench", "Snoozed ticket")
  const { actor } = target

  /** Creates `count` tickets (waiting on the customer, as an associate's would); returns their ids and states. */
  const create = (count: number) => Effect.flatMap(DateTime.now, (at) => createTickets(target, count, () => at))

  /** Snoozes each ticket until `untilOf(i)`; returns their states after. */
  const snooze = (tickets: Seeded, untilOf: (i: number) => number) =>
    Effect.flatMap(DateTime.now, (at) =>
      seedCommands(
        tickets,
        1,
        (ticketId, i) => new SnoozeTicket({ ticketId, at, actor, until: DateTime.unsafeMake(untilOf(i)) })
      )
    )

  /**
   * The ceiling: the timer's events for snoozed `tickets` (stream version 2), decided in memory and appended
   * directly, `batch` streams per append (one commit each), one append after another.
   */
  const unsnoozeDirectly = (tickets: Seeded, snoozedUntil: number, batch: number) =>
    appendDirectly(
      tickets,
      batch,
      2,
      (ticketId, at) =>
        new SnoozeTimerElapsed({ ticketId, at, actor: systemActor, snoozedUntil: DateTime.unsafeMake(snoozedUntil) })
    )

  return { organizationId: target.organizationId, create, snooze, unsnoozeDirectly } as const
})

/** The service's snooze loop; a reader polling `hd_tickets` sees a ticket unsnoozed. */
const snoozeTimer = {
  loop: SnoozeTimerLive,
  eventType: "TicketUnsnoozed",
  dueName: "snoozed_until",
  unit: "unsnooze",
  done: (pending: ReadonlyArray<number>) =>
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql<{ ticketId: string }>`
        SELECT ticket_id FROM hd_tickets WHERE ticket_id = ANY(${pending}::bigint[]) AND snoozed_until IS NULL`
    )
}

const run = timerBenchRun(
  "snooze",
  `${TICKETS} tickets per set, loop interval ${process.env.SNOOZE_TIMER_INTERVAL ?? "1 second (default)"}, batches of ${SNOOZE_BATCH}`,
  Effect.gen(function* () {
    const seed = yield* seeder

    // Every ticket first (three sets), then each set's snoozes just before its scenario.
    const seedStart = performance.now()
    const baseTickets = yield* seed.create(TICKETS)
    const spreadTickets = yield* seed.create(TICKETS)
    const burstTickets = yield* seed.create(TICKETS)
    const createSeconds = (performance.now() - seedStart) / 1000
    yield* Console.log(`seeded:       ${3 * TICKETS} tickets in ${createSeconds.toFixed(1)} s`)

    // Baseline: the same events appended directly, one batch after another.
    const snoozeStart = performance.now()
    const dueAt = Date.now() + 1000
    const snoozedBase = yield* seed.snooze(baseTickets, () => dueAt)
    const snoozeSeconds = (performance.now() - snoozeStart) / 1000
    yield* Console.log(`snoozed:      ${TICKETS} tickets in ${snoozeSeconds.toFixed(1)} s`)
    yield* Effect.sleep(`${Math.max(0, dueAt - Date.now())} millis`)
    const baseRate = yield* directBaseline(seed.unsnoozeDirectly(snoozedBase, dueAt, SNOOZE_BATCH), {
      eventType: "TicketUnsnoozed",
      units: "unsnoozes",
      batch: SNOOZE_BATCH,
      count: baseTickets.length
    })

    // Spread, then burst: each set snoozed just before it falls due.
    yield* spreadThenBurst({
      tickets: TICKETS,
      windowSeconds: WINDOW_SECONDS,
      setupSeconds: snoozeSeconds,
      firstDueName: "the first snoozed_until",
      burstDueName: "snoozed_until",
      spread: (untilOf) => seed.snooze(spreadTickets, untilOf),
      burst: (untilOf) => seed.snooze(burstTickets, untilOf),
      timer: snoozeTimer,
      baseRate
    })
  })
)

/** Snooze-timer lag with 10,000 snoozed tickets, beside the direct writes' ceiling. */
export const snoozeTimerBenchmark: Benchmark = {
  name: "snooze-timer",
  description: "snooze-timer lag (snoozed_until → unsnooze) with 10,000 snoozed tickets, against direct writes",
  run
}
