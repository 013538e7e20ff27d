import {
  ClassifyTicket,
  CloseTicket,
  type MessageAdded,
  ReopenTicket,
  TicketActivated,
  TicketClassified,
  TicketClosed,
  TicketReopened
} from "@helpdesk/domain"
import { addMessage, associate, customer, minute, ticketCreated, ticketId } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given, ticketAfter } from "../utils/DeciderSpecification.js"

const close = (classification: ConstructorParameters<typeof CloseTicket>[0]["classification"], at = minute(20)) =>
  new CloseTicket({ ticketId, at, actor: associate, classification })
const closed = (at = minute(20)) => new TicketClosed({ at, by: associate, classification: "resolved" })

/** The MessageAdded event an `addMessage(overrides)` produces (first event of the decision). */
const messageAdded = (overrides: Parameters<typeof addMessage>[0] = {}) =>
  given(ticketCreated()).when(addMessage(overrides)).events()[0] as MessageAdded

describe("status: created → active", () => {
  it("an associate's customer-visible reply activates a created ticket", () => {
    const spec = given(ticketCreated()).when(addMessage())
    const events = spec.events()
    expect(events.map((e) => e._tag)).toEqual(["MessageAdded", "TicketActivated"])
    expect(events[1]).toEqual(new TicketActivated({ at: minute(10), by: associate }))
    expect(spec.thenTicket().status).toBe("active")
  })

  it("an internal note does not activate", () => {
    const events = given(ticketCreated())
      .when(addMessage({ isVisibleToCustomer: false }))
      .events()
    expect(events.map((e) => e._tag)).toEqual(["MessageAdded"])
  })

  it("a customer's reply on a created ticket leaves it created", () => {
    const events = given(ticketCreated())
      .when(addMessage({ actor: customer }))
      .events()
    expect(events.map((e) => e._tag)).toEqual(["MessageAdded"])
  })

  it("a reply on an active ticket does not activate again", () => {
    const events = given(ticketCreated(), messageAdded(), new TicketActivated({ at: minute(10), by: associate }))
      .when(addMessage({ messageId: 101, at: minute(11) }))
      .events()
    expect(events.map((e) => e._tag)).toEqual(["MessageAdded"])
  })
})

describe("status: closing", () => {
  it("closing with a classification closes and records it", () => {
    const spec = given(ticketCreated()).when(close("resolved"))
    spec.thenEmits(closed())
    const t = spec.thenTicket()
    expect(t.status).toBe("closed")
    expect(t.classification).toBe("resolved")
  })

  it("refuses to close without a classification (ClassificationRequiredToClose)", () => {
    given(ticketCreated()).when(close("")).thenFails("ClassificationRequiredToClose")
  })

  it("refuses to close a closed ticket (TicketAlreadyClosed)", () => {
    given(ticketCreated(), closed())
      .when(close("other", minute(30)))
      .thenFails("TicketAlreadyClosed")
  })
})

describe("status: reopening", () => {
  it("reopening a closed ticket makes it active and its classification pending again", () => {
    const spec = given(ticketCreated(), closed()).when(new ReopenTicket({ ticketId, at: minute(30), actor: associate }))
    spec.thenEmits(new TicketReopened({ at: minute(30), by: associate, reason: "manual" }))
    const t = spec.thenTicket()
    expect(t.status).toBe("active")
    expect(t.classification).toBe("")
  })

  it("refuses to reopen a ticket that is not closed (TicketNotClosed)", () => {
    given(ticketCreated())
      .when(new ReopenTicket({ ticketId, at: minute(30), actor: associate }))
      .thenFails("TicketNotClosed")
  })

  it("a customer's reply on a closed ticket reopens it (reason customer_reply)", () => {
    const spec = given(ticketCreated(), closed()).when(addMessage({ actor: customer, at: minute(30) }))
    const events = spec.events()
    expect(events.map((e) => e._tag)).toEqual(["MessageAdded", "TicketReopened"])
    expect(events[1]).toEqual(new TicketReopened({ at: minute(30), by: customer, reason: "customer_reply" }))
    expect(spec.thenTicket().status).toBe("active")
  })

  it("an associate's reply on a closed ticket leaves it closed", () => {
    const spec = given(ticketCreated(), closed()).when(addMessage({ at: minute(30) }))
    expect(spec.events().map((e) => e._tag)).toEqual(["MessageAdded"])
    expect(spec.thenTicket().status).toBe("closed")
  })
})

describe("classification", () => {
  const classify = (classification: ConstructorParameters<typeof ClassifyTicket>[0]["classification"]) =>
    new ClassifyTicket({ ticketId, at: minute(25), actor: associate, classification })

  it("an open ticket can be classified ahead of closing", () => {
    given(ticketCreated())
      .when(classify("invalid"))
      .thenEmits(new TicketClassified({ at: minute(25), by: associate, classification: "invalid" }))
  })

  it("a closed ticket can be reclassified", () => {
    const t = given(ticketCreated(), closed()).when(classify("other")).thenTicket()
    expect(t.classification).toBe("other")
    expect(t.status).toBe("closed")
  })

  it("refuses clearing the classification of a closed ticket (ClassificationRequiredToClose)", () => {
    given(ticketCreated(), closed()).when(classify("")).thenFails("ClassificationRequiredToClose")
  })

  it("setting the same classification changes nothing", () => {
    given(ticketCreated(), closed()).when(classify("resolved")).thenNothingHappened()
  })

  it("updated_at follows the latest event", () => {
    expect(ticketAfter(ticketCreated(), closed(minute(20))).updatedAt).toEqual(minute(20))
  })
})
