import type { Ticket, TicketEvent } from "@helpdesk/domain"
import { escapeHtml } from "../Http/Html.js"

/**
 * Whether closing produced a survey to offer: the events close the ticket, and the ticket is a real conversation
 * with a customer who can be mailed (not spam, not closed as `invalid`, no answer yet). Whether the organization
 * wants surveys is the repository's check.
 */
export const surveyDue = (ticket: Ticket, events: ReadonlyArray<TicketEvent>): boolean =>
  events.some((event) => event._tag === "TicketClosed") &&
  !ticket.isSpam &&
  ticket.classification !== "invalid" &&
  ticket.customer.email !== "" &&
  ticket.csatResponse === null

/** The survey e-mail's subject, text and HTML, linking to `link`. */
export const surveyEmail = (ticket: Ticket, link: string) => {
  const greeting = ticket.customer.name.trim() === "" ? "Hello," : `Hello ${ticket.customer.name.trim()},`
  const ask = `your request "${ticket.subject}" (#${ticket.publicId}) has been closed. How satisfied are you with the help you received? It takes one click and one minute:`
  return {
    subject: `How did we do? ${ticket.subject}`,
    text: `${greeting}\n\n${ask}\n\n${link}\n\nThank you!`,
    html: `<p>${escapeHtml(greeting)}</p><p>${escapeHtml(ask)}</p><p><a href="${escapeHtml(link)}">Rate our help</a></p><p>Thank you!</p>`
  }
}
