import { type OrganizationId, ResendCreationEmail } from "@helpdesk/domain"
import { Effect } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { withSpan } from "../Observability/Spans.js"
import { TicketPipeline } from "./TicketPipeline.js"

/** Use case: sending a ticket's failed create-email again (decision 0663). */
export class TicketResending extends Effect.Service<TicketResending>()("@helpdesk/http/Tickets/TicketResending", {
  effect: Effect.gen(function* () {
    const { actorFor, onTicket } = yield* TicketPipeline

    /**
     * Moves the failed create-email back to `pending` and queues it again, in one transaction; a create-email that
     * did not fail is the domain's `CreateEmailNotFailed`.
     */
    const resendCreationEmail = (organizationId: OrganizationId, caller: Caller, ticketId: number) =>
      onTicket(organizationId, ticketId, (_, at) =>
        Effect.map(actorFor(caller, "associate"), (actor) => [new ResendCreationEmail({ ticketId, at, actor })])
      ).pipe(withSpan("TicketCommands.resendCreationEmail"))

    return { resendCreationEmail } as const
  }),
  dependencies: [TicketPipeline.Default]
}) {}
