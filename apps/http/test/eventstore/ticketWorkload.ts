import {
  type Actor,
  AddMessage,
  AssignTicket,
  ChangePriority,
  CloseTicket,
  CreateTicket,
  OrganizationId,
  ReportDelivery,
  SetTags,
  SnoozeTicket,
  systemActor,
  type TicketCommand,
  UnsnoozeTicket,
  type UserRef
} from "@helpdesk/domain"
import { alice, associate, customerRef } from "@helpdesk/domain/testing"
import { DateTime } from "effect"

const customerUser: UserRef = { id: 900, email: "carol@customer.test", name: "Carol", profilePictureUrl: "" }
const customer: Actor = { role: "customer", user: customerUser }

/** A realistic life of one ticket as domain commands: created by email, answered, snoozed, closed. */
export const ticketLifecycle = (ticketId: number, organizationId = "acme"): ReadonlyArray<TicketCommand> => {
  const start = Date.UTC(2026, 0, 5, 9, 0) + ticketId * 60_000
  const at = (minutes: number) => DateTime.unsafeMake(start + minutes * 60_000)
  const base = (minutes: number, actor: Actor = associate) => ({ ticketId, at: at(minutes), actor })
  const firstMessage = ticketId * 100
  return [
    new CreateTicket({
      ...base(0, customer),
      publicId: `T-${ticketId}`,
      organizationId: OrganizationId.make(organizationId),
      subject: `Printer ${ticketId} on fire`,
      description: "It is on fire. Please advise.",
      descriptionHtml: "<p>It is on fire. Please advise.</p>",
      inbox: { id: 1 + (ticketId % 3), name: "Support", emailPrefix: "support", customerInteractionStyle: "helpdesk" },
      channel: { type: "email", connectionId: 5 },
      origin: "email",
      customer: customerRef,
      externalRecipientEmails: ["cc@customer.test"],
      fromEmail: "carol@customer.test",
      fromName: "Carol"
    }),
    new AddMessage({
      ...base(10),
      messageId: firstMessage + 1,
      content: "We are on it.",
      contentHtml: "<p>We are on it.</p>",
      isVisibleToCustomer: true,
      sendsEmail: true
    }),
    new AssignTicket({ ...base(11), assignee: alice }),
    new ChangePriority({ ...base(12), priority: "high" }),
    new ReportDelivery({ ...base(13, systemActor), messageId: firstMessage + 1, status: "sent" }),
    new AddMessage({
      ...base(20, customer),
      messageId: firstMessage + 2,
      content: "Still burning.",
      isVisibleToCustomer: true
    }),
    new AddMessage({
      ...base(21),
      messageId: firstMessage + 3,
      content: "Fire brigade called.",
      isVisibleToCustomer: false
    }),
    new SnoozeTicket({ ...base(22), until: at(120) }),
    new UnsnoozeTicket({ ...base(30) }),
    new SetTags({ ...base(31), tags: [{ id: 3, name: "hardware", color: "red" }] }),
    new CloseTicket({ ...base(40), classification: "resolved" })
  ]
}
