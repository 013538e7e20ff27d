import { MergeTickets, type OrganizationId, runTicketMerge, TicketStore } from "@helpdesk/domain"
import { DateTime, Effect } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { withSpan } from "../Observability/Spans.js"
import { TicketInputRefused } from "./TicketErrors.js"
import { TicketIds } from "./TicketIds.js"
import { asTicket, conflictAsError, inOrganization, TicketPipeline } from "./TicketPipeline.js"

/** Use case: merging a ticket into another of its organization (`runTicketMerge`: both streams in one append). */
export class TicketMerging extends Effect.Service<TicketMerging>()("@helpdesk/http/Tickets/TicketMerging", {
  effect: Effect.gen(function* () {
    const ticketStore = yield* TicketStore
    const { actorFor } = yield* TicketPipeline
    const { nextMessageId } = yield* TicketIds

    /**
     * Merges the ticket into `targetId` (the survivor) of the same organization: both streams in one append, the
     * source's closed. Returns the source's state (now with `merged_into`).
     */
    const merge = (organizationId: OrganizationId, caller: Caller, sourceId: number, targetId: number) =>
      Effect.gen(function* () {
        const at = yield* DateTime.now
        const actor = yield* actorFor(caller, "associate")
        const merged = yield* runTicketMerge({
          // The source's opening request becomes a message on the survivor, with an id of its own (decision 0660).
          command: new MergeTickets({
            sourceTicketId: sourceId,
            targetTicketId: targetId,
            at,
            actor,
            openingMessageId: yield* nextMessageId
          }),
          check: (source, target) =>
            Effect.zipRight(
              inOrganization(organizationId, sourceId, source.state),
              target.state._tag !== "Ticket" || target.state.organizationId !== organizationId
                ? TicketInputRefused.because({ _tag: "MergeTargetNotInOrganization", ticketId: targetId })
                : Effect.void
            )
        }).pipe(
          Effect.provideService(TicketStore, ticketStore),
          Effect.catchTag("EventDecodeError", Effect.die),
          conflictAsError(sourceId)
        )
        return { source: asTicket(merged.source.state), target: asTicket(merged.target.state) }
      }).pipe(withSpan("TicketCommands.merge"))

    return { merge } as const
  }),
  dependencies: [TicketPipeline.Default, TicketIds.Default]
}) {}
