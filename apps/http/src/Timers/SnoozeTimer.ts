import { SqlClient } from "@effect/sql"
import { SnoozeTimerElapsed, systemActor } from "@helpdesk/domain"
import { DateTime, Effect, Layer } from "effect"
import { TicketCommands } from "../Tickets/TicketCommands.js"
import { type BatchResult, drain, forEachClaimed, TIMER_BATCH, timerLoop } from "./Sweep.js"

interface DueRow {
  readonly ticketId: string
  readonly organizationId: string
  readonly snoozedUntil: Date
}

/**
 * The snooze timer (docs/decisions/0760-timers.md): tickets whose `snoozed_until` has passed get
 * `SnoozeTimerElapsed`, which unsnoozes them with reason `timer`.
 *
 * A batch is claimed in one transaction with `FOR UPDATE SKIP LOCKED` on the ticket's read-model row and its
 * stream row, so replicas take disjoint batches, and a ticket whose stream another writer holds is left for the
 * next round instead of waited for (writers lock the stream row, then the read-model row: taking both without
 * waiting can never deadlock with them). Each ticket is then written through `TicketCommands.asSystem` in a
 * savepoint; the batch commits once. The command carries the `snoozed_until` the timer found, so a ticket
 * re-snoozed meanwhile ignores it (the domain calls the timer stale), and one already unsnoozed does too: at most
 * one `TicketUnsnoozed` per snooze, however many replicas sweep and whatever crashes in between.
 */
export class SnoozeTimer extends Effect.Service<SnoozeTimer>()("@helpdesk/http/Timers/SnoozeTimer", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const commands = yield* TicketCommands

    /** One claiming transaction: up to `limit` tickets due at `now`. */
    const sweepBatch = (now: DateTime.Utc, limit = TIMER_BATCH): Effect.Effect<BatchResult> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const due = yield* sql<DueRow>`
              SELECT t.ticket_id, t.organization_id, t.snoozed_until
              FROM hd_tickets t JOIN hd_streams s ON s.stream_id = t.stream_id
              WHERE t.snoozed_until <= ${DateTime.toDateUtc(now)}
              ORDER BY t.snoozed_until
              LIMIT ${limit}
              FOR UPDATE OF t, s SKIP LOCKED`
            return yield* forEachClaimed(
              "Snooze timer",
              due,
              (row) => Number(row.ticketId),
              (row) => {
                const ticketId = Number(row.ticketId)
                const snoozedUntil = DateTime.unsafeFromDate(row.snoozedUntil)
                let fires = false
                return commands
                  .asSystem(Number(row.organizationId), ticketId, (ticket, at) => {
                    fires = ticket.snoozedUntil?.epochMillis === snoozedUntil.epochMillis
                    // The write's instant, or the sweep's `now` when a caller sweeps ahead of the clock (tests).
                    const when = DateTime.max(at, now)
                    return Effect.succeed([
                      new SnoozeTimerElapsed({ ticketId, at: when, actor: systemActor, snoozedUntil })
                    ])
                  })
                  .pipe(Effect.map(() => fires))
              }
            )
          })
        )
        .pipe(Effect.orDie, Effect.withSpan("SnoozeTimer.sweepBatch"))

    /**
     * Unsnoozes every ticket due at `now` (batch after batch while they come back full); what the loop runs each
     * round with the clock's now. Callers may pass a later `now` to act as if that time had come.
     */
    const sweep = (now: DateTime.Utc) =>
      drain(Effect.succeed(now), (at) => sweepBatch(at), TIMER_BATCH).pipe(Effect.withSpan("SnoozeTimer.sweep"))

    /** One round of the loop: batches until none is full, each at the clock's now. */
    const sweepDue = drain(DateTime.now, (now) => sweepBatch(now), TIMER_BATCH)

    return { sweep, sweepBatch, sweepDue } as const
  })
}) {}

/**
 * The snooze timer's loop in every replica: a round every `SNOOZE_TIMER_INTERVAL` (default 1 second), so a
 * ticket is unsnoozed about an interval after its `snoozed_until`, plus the time to work off what is due.
 */
export const SnoozeTimerLive = timerLoop(
  "Snooze timer",
  "SNOOZE_TIMER_INTERVAL",
  "1 second",
  Effect.flatMap(SnoozeTimer, (timer) => timer.sweepDue)
).pipe(Layer.provide(SnoozeTimer.Default))
