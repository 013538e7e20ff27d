import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import { TicketCommands } from "../../src/Tickets/TicketCommands.js"
import type { CreateTicketInput } from "../../src/Tickets/TicketCreation.js"

/** What tickets seeded through {@link TicketCommands} differ in; the rest is a plain API ticket of an associate. */
export interface SeededTicket {
  readonly subject: string
  readonly description: string
  readonly descriptionHtml?: string
  readonly customerEmail: string
  readonly customerName?: string
  readonly externalRecipientEmails?: ReadonlyArray<string>
}

/** The input of `TicketCommands.create` for a text ticket an associate (`userId`) records by API for a customer. */
export const associateTicket = (
  organizationId: OrganizationId,
  userId: number,
  ticket: SeededTicket
): CreateTicketInput => ({
  organizationId,
  caller: { _tag: "Person", userId, tokenId: 0 },
  createdByRole: "associate",
  subject: ticket.subject,
  description: ticket.description,
  descriptionHtml: ticket.descriptionHtml ?? "",
  kind: "text",
  inboxId: undefined,
  customer: { _tag: "ByEmail", email: ticket.customerEmail, name: ticket.customerName ?? "" },
  origin: "api",
  channel: { type: "api", connectionId: null },
  externalRecipientEmails: ticket.externalRecipientEmails ?? [],
  bccRecipientEmails: [],
  tagIds: [],
  priority: "not_set",
  assigneeId: null,
  attachmentIds: []
})

/**
 * Creates `count` tickets through {@link TicketCommands} (the `i`th as `ticketOf(i)` says), `concurrency` at a time,
 * bypassing HTTP; answers their ids in order.
 */
export const createTickets = (
  organizationId: OrganizationId,
  userId: number,
  count: number,
  ticketOf: (i: number) => SeededTicket,
  concurrency = 6
) =>
  Effect.flatMap(TicketCommands, (commands) =>
    Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) => Effect.map(commands.create(associateTicket(organizationId, userId, ticketOf(i))), (ticket) => ticket.id),
      { concurrency }
    )
  ).pipe(Effect.orDie)
