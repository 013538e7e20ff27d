import { SqlClient } from "@effect/sql"
import type { Ticket, TicketPolicy } from "@helpdesk/domain"
import { Effect } from "effect"
import type { OutboxPayload } from "../Mail/MailComposer.js"

/** An outbox row to write in the command's transaction (the mail worker sends it after the commit). */
export interface OutboxRow {
  readonly organizationId: number
  readonly ticketId: number
  readonly messageId: number | null
  readonly kind: "ticket_created" | "message" | "csat_survey"
  readonly payload: OutboxPayload
}

/**
 * The ticket writes' outbox (docs/decisions/0654-outbox-and-enrichment.md) as policies of the command pipeline
 * (docs/decisions/0305-one-command-pipeline.md): plain functions of what a write appended, run in its transaction.
 */
export class TicketOutbox extends Effect.Service<TicketOutbox>()("@helpdesk/http/Tickets/TicketOutbox", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Writes an outbox row (in the caller's transaction). */
    const enqueue = (row: OutboxRow) =>
      sql`
        INSERT INTO hd_outbox (organization_id, ticket_id, message_id, kind, payload)
        VALUES (${row.organizationId}, ${row.ticketId}, ${row.messageId}, ${row.kind}, ${JSON.stringify(row.payload)}::jsonb)`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

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

    return { enqueue, messageEmails, creationEmail } as const
  })
}) {}
