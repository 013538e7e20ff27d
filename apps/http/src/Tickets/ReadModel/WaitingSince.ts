import type { Ticket, TicketEvent } from "@helpdesk/domain"
import type { DateTime } from "effect"

/**
 * When a ticket started waiting on the customer, as the inactivity timer measures it
 * (docs/decisions/0760-timers.md). Pure: a fold over the ticket's events, so the projection writes the same
 * value inline and in a rebuild.
 *
 * The clock (re)starts at the last of these events, in stream order:
 * - `TicketCreated` by an associate (the ticket starts out waiting on the customer);
 * - `MessageAdded` of a customer-visible message by an associate (what makes the ticket wait on the customer);
 * - `TicketWaitingOnChanged` to `customer` (an associate said by hand that the customer must act);
 * - `TicketReopened`, `TicketUnsnoozed`, `TicketUnmarkedSpam`: the ticket comes back into the open queues, so
 *   its period starts over rather than closing it the minute it is back.
 *
 * Messages of the service itself (the inactivity reminder, auto-replies) and internal notes do not restart it.
 */
export const waitingSinceAfter = (since: DateTime.Utc | null, event: TicketEvent): DateTime.Utc | null => {
  switch (event._tag) {
    case "TicketCreated":
      return event.by.role === "associate" ? event.at : since
    case "MessageAdded":
      return event.message.isVisibleToCustomer && event.message.role === "associate" ? event.at : since
    case "TicketWaitingOnChanged":
      return event.waitingOn === "customer" ? event.at : since
    case "TicketReopened":
    case "TicketUnsnoozed":
    case "TicketUnmarkedSpam":
      return event.at
    default:
      return since
  }
}

/**
 * The `hd_tickets.waiting_on_customer_since` of a ticket: `since` while the ticket waits on the customer and
 * is open, not snoozed, not spam and not merged away; otherwise null (the timer has nothing to do with it).
 */
export const waitingOnCustomerSince = (ticket: Ticket, since: DateTime.Utc | null): DateTime.Utc | null =>
  ticket.waitingOn === "customer" &&
  ticket.status !== "closed" &&
  !ticket.isSpam &&
  ticket.mergedInto === null &&
  ticket.snoozedUntil === null
    ? (since ?? ticket.createdAt)
    : null
