import {
  type MessageAdded,
  projectMessageViews,
  TicketAssigned,
  type TicketEvent,
  TicketPriorityChanged
} from "@helpdesk/domain"
import {
  addMessage,
  alice,
  associate,
  bob,
  customer,
  minute,
  system,
  ticketCreated,
  ticketId
} from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given, ticketAfter } from "../utils/DeciderSpecification.js"

/** Decides `command` after `history` and returns the MessageAdded it produced. */
const added = (history: ReadonlyArray<TicketEvent>, command: ReturnType<typeof addMessage>) =>
  given(...history)
    .when(command)
    .events()[0] as MessageAdded

const attachment = { id: "0b6c…", name: "log.txt", size: 12, contentType: "text/plain" }

describe("messages", () => {
  it("records author, role, sender, content, visibility, attachments and time", () => {
    const sender = { email: "alice@support.test", name: "Alice", userId: 1, profilePicture: "" }
    const event = added(
      [ticketCreated()],
      addMessage({ sender, contentHtml: "<p>We are on it.</p>", attachments: [attachment], hasRawContent: true })
    )
    expect(event.message).toMatchObject({
      id: 100,
      author: alice,
      role: "associate",
      sender,
      content: "We are on it.",
      contentHtml: "<p>We are on it.</p>",
      isVisibleToCustomer: true,
      attachments: [attachment],
      hasRawContent: true,
      createdAt: minute(10)
    })
  })

  it("counts customer-visible messages, not internal notes", () => {
    const reply = added([ticketCreated()], addMessage())
    const note = added([ticketCreated()], addMessage({ messageId: 101, isVisibleToCustomer: false }))
    expect(ticketAfter(ticketCreated(), reply, note).customerVisibleReplyCount).toBe(1)
  })

  it("has_attachments covers message attachments", () => {
    const t = ticketAfter(ticketCreated(), added([ticketCreated()], addMessage({ attachments: [attachment] })))
    expect(t.hasMessageAttachments).toBe(true)
  })

  it("refuses a second message with the same id (DuplicateMessageId)", () => {
    const first = added([ticketCreated()], addMessage())
    given(ticketCreated(), first).when(addMessage()).thenFails("DuplicateMessageId")
  })

  it("refuses an internal note by a customer (CustomerCannotWriteInternalNote)", () => {
    given(ticketCreated())
      .when(addMessage({ actor: customer, isVisibleToCustomer: false }))
      .thenFails("CustomerCannotWriteInternalNote")
  })

  it("refuses a message with neither content nor attachments (EmptyMessage)", () => {
    given(ticketCreated())
      .when(addMessage({ content: "  " }))
      .thenFails("EmptyMessage")
  })

  it("accepts an attachment-only message", () => {
    expect(added([ticketCreated()], addMessage({ content: "", attachments: [attachment] })).message.content).toBe("")
  })

  it("mails a customer-visible reply by the service itself (auto-reply, reminder)", () => {
    expect(added([ticketCreated()], addMessage({ actor: system, sendsEmail: true })).message.sendsEmail).toBe(true)
  })

  it("refuses tracking email delivery of a customer's message or an internal note (OnlyRepliesToTheCustomerAreEmailed)", () => {
    given(ticketCreated())
      .when(addMessage({ actor: customer, sendsEmail: true }))
      .thenFails("OnlyRepliesToTheCustomerAreEmailed")
    given(ticketCreated())
      .when(addMessage({ isVisibleToCustomer: false, sendsEmail: true }))
      .thenFails("OnlyRepliesToTheCustomerAreEmailed")
  })
})

describe("waiting_on follows the last customer-visible message", () => {
  it("after an associate's reply the customer must act", () => {
    expect(ticketAfter(ticketCreated(), added([ticketCreated()], addMessage())).waitingOn).toBe("customer")
  })
  it("after a customer's reply an associate must act", () => {
    const created = ticketCreated({ actor: associate })
    expect(ticketAfter(created, added([created], addMessage({ actor: customer }))).waitingOn).toBe("associate")
  })
  it("an internal note does not change who must act", () => {
    const note = added([ticketCreated()], addMessage({ isVisibleToCustomer: false }))
    expect(ticketAfter(ticketCreated(), note).waitingOn).toBe("associate")
  })
  it("a system message does not change who must act", () => {
    const auto = added([ticketCreated()], addMessage({ actor: system }))
    expect(ticketAfter(ticketCreated(), auto).waitingOn).toBe("associate")
  })
})

describe("CC and BCC snapshots", () => {
  it("an associate reply without its own CC falls back to the creation-time CC", () => {
    expect(added([ticketCreated()], addMessage()).message.externalRecipientEmails).toEqual(["cc@customer.test"])
  })

  it("an associate reply uses the message's own CC when set (even empty)", () => {
    expect(
      added([ticketCreated()], addMessage({ externalRecipientEmails: ["x@y.test"] })).message.externalRecipientEmails
    ).toEqual(["x@y.test"])
    expect(
      added([ticketCreated()], addMessage({ externalRecipientEmails: [] })).message.externalRecipientEmails
    ).toEqual([])
  })

  it("after a customer-visible message with CC, later replies inherit that snapshot, not the creation-time one", () => {
    const customerReply = added(
      [ticketCreated()],
      addMessage({ actor: customer, messageId: 100, externalRecipientEmails: ["boss@customer.test"] })
    )
    const reply = added([ticketCreated(), customerReply], addMessage({ messageId: 101, at: minute(11) }))
    expect(reply.message.externalRecipientEmails).toEqual(["boss@customer.test"])
  })

  it("internal notes neither carry nor change the CC snapshot", () => {
    const note = added(
      [ticketCreated()],
      addMessage({
        isVisibleToCustomer: false,
        externalRecipientEmails: ["x@y.test"],
        bccRecipientEmails: ["z@y.test"]
      })
    )
    expect(note.message.externalRecipientEmails).toEqual([])
    expect(note.message.bccRecipientEmails).toEqual([])
    const reply = added([ticketCreated(), note], addMessage({ messageId: 101 }))
    expect(reply.message.externalRecipientEmails).toEqual(["cc@customer.test"])
  })

  it("a customer message without CC has an empty snapshot, which later associate replies inherit", () => {
    const customerReply = added([ticketCreated()], addMessage({ actor: customer }))
    expect(customerReply.message.externalRecipientEmails).toEqual([])
    const reply = added([ticketCreated(), customerReply], addMessage({ messageId: 101 }))
    expect(reply.message.externalRecipientEmails).toEqual([])
  })

  it("BCC applies only where set on the message: the creation-time BCC is never inherited", () => {
    expect(added([ticketCreated()], addMessage()).message.bccRecipientEmails).toEqual([])
    expect(
      added([ticketCreated()], addMessage({ bccRecipientEmails: ["audit@x.test"] })).message.bccRecipientEmails
    ).toEqual(["audit@x.test"])
  })
})

describe("next_assignee / next_priority / next_action apply with the message", () => {
  it("assigns and reprioritises along with the message", () => {
    const events = given(ticketCreated())
      .when(addMessage({ nextAssignee: bob, nextPriority: "high", nextAction: "follow_up" }))
      .events()
    expect(events.map((e) => e._tag)).toEqual([
      "MessageAdded",
      "TicketActivated",
      "TicketAssigned",
      "TicketPriorityChanged"
    ])
    expect(events[2]).toEqual(new TicketAssigned({ at: minute(10), by: associate, assignee: bob }))
    expect(events[3]).toEqual(new TicketPriorityChanged({ at: minute(10), by: associate, priority: "high" }))
    expect((events[0] as MessageAdded).message.nextAction).toBe("follow_up")
  })

  it("values equal to the ticket's current ones emit nothing extra", () => {
    const events = given(ticketCreated({ assignee: bob, priority: "high" }))
      .when(addMessage({ isVisibleToCustomer: false, nextAssignee: bob, nextPriority: "high" }))
      .events()
    expect(events.map((e) => e._tag)).toEqual(["MessageAdded"])
  })
})

describe("message view", () => {
  it("projects the messages with their delivery state, null where not emailed", () => {
    const created = ticketCreated()
    const emailed = added([created], addMessage({ sendsEmail: true }))
    const note = added([created, emailed], addMessage({ messageId: 101, isVisibleToCustomer: false }))
    const views = projectMessageViews([created, emailed, note])
    expect(views.map((m) => [m.id, m.ticketId, m.deliveryStatus])).toEqual([
      [100, ticketId, "pending"],
      [101, ticketId, null]
    ])
    expect(views[0]!.mergedFromTicket).toBeNull()
  })
})
