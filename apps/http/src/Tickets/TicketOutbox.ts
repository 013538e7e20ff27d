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
        organizationId: ticket.organizationId,
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

    const createEmail = (ticket: Ticket, resend: boolean) =>
      enqueue({
        organizationId: ticket.organizationId,
        ticketId: ticket.id,
        messageId: null,
        kind: "ticket_created",
        payload: {
          public_id: ticket.publicId,
          to: ticket.customer.email,
          cc: ticket.externalRecipientEmails,
          bcc: ticket.bccRecipientEmails,
          subject: ticket.subject,
          text: ticket.description,
          html: ticket.descriptionHtml,
          attachment_ids: ticket.attachments.map((a) => a.id),
          ...(resend ? { resend: true } : {})
        }
      })

    /** Policy: a ticket created with `sendsCreateEmail` gets its create-email's outbox row. */
    const creationEmail: TicketPolicy = ({ state, events }) =>
      state._tag !== "Ticket" || !events.some((e) => e._tag === "TicketCreated" && e.sendsCreateEmail)
        ? Effect.void
        : createEmail(state, false)

    /** Policy: a resend of the failed create-email gets a new outbox row (and so a new Message-ID, decision 0663). */
    const creationEmailResend: TicketPolicy = ({ state, events }) =>
      state._tag !== "Ticket" || !events.some((e) => e._tag === "TicketEmailResendRequested")
        ? Effect.void
        : createEmail(state, true)

    return { messageEmails, creationEmail, creationEmailResend } as const
  }),
  dependencies: [OutboxRows.Default]
}) {}
