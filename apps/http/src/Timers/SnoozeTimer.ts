import { SqlClient } from "@effect/sql"
import { OrganizationId, SnoozeTimerElapsed, systemActor, TicketStore } from "@helpdesk/domain"
import { DateTime, Effect } from "effect"
import { type DueTicket, dueSweeps, firePipelineBatch } from "./DueTimer.js"
import { timerServiceLoop } from "./Sweep.js"

/**
 * Tickets per claiming transaction. The batch is written with one multi-stream append (one savepoint), so it can
 * be larger than the inactivity timer's; 100 keeps a transaction well under a second on a busy machine.
 */
export const SNOOZE_BATCH = 100

/** A ticket the timer claimed: due since `snoozedUntil`. */
export interface DueSnooze extends DueTicket {
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
    const fire = firePipelineBatch(
      "Snooze timer",
      yield* TicketStore,
      ({ ticketId, snoozedUntil }: DueSnooze, at) =>
        new SnoozeTimerElapsed({ ticketId, at, actor: systemActor, snoozedUntil })
    )
    const sweeps = dueSweeps(sql, "SnoozeTimer", SNOOZE_BATCH, (now, limit) =>
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
            organizationId: OrganizationId.make(row.organizationId),
            snoozedUntil: DateTime.unsafeFromDate(row.snoozedUntil)
          })),
          now
        )
      })
    )
    return { ...sweeps, fire } as const
  })
}) {}

/**
 * The snooze timer's loop in every replica: a round every `SNOOZE_TIMER_INTERVAL` (default 1 second), so a
 * ticket is unsnoozed about an interval after its `snoozed_until`, plus the time to work off what is due.
 */
export const SnoozeTimerLive = timerServiceLoop(SnoozeTimer, "Snooze timer", "SNOOZE_TIMER_INTERVAL", "1 second")
