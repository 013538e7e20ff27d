import { SqlClient } from "@effect/sql"
import { runTicketBatch, SnoozeTimerElapsed, systemActor, TicketStore } from "@helpdesk/domain"
import { Cause, DateTime, Effect, Either, Layer } from "effect"
import { type BatchResult, drain, timerLoop } from "./Sweep.js"

/**
 * Tickets per claiming transaction. The batch is written with one multi-stream append (one savepoint), so it can
 * be larger than the inactivity timer's; 100 keeps a transaction well under a second on a busy machine.
 */
export const SNOOZE_BATCH = 100

/** A ticket the timer claimed: due since `snoozedUntil`. */
export interface DueSnooze {
  readonly ticketId: number
  readonly organizationId: string
  readonly snoozedUntil: DateTime.Utc
}

/**
 * The snooze timer (docs/decisions/0760-timers.md): tickets whose `snoozed_until` has passed get the domain's
 * `SnoozeTimerElapsed`, which unsnoozes them with reason `timer`.
 *
 * A batch is claimed in one transaction with `FOR UPDATE SKIP LOCKED` on the ticket's read-model row and its
 * stream row, so replicas take disjoint batches, and a ticket whose stream another writer holds is left for the
 * next round instead of waited for (writers lock the stream row, then the read-model row: taking both without
 * waiting can never deadlock with them). The claimed tickets' commands go through the one command pipeline as one
 * batch (`runTicketBatch`, docs/decisions/0305-one-command-pipeline.md) inside the claiming transaction, which is its
 * unit of work: one load of every claimed stream, one decision each, one multi-stream append (a refused or stale
 * command writes nothing). The command carries the `snoozed_until` the timer found, so a ticket re-snoozed
 * meanwhile ignores it (the domain calls the timer stale), as does one already unsnoozed: at most one
 * `TicketUnsnoozed` per snooze, however many replicas sweep and whatever crashes in between.
 */
export class SnoozeTimer extends Effect.Service<SnoozeTimer>()("@helpdesk/http/Timers/SnoozeTimer", {
  // The `TicketStore` port is the ticket services' (`TicketServicesLive`), as the `SqlClient` is the database's.
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* TicketStore
    // The claiming transaction is the unit of work of every ticket of the batch.
    const inClaim = TicketStore.of({ ...store, transaction: (self) => self })

    /**
     * Fires the timers of claimed tickets at `now` (the write's instant, or `now` when a caller sweeps ahead of the
     * clock), as one batch of the pipeline: one locking load and one append for all of them. A ticket whose events
     * cannot be read, or which is not of its row's organization, is logged and skipped (it stays due); a stale timer
     * appends nothing.
     */
    const fire = (due: ReadonlyArray<DueSnooze>, now: DateTime.Utc) =>
      Effect.gen(function* () {
        if (due.length === 0) return { claimed: 0, acted: 0, failed: 0 } satisfies BatchResult
        const at = DateTime.max(yield* DateTime.now, now)
        const byTicket = new Map(due.map((d) => [d.ticketId, d]))
        const outcomes = yield* runTicketBatch({
          ticketIds: due.map((d) => d.ticketId),
          plan: (ticketId, { state }) => {
            const { organizationId, snoozedUntil } = byTicket.get(ticketId)!
            return state._tag === "Ticket" && state.organizationId === organizationId
              ? Effect.succeed([new SnoozeTimerElapsed({ ticketId, at, actor: systemActor, snoozedUntil })])
              : Effect.fail(new Error("no such ticket in its row's organization"))
          }
        }).pipe(
          Effect.provideService(TicketStore, inClaim),
          // The streams are locked by the claim: a conflict here is a bug, and the batch rolls back.
          Effect.catchTags({ StreamVersionConflict: Effect.die, StreamClosed: Effect.die })
        )
        let acted = 0
        let failed = 0
        for (let i = 0; i < due.length; i++) {
          const outcome = outcomes[i]!
          if (Either.isRight(outcome)) {
            if (outcome.right.events.length > 0) acted++
            continue
          }
          failed++
          yield* Effect.logWarning(
            `Snooze timer: ticket ${due[i]!.ticketId} failed; it stays due`,
            Cause.fail(outcome.left)
          )
        }
        return { claimed: due.length, acted, failed } satisfies BatchResult
      })

    /** One claiming transaction: up to `limit` tickets due at `now`. */
    const sweepBatch = (now: DateTime.Utc, limit = SNOOZE_BATCH): Effect.Effect<BatchResult> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const rows = yield* sql<{ ticketId: string; organizationId: string; snoozedUntil: Date }>`
              SELECT t.ticket_id, t.organization_id, t.snoozed_until
              FROM hd_tickets t JOIN hd_streams s ON s.stream_id = t.stream_id
              WHERE t.snoozed_until <= ${DateTime.toDateUtc(now)}
              ORDER BY t.snoozed_until
              LIMIT ${limit}
              FOR UPDATE OF t, s SKIP LOCKED`
            return yield* fire(
              rows.map((row) => ({
                ticketId: Number(row.ticketId),
                organizationId: row.organizationId,
                snoozedUntil: DateTime.unsafeFromDate(row.snoozedUntil)
              })),
              now
            )
          })
        )
        .pipe(Effect.orDie, Effect.withSpan("SnoozeTimer.sweepBatch"))

    /**
     * Unsnoozes every ticket due at `now` (batch after batch while they come back full). Callers may pass a later
     * `now` to act as if that time had come.
     */
    const sweep = (now: DateTime.Utc) =>
      drain(Effect.succeed(now), (at) => sweepBatch(at), SNOOZE_BATCH).pipe(Effect.withSpan("SnoozeTimer.sweep"))

    /** One round of the loop: batches until none is full, each at the clock's now. */
    const sweepDue = drain(DateTime.now, (now) => sweepBatch(now), SNOOZE_BATCH)

    return { sweep, sweepBatch, sweepDue, fire } as const
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
