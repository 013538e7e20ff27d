import type { Ticket, TicketEvent, TicketState } from "@helpdesk/domain"
import { type OutboxRow, outboxRowsWithAppend } from "../Mail/OutboxRows.js"
import { type TicketAppendRows, TicketAppendRowsRegistered } from "./Store/TicketAppendRows.js"

const messageEmail = (ticket: Ticket, messageId: number): OutboxRow => {
  const message = ticket.messages.find((m) => m.id === messageId)!
  return {
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
  }
}

const createEmail = (ticket: Ticket, resend: boolean): OutboxRow => ({
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

/**
 * The e-mails a ticket write sends (docs/decisions/0654-outbox-and-enrichment.md), from its events and the state
 * after them: a ticket created with `sendsCreateEmail` → its create-email; a resend of a failed create-email → a new
 * one (a new Message-ID, decision 0663); every added message that `sendsEmail` → its reply e-mail. The events say
 * it, so no writer can leave a pending delivery without its row.
 */
export const outboxRowsOf = (events: ReadonlyArray<TicketEvent>, after: TicketState): ReadonlyArray<OutboxRow> => {
  if (after._tag !== "Ticket") return []
  const rows: Array<OutboxRow> = []
  for (const event of events) {
    if (event._tag === "TicketCreated" && event.sendsCreateEmail) rows.push(createEmail(after, false))
    else if (event._tag === "TicketEmailResendRequested") rows.push(createEmail(after, true))
    else if (event._tag === "MessageAdded" && event.message.sendsEmail) rows.push(messageEmail(after, event.message.id))
  }
  return rows
}

/** The ticket writes' outbox rows, made in the append's statement (docs/decisions/0816-outbox-rows-with-the-append.md). */
export const ticketOutbox: TicketAppendRows = {
  name: "outbox",
  rows: (sql, writes, appended) => {
    const written = outboxRowsWithAppend(
      sql,
      "outbox",
      writes.flatMap((write) => outboxRowsOf(write.events, write.after)),
      appended
    )
    return written === undefined ? [] : [written]
  }
}

/** Registers {@link ticketOutbox} with the ticket store's appends. */
export const TicketOutboxLive = TicketAppendRowsRegistered.layer([ticketOutbox])
