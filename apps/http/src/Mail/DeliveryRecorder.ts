import { type OrganizationId, ReportDelivery, systemActor } from "@helpdesk/domain"
import { type DateTime, Effect } from "effect"
import { withSpan } from "../Observability/Spans.js"
import { TicketCommands } from "../Tickets/TicketCommands.js"
import type { TicketWriteConflict } from "../Tickets/TicketErrors.js"

/** Outbox kinds whose delivery the ticket tracks (`delivery_status`); other kinds (`csat_survey`) are untracked. */
export const TRACKED_KINDS: ReadonlySet<string> = new Set(["ticket_created", "message"])

/** The mail a delivery report is about: an outbox row's ticket and message (`null`: the create-email). */
export interface DeliveryTarget {
  readonly organizationId: OrganizationId
  readonly ticketId: number
  readonly messageId: number | null
  readonly kind: string
}

/** What became of a report: appended (or already known: reports are idempotent), untracked, or dropped. */
export type ReportOutcome = "recorded" | "untracked" | "dropped"

const MAX_MERGE_HOPS = 5

/**
 * Turns what the mail worker and the read pixel observe into `ReportDelivery` commands on the ticket. The domain
 * makes reports idempotent and order-independent (docs/decisions/0203-delivery-status-ordering.md), so a report
 * may be repeated after a crash. A message's report follows merges: a merged-away ticket refuses writes, and its
 * messages live on in the survivor under the same id. A create-email report for a merged-away ticket, and reports
 * the ticket refuses for good (no such message, nothing tracked), are dropped with a log line. Only a lost
 * optimistic-concurrency race fails, so the caller can try again later.
 */
export class DeliveryRecorder extends Effect.Service<DeliveryRecorder>()("@helpdesk/http/Mail/DeliveryRecorder", {
  dependencies: [TicketCommands.Default],
  effect: Effect.gen(function* () {
    const commands = yield* TicketCommands

    const report = (
      target: DeliveryTarget,
      status: "sent" | "failed" | "read",
      at: DateTime.Utc,
      reason = ""
    ): Effect.Effect<ReportOutcome, TicketWriteConflict> => {
      if (!TRACKED_KINDS.has(target.kind)) return Effect.succeed("untracked")
      const attempt = (ticketId: number, hops: number): Effect.Effect<ReportOutcome, TicketWriteConflict> =>
        commands
          .asSystem(target.organizationId, ticketId, () =>
            Effect.succeed([
              new ReportDelivery({ ticketId, at, actor: systemActor, messageId: target.messageId, status, reason })
            ])
          )
          .pipe(
            Effect.as<ReportOutcome>("recorded"),
            Effect.catchTags({
              TicketMergedAway: (merged) =>
                target.messageId !== null && hops < MAX_MERGE_HOPS
                  ? attempt(merged.mergedInto.id, hops + 1)
                  : Effect.as(
                      Effect.logInfo(
                        `Mail: ${status} of the create-email of ticket ${target.ticketId} not recorded: the ticket was merged into ticket ${merged.mergedInto.id}`
                      ),
                      "dropped" as const
                    ),
              TicketWriteConflict: (conflict) => Effect.fail(conflict)
            }),
            Effect.catchAll((refused) =>
              Effect.as(
                Effect.logWarning(
                  `Mail: ${status} of ${target.messageId === null ? "the create-email" : `message ${target.messageId}`} of ticket ${ticketId} not recorded: ${refused._tag}`
                ),
                "dropped" as const
              )
            )
          )
      return attempt(target.ticketId, 0).pipe(withSpan("DeliveryRecorder.report"))
    }

    return { report } as const
  })
}) {}
