import { Effect } from "effect"
import { TicketCreation } from "./TicketCreation.js"
import { TicketEnrichment } from "./TicketEnrichment.js"
import { TicketIds } from "./TicketIds.js"
import { TicketMerging } from "./TicketMerging.js"
import { TicketMessages } from "./TicketMessages.js"
import { TicketResending } from "./TicketResending.js"
import { TicketSnoozing } from "./TicketSnoozing.js"
import { TicketSystemCommands } from "./TicketSystemCommands.js"
import { TicketUpdates } from "./TicketUpdates.js"

/**
 * Ticket writes, the one service their callers (HTTP handlers, timers, mail delivery, the CSAT answer, the demo)
 * use: a facade over the use cases, one file each (`TicketCreation`, `TicketMessages`, `TicketUpdates`,
 * `TicketSnoozing`, `TicketEnrichment`, `TicketMerging`, `TicketSystemCommands`), which turn requests into the
 * domain's commands and run them through the one command pipeline (`TicketPipeline`,
 * docs/decisions/0305-one-command-pipeline.md, 0815): load the ticket (the fold in memory, proved by the append; its
 * stream locked for the transaction after a lost race), decide,
 * append, inline projections from the state in hand, then the policies (outbox rows, the CSAT survey), each write in
 * one transaction with what must happen with it (ids from `TicketIds`, attachment claims, customers created on the
 * fly). Refusals of the domain come out as its `TicketError`s; a write that lost more races than the pipeline
 * retries (decision 0820: a stream closed under it is one) is a `TicketWriteConflict`.
 */
export class TicketCommands extends Effect.Service<TicketCommands>()("@helpdesk/http/Tickets/TicketCommands", {
  effect: Effect.gen(function* () {
    const { create } = yield* TicketCreation
    const { addMessage } = yield* TicketMessages
    const { update } = yield* TicketUpdates
    const { snooze, unsnooze } = yield* TicketSnoozing
    const { enrich } = yield* TicketEnrichment
    const { merge } = yield* TicketMerging
    const { asSystem } = yield* TicketSystemCommands
    const { resendCreationEmail } = yield* TicketResending
    const { nextMessageId } = yield* TicketIds

    return {
      create,
      addMessage,
      update,
      snooze,
      unsnooze,
      enrich,
      merge,
      asSystem,
      resendCreationEmail,
      nextMessageId
    } as const
  }),
  dependencies: [
    TicketCreation.Default,
    TicketMessages.Default,
    TicketUpdates.Default,
    TicketSnoozing.Default,
    TicketEnrichment.Default,
    TicketMerging.Default,
    TicketSystemCommands.Default,
    TicketResending.Default,
    TicketIds.Default
  ]
}) {}
