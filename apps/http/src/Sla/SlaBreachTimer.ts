import { SqlClient } from "@effect/sql"
import { OrganizationId, RecordSlaBreach, type SlaTarget, systemActor, TicketStore } from "@helpdesk/domain"
import { DateTime, Effect } from "effect"
import { type DueTicket, dueSweeps, firePipelineBatch } from "../Timers/DueTimer.js"
import { timerServiceLoop } from "../Timers/Sweep.js"

/** Tickets per claiming transaction (one multi-stream append, as the snooze timer's). */
export const SLA_BREACH_BATCH = 100

/** A breach the timer claimed. */
interface DueBreach extends DueTicket {
  readonly policyId: number
  readonly target: SlaTarget
  readonly dueAt: DateTime.Utc
}

/**
 * The SLA breach timer (docs/decisions/0503-sla-policies.md): tickets whose `hd_ticket_sla.next_breach_at` has
 * passed get `TicketSlaBreached` for that target and due instant, through the one command pipeline
 * (`runTicketBatch`) inside the claiming transaction.
 *
 * Exactly once across replicas: the claim locks the SLA row, the read-model row and the stream row with
 * `FOR UPDATE … SKIP LOCKED` (the snooze timer's rule, decision 0760), and the `sla` projection, in the same
 * transaction as the event, records the breach in the ticket's facts and moves `next_breach_at` past it. A replica
 * that claims afterwards no longer finds the row due (PostgreSQL re-checks a locked row's condition on its newest
 * version); one that claims meanwhile skips the locked row.
 */
export class SlaBreachTimer extends Effect.Service<SlaBreachTimer>()("@helpdesk/http/Sla/SlaBreachTimer", {
  // Its `TicketStore` is the service's (`PostgresTicketStore`), whose inline projections are chosen where it is built.
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const fire = firePipelineBatch(
      "SLA breach timer",
      yield* TicketStore,
      ({ ticketId, policyId, target, dueAt }: DueBreach, at) =>
        new RecordSlaBreach({ ticketId, at, actor: systemActor, policyId, target, dueAt })
    )
    const sweeps = dueSweeps(sql, "SlaBreachTimer", SLA_BREACH_BATCH, (now, limit) =>
      Effect.gen(function* () {
        const rows = yield* sql<{
          ticketId: string
          organizationId: string
          policyId: string
          nextBreachTarget: SlaTarget
          nextBreachAt: Date
        }>`
          SELECT t.ticket_id, t.organization_id, sla.policy_id, sla.next_breach_target, sla.next_breach_at
          FROM hd_ticket_sla sla
          JOIN hd_tickets t ON t.ticket_id = sla.ticket_id
          JOIN hd_streams s ON s.stream_id = t.stream_id
          WHERE sla.next_breach_at <= ${DateTime.toDateUtc(now)}
          ORDER BY sla.next_breach_at
          LIMIT ${limit}
          FOR UPDATE OF sla, t, s SKIP LOCKED`
        return yield* fire(
          rows.map((row) => ({
            ticketId: Number(row.ticketId),
            organizationId: OrganizationId.make(row.organizationId),
            policyId: Number(row.policyId),
            target: row.nextBreachTarget,
            dueAt: DateTime.unsafeFromDate(row.nextBreachAt)
          })),
          now
        )
      })
    )
    return sweeps
  })
}) {}

/** The breach timer's loop in every replica: a round every `SLA_BREACH_TIMER_INTERVAL` (default 1 second). */
export const SlaBreachTimerLive = timerServiceLoop(
  SlaBreachTimer,
  "SLA breach timer",
  "SLA_BREACH_TIMER_INTERVAL",
  "1 second"
)
