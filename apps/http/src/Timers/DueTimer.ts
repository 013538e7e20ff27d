import type { SqlClient } from "@effect/sql"
import { type OrganizationId, runTicketBatch, type TicketCommand, TicketStore } from "@helpdesk/domain"
import { Cause, type Context, DateTime, Effect, Either } from "effect"
import { withSpan } from "../Observability/Spans.js"
import { type BatchResult, drain, type SweepResult } from "./Sweep.js"

/** A ticket a timer claimed: the row's ticket and organization, with whatever else the timer's command needs. */
export interface DueTicket {
  readonly ticketId: number
  readonly organizationId: OrganizationId
}

/** The sweeps every due timer offers over its claiming transaction. */
export interface DueSweeps {
  /** One claiming transaction: up to `limit` (the timer's batch size by default) rows due at `now`. */
  readonly sweepBatch: (now: DateTime.Utc, limit?: number) => Effect.Effect<BatchResult>
  /**
   * Everything due at `now`, batch after batch while they come back full. Callers may pass a later `now` to act as
   * if that time had come.
   */
  readonly sweep: (now: DateTime.Utc) => Effect.Effect<SweepResult>
  /** One round of the loop: batches until none is full, each at the clock's now. */
  readonly sweepDue: Effect.Effect<SweepResult>
}

/**
 * A timer's sweeps (docs/decisions/0760-timers.md): `claim(now, limit)` runs in one transaction per batch, claims
 * the rows due at `now` (`FOR UPDATE … SKIP LOCKED`) and acts on them; a database failure rolls the batch back and
 * dies. Spans are named after `span` (`<span>.sweepBatch`, `<span>.sweep`).
 */
export const dueSweeps = (
  sql: SqlClient.SqlClient,
  span: string,
  batchSize: number,
  claim: (now: DateTime.Utc, limit: number) => Effect.Effect<BatchResult, unknown>
): DueSweeps => {
  const sweepBatch = (now: DateTime.Utc, limit = batchSize): Effect.Effect<BatchResult> =>
    sql.withTransaction(claim(now, limit)).pipe(Effect.orDie, withSpan(`${span}.sweepBatch`))
  return {
    sweepBatch,
    sweep: (now) => drain(Effect.succeed(now), (at) => sweepBatch(at), batchSize).pipe(withSpan(`${span}.sweep`)),
    sweepDue: drain(DateTime.now, (now) => sweepBatch(now), batchSize)
  }
}

/**
 * Fires the timers of claimed tickets at `now` (the write's instant, or `now` when a caller sweeps ahead of the
 * clock) as one batch of the command pipeline (`runTicketBatch`, docs/decisions/0305-one-command-pipeline.md)
 * inside the claiming transaction, which is its unit of work: one locking load and one append for all of them. A
 * ticket whose events cannot be read, which is not of its row's organization, or whose command is refused, is
 * logged and counted as failed (it stays due); a stale timer appends nothing.
 */
export const firePipelineBatch =
  <Due extends DueTicket>(
    timer: string,
    store: Context.Tag.Service<TicketStore>,
    command: (due: Due, at: DateTime.Utc) => TicketCommand
  ) =>
  (due: ReadonlyArray<Due>, now: DateTime.Utc): Effect.Effect<BatchResult> =>
    Effect.gen(function* () {
      if (due.length === 0) return { claimed: 0, acted: 0, failed: 0 }
      const at = DateTime.max(yield* DateTime.now, now)
      const byTicket = new Map(due.map((d) => [d.ticketId, d]))
      const outcomes = yield* runTicketBatch({
        ticketIds: due.map((d) => d.ticketId),
        plan: (ticketId, { state }) => {
          const row = byTicket.get(ticketId)!
          return state._tag === "Ticket" && state.organizationId === row.organizationId
            ? Effect.succeed([command(row, at)])
            : Effect.fail(new Error("no such ticket in its row's organization"))
        }
      }).pipe(
        // The claiming transaction is the unit of work of every ticket of the batch.
        Effect.provideService(TicketStore, TicketStore.of({ ...store, transaction: (self) => self })),
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
        yield* Effect.logWarning(`${timer}: ticket ${due[i]!.ticketId} failed; it stays due`, Cause.fail(outcome.left))
      }
      return { claimed: due.length, acted, failed }
    })
