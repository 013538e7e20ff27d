import type { OrganizationId, Ticket, TicketCommand } from "@helpdesk/domain"
import { type DateTime, Effect } from "effect"
import { withSpan } from "../Observability/Spans.js"
import { TicketPipeline } from "./TicketPipeline.js"

/** Use case: commands the service issues on its own (timers, mail delivery, automations). */
export class TicketSystemCommands extends Effect.Service<TicketSystemCommands>()(
  "@helpdesk/http/Tickets/TicketSystemCommands",
  {
    effect: Effect.gen(function* () {
      const { onTicket } = yield* TicketPipeline

      /**
       * Runs commands the service issues on its own (timers, mail delivery, automations) on a ticket of the
       * organization, in one transaction with the e-mails of any messages they add (`TicketOutbox`); `plan` gets the
       * ticket and the instant of the write and may return no commands. Refusals of the domain come out as its
       * `TicketError`s.
       */
      const asSystem = <E, R>(
        organizationId: OrganizationId,
        ticketId: number,
        plan: (ticket: Ticket, at: DateTime.Utc) => Effect.Effect<ReadonlyArray<TicketCommand>, E, R>
      ) => onTicket(organizationId, ticketId, plan).pipe(withSpan("TicketCommands.asSystem"))

      return { asSystem } as const
    }),
    dependencies: [TicketPipeline.Default]
  }
) {}
