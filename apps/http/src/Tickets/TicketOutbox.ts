import type { Ticket, TicketPolicy } from "@helpdesk/domain"
import { Effect } from "effect"
import { OutboxRows } from "../Mail/OutboxRows.js"

/**
 * The ticket writes' outbox (docs/decisions/0654-outbox-and-enrichment.md) as policies of the command pipeline
 * (docs/decisions/0305-one-command-pipeline.md): plain functions of what a write appended, run in its transaction,
 * enqueued through {@link OutboxRows}.
 */
export class TicketOutbox extends Effect.Service<TicketOutbox>()("@helpdesk/http/Tickets/TicketOutbox", {
  effect: Effect.gen(function* () {
    const { enqueue } = yield* OutboxRows

    const messageEmail = (ticket: Ticket, messageId: number) => {
      const message = ticket.messages.find((m) => m.id === messageId)!
      return enqueue({
        organizationId: Number(ticket.organizationId),
        ticketId: ticket.id,
        messageId,
        kind: "message",
        payload: {
          public_id: ticket.publicId,
          to: ticket.customer.email,
          cc: message.externalRecipientEmails,
          bcc: message.bccRecipientEmails,
          subject: ticket.subject,
          text: message.content,
          html: message.contentHtml,
          attachment_ids: message.attachments.map((a) => a.id)
        }
      })
    }

    /** Policy: every message the write added that goes out by e-mail (`sendsEmail`) gets its outbox row. */
    const messageEmails: TicketPolicy = ({ state, events }) =>
      state._tag !== "Ticket"
        ? Effect.void
        : Effect.forEach(
            events,
            (event) =>
              event._tag === "MessageAdded" && event.message.sendsEmail
                ? messageEmail(state, event.message.id)
                : Effect.void,
            { discard: true }
          )

    /** Policy: a ticket created with `sendsCreateEmail` gets its create-email's outbox row. */
    const creationEmail: TicketPolicy = ({ state, events }) =>
      state._tag !== "Ticket" || !events.some((e) => e._tag === "TicketCreated" && e.sendsCreateEmail)
        ? Effect.void
        : enqueue({
            organizationId: Number(state.organizationId),
            ticketId: state.id,
            messageId: null,
            kind: "ticket_created",
            payload: {
              public_id: state.publicId,
              to: state.customer.email,
              cc: state.externalRecipientEmails,
              bcc: state.bccRecipientEmails,
              subject: state.subject,
              text: state.description,
              html: state.descriptionHtml,
              attachment_ids: state.attachments.map((a) => a.id)
            }
          })

    return { messageEmails, creationEmail } as const
  }),
  dependencies: [OutboxRows.Default]
}) {}
