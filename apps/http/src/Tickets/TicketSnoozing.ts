import { type OrganizationId, SnoozeTicket, UnsnoozeTicket } from "@helpdesk/domain"
import { type DateTime, Effect } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { withSpan } from "../Observability/Spans.js"
import { TicketPipeline } from "./TicketPipeline.js"

/** Use case: snoozing a ticket by hand and taking it out of snooze. */
export class TicketSnoozing extends Effect.Service<TicketSnoozing>()("@helpdesk/http/Tickets/TicketSnoozing", {
  effect: Effect.gen(function* () {
    const { actorFor, onTicket } = yield* TicketPipeline

    /** Snoozes (or re-snoozes) the ticket until `until`. */
    const snooze = (organizationId: OrganizationId, caller: Caller, ticketId: number, until: DateTime.Utc) =>
      onTicket(organizationId, ticketId, (_, at) =>
        Effect.map(actorFor(caller, "associate"), (actor) => [new SnoozeTicket({ ticketId, at, actor, until })])
      ).pipe(withSpan("TicketCommands.snooze"))

    /** Takes the ticket out of snooze (`last_unsnooze_reason: manual`). */
    const unsnooze = (organizationId: OrganizationId, caller: Caller, ticketId: number) =>
      onTicket(organizationId, ticketId, (_, at) =>
        Effect.map(actorFor(caller, "associate"), (actor) => [new UnsnoozeTicket({ ticketId, at, actor })])
      ).pipe(withSpan("TicketCommands.unsnooze"))

    return { snooze, unsnooze } as const
  }),
  dependencies: [TicketPipeline.Default]
}) {}
