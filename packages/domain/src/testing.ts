/**
 * `@helpdesk/domain/testing`: example users, actors, commands and stored events on a fixed timeline, for
 * tests of the domain and of what is built on it (stores, wire forms, read models). Not part of the main entry.
 */

import { DateTime } from "effect"
import {
  type Actor,
  AddMessage,
  CreateTicket,
  OrganizationId,
  systemActor,
  TicketCreated,
  type TicketEvent,
  type UserRef
} from "./index.js"

/** Minute `n` after a fixed epoch, so tests read as a timeline. */
export const minute = (n: number): DateTime.Utc => DateTime.unsafeMake(Date.UTC(2026, 0, 5, 9, 0) + n * 60_000)

export const alice: UserRef = { id: 1, email: "alice@support.test", name: "Alice", profilePictureUrl: "" }
export const bob: UserRef = { id: 2, email: "bob@support.test", name: "Bob", profilePictureUrl: "" }
export const carol: UserRef = { id: 3, email: "carol@customer.test", name: "Carol", profilePictureUrl: "" }

export const associate: Actor = { role: "associate", user: alice }
export const otherAssociate: Actor = { role: "associate", user: bob }
export const customer: Actor = { role: "customer", user: carol }
export const system: Actor = systemActor

export const ticketId = 42

export const customerRef = {
  id: 7,
  name: "Carol",
  email: "carol@customer.test",
  isSpam: false,
  company: null,
  isCompanyManager: false
}

/** What a ticket created by email says of itself, as plain JSON (the same in every schema version). */
export const emailTicketFields = {
  publicId: "T-42",
  organizationId: OrganizationId.make("acme"),
  subject: "Printer on fire",
  description: "It is on fire.",
  descriptionHtml: "<p>It is on fire.</p>",
  inbox: { id: 1, name: "Support", emailPrefix: "support", customerInteractionStyle: "helpdesk" },
  channel: { type: "email", connectionId: 5 },
  origin: "email",
  customer: customerRef
} as const

/** A `CreateTicket` from the customer by email, with overrides. */
export const createTicket = (overrides: Partial<ConstructorParameters<typeof CreateTicket>[0]> = {}) =>
  new CreateTicket({
    ticketId,
    at: minute(0),
    actor: customer,
    ...emailTicketFields,
    externalRecipientEmails: ["cc@customer.test"],
    bccRecipientEmails: ["audit@customer.test"],
    fromEmail: "carol@customer.test",
    fromName: "Carol",
    ...overrides
  })

/** The `TicketCreated` a `createTicket(overrides)` command produces. */
export const ticketCreated = (
  overrides: Partial<ConstructorParameters<typeof CreateTicket>[0]> = {}
): TicketCreated => {
  const { _tag, actor, ...fields } = createTicket(overrides)
  return new TicketCreated({ ...fields, by: actor })
}

/** An `AddMessage` with overrides (a customer-visible associate reply by default). */
export const addMessage = (overrides: Partial<ConstructorParameters<typeof AddMessage>[0]> = {}) =>
  new AddMessage({
    ticketId,
    at: minute(10),
    actor: associate,
    messageId: 100,
    content: "We are on it.",
    isVisibleToCustomer: true,
    ...overrides
  })

/** A message as version 1 of `MessageAdded` stored it (an `internal` flag, no `sendsEmail`), with overrides. */
export const storedMessageV1 = (overrides: Record<string, unknown> = {}) => ({
  id: 100,
  author: alice,
  role: "associate",
  sender: null,
  content: "Checked the logs",
  contentHtml: "",
  kind: "text",
  hasRawContent: false,
  internal: true,
  externalRecipientEmails: [],
  bccRecipientEmails: [],
  nextAssignee: null,
  nextPriority: null,
  nextAction: "",
  attachments: [],
  createdAt: "2026-01-05T09:10:00.000Z",
  ...overrides
})

/** Shorthand for a timeline of events. */
export const history = (...events: ReadonlyArray<TicketEvent>): ReadonlyArray<TicketEvent> => events
