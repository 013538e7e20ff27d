import { SqlClient } from "@effect/sql"
import { RecordSlaBreach, runTicketBatch, type SlaTarget, systemActor, TicketStore } from "@helpdesk/domain"
import { Cause, DateTime, Effect, Either, Layer } from "effect"
import { type BatchResult, drain, timerLoop } from "../Timers/Sweep.js"

/** Tickets per claiming transaction (one multi-stream append, as the snooze timer's). */
export const SLA_BREACH_BATCH = 100

/** A breach the timer claimed. */
interface DueBreach {
  readonly ticketId: number
  readonly organizationId: string
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
    const store = yield* TicketStore
    const inClaim = TicketStore.of({ ...store, transaction: (self) => self })

    const fire = (due: ReadonlyArray<DueBreach>, now: DateTime.Utc) =>
      Effect.gen(function* () {
        if (due.length === 0) return { claimed: 0, acted: 0, failed: 0 } satisfies BatchResult
        const at = DateTime.max(yield* DateTime.now, now)
        const byTicket = new Map(due.map((d) => [d.ticketId, d]))
        const outcomes = yield* runTicketBatch({
          ticketIds: due.map((d) => d.ticketId),
          plan: (ticketId, { state }) => {
            const { organizationId, policyId, target, dueAt } = byTicket.get(ticketId)!
            return state._tag === "Ticket" && state.organizationId === organizationId
              ? Effect.succeed([new RecordSlaBreach({ ticketId, at, actor: systemActor, policyId, target, dueAt })])
              : Effect.fail(new Error("no such ticket in its row's organization"))
          }
        }).pipe(
          Effect.provideService(TicketStore, inClaim),
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
            `SLA breach timer: ticket ${due[i]!.ticketId} failed; it stays due`,
            Cause.fail(outcome.left)
          )
        }
        return { claimed: due.length, acted, failed } satisfies BatchResult
      })

    /** One claiming transaction: up to `limit` breaches due at `now`. */
    const sweepBatch = (now: DateTime.Utc, limit = SLA_BREACH_BATCH): Effect.Effect<BatchResult> =>
      sql
        .withTransaction(
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
                organizationId: row.organizationId,
                policyId: Number(row.policyId),
                target: row.nextBreachTarget,
                dueAt: DateTime.unsafeFromDate(row.nextBreachAt)
              })),
              now
            )
          })
        )
        .pipe(Effect.orDie, Effect.withSpan("SlaBreachTimer.sweepBatch"))

    /** Records every breach due at `now` (batch after batch while they come back full). */
    const sweep = (now: DateTime.Utc) => drain(Effect.succeed(now), (at) => sweepBatch(at), SLA_BREACH_BATCH)

    /** One round of the loop: batches until none is full, each at the clock's now. */
    const sweepDue = drain(DateTime.now, (now) => sweepBatch(now), SLA_BREACH_BATCH)

    return { sweep, sweepBatch, sweepDue } as const
  })
}) {}

/** The breach timer's loop in every replica: a round every `SLA_BREACH_TIMER_INTERVAL` (default 1 second). */
export const SlaBreachTimerLive = timerLoop(
  "SLA breach timer",
  "SLA_BREACH_TIMER_INTERVAL",
  "1 second",
  Effect.flatMap(SlaBreachTimer, (timer) => timer.sweepDue)
).pipe(Layer.provide(SlaBreachTimer.Default))
