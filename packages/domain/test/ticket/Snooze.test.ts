import {
  CloseTicket,
  MarkSpam,
  SnoozeTicket,
  SnoozeTimerElapsed,
  TicketClosed,
  TicketMarkedSpam,
  TicketMergedInto,
  TicketSnoozed,
  TicketUnsnoozed,
  UnsnoozeTicket
} from "@helpdesk/domain"
import {
  addMessage,
  alice,
  associate,
  customer,
  minute,
  system,
  ticketCreated,
  ticketId
} from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given } from "../utils/DeciderSpecification.js"

const snooze = (until: number, at = 5) =>
  new SnoozeTicket({ ticketId, at: minute(at), actor: associate, until: minute(until) })
const snoozed = (until: number, at = 5) => new TicketSnoozed({ at: minute(at), by: associate, until: minute(until) })
const timer = (scheduledFor: number, at: number) =>
  new SnoozeTimerElapsed({ ticketId, at: minute(at), actor: system, snoozedUntil: minute(scheduledFor) })

describe("snoozing", () => {
  it("snoozes until a future instant, recording who snoozed", () => {
    const spec = given(ticketCreated()).when(snooze(60))
    spec.thenEmits(snoozed(60))
    const t = spec.thenTicket()
    expect(t.snoozedUntil).toEqual(minute(60))
    expect(t.snoozedBy).toEqual(alice)
    expect(t.lastUnsnoozeReason).toBeNull()
  })

  it("refuses a snooze that ends now or earlier (SnoozeMustBeInFuture)", () => {
    given(ticketCreated()).when(snooze(5, 5)).thenFails("SnoozeMustBeInFuture")
    given(ticketCreated()).when(snooze(4, 5)).thenFails("SnoozeMustBeInFuture")
  })

  it("accepts a snooze one minute ahead (the edge)", () => {
    given(ticketCreated()).when(snooze(6, 5)).thenEmits(snoozed(6, 5))
  })

  it("refuses to snooze a closed ticket (CannotSnoozeClosedTicket)", () => {
    given(ticketCreated(), new TicketClosed({ at: minute(2), by: associate, classification: "resolved" }))
      .when(snooze(60))
      .thenFails("CannotSnoozeClosedTicket")
  })

  it("refuses to snooze a merged-away ticket (TicketMergedAway)", () => {
    const merged = new TicketMergedInto({
      at: minute(2),
      by: associate,
      into: { id: 43, publicId: "T-43", subject: "Fire" }
    })
    const error = given(ticketCreated(), merged).when(snooze(60)).thenFails("TicketMergedAway")
    expect(error.mergedInto.id).toBe(43)
  })

  it("refuses to snooze a spam ticket (CannotSnoozeSpamTicket)", () => {
    given(ticketCreated(), new TicketMarkedSpam({ at: minute(2), by: associate }))
      .when(snooze(60))
      .thenFails("CannotSnoozeSpamTicket")
  })

  it("re-snoozing moves snoozed_until", () => {
    const t = given(ticketCreated(), snoozed(60)).when(snooze(120, 10)).thenTicket()
    expect(t.snoozedUntil).toEqual(minute(120))
  })
})

describe("unsnoozing", () => {
  it("by timer at snoozed_until: back in the queues, reason `timer`", () => {
    const spec = given(ticketCreated(), snoozed(60)).when(timer(60, 60))
    spec.thenEmits(new TicketUnsnoozed({ at: minute(60), by: system, reason: "timer" }))
    const t = spec.thenTicket()
    expect(t.snoozedUntil).toBeNull()
    expect(t.snoozedBy).toBeNull()
    expect(t.lastSnoozeEndedAt).toEqual(minute(60))
    expect(t.lastUnsnoozeReason).toBe("timer")
  })

  it("by timer after snoozed_until (a late worker) also unsnoozes", () => {
    given(ticketCreated(), snoozed(60))
      .when(timer(60, 61))
      .thenEmits(new TicketUnsnoozed({ at: minute(61), by: system, reason: "timer" }))
  })

  it("refuses a timer before snoozed_until (SnoozeNotElapsed)", () => {
    given(ticketCreated(), snoozed(60)).when(timer(60, 59)).thenFails("SnoozeNotElapsed")
  })

  it("a stale timer after a re-snooze does nothing", () => {
    given(ticketCreated(), snoozed(60), snoozed(120, 10)).when(timer(60, 60)).thenNothingHappened()
  })

  it("a timer for a ticket no longer snoozed does nothing", () => {
    given(ticketCreated(), snoozed(60), new TicketUnsnoozed({ at: minute(30), by: associate, reason: "manual" }))
      .when(timer(60, 60))
      .thenNothingHappened()
  })

  it("a timer for a merged-away ticket does nothing (the merge cleared the snooze)", () => {
    const merged = new TicketMergedInto({
      at: minute(9),
      by: associate,
      into: { id: 43, publicId: "T-43", subject: "" }
    })
    given(ticketCreated(), snoozed(60), merged).when(timer(60, 60)).thenNothingHappened()
  })

  it("manually: reason `manual`", () => {
    const spec = given(ticketCreated(), snoozed(60)).when(
      new UnsnoozeTicket({ ticketId, at: minute(30), actor: associate })
    )
    spec.thenEmits(new TicketUnsnoozed({ at: minute(30), by: associate, reason: "manual" }))
    expect(spec.thenTicket().lastSnoozeEndedAt).toEqual(minute(30))
  })

  it("refuses a manual unsnooze of a ticket that is not snoozed (TicketNotSnoozed)", () => {
    given(ticketCreated())
      .when(new UnsnoozeTicket({ ticketId, at: minute(30), actor: associate }))
      .thenFails("TicketNotSnoozed")
  })

  it("by a customer's reply: reason `customer_reply`", () => {
    const spec = given(ticketCreated(), snoozed(60)).when(addMessage({ actor: customer, at: minute(30) }))
    expect(spec.events()[1]).toEqual(new TicketUnsnoozed({ at: minute(30), by: customer, reason: "customer_reply" }))
    expect(spec.thenTicket().lastUnsnoozeReason).toBe("customer_reply")
  })

  it("an associate's reply keeps the snooze", () => {
    const t = given(ticketCreated(), snoozed(60))
      .when(addMessage({ at: minute(30) }))
      .thenTicket()
    expect(t.snoozedUntil).toEqual(minute(60))
  })

  it("snoozing again nulls the last unsnooze reason while snoozed", () => {
    const t = given(ticketCreated(), snoozed(60), new TicketUnsnoozed({ at: minute(60), by: system, reason: "timer" }))
      .when(snooze(200, 70))
      .thenTicket()
    expect(t.lastUnsnoozeReason).toBeNull()
    expect(t.lastSnoozeEndedAt).toEqual(minute(60))
  })
})

describe("close and spam clear the snooze", () => {
  const unsnoozedEarlier = new TicketUnsnoozed({ at: minute(8), by: associate, reason: "manual" })

  it("closing a snoozed ticket clears snoozed_until and nulls the reason", () => {
    const t = given(ticketCreated(), snoozed(20, 6), unsnoozedEarlier, snoozed(60, 9))
      .when(new CloseTicket({ ticketId, at: minute(30), actor: associate, classification: "resolved" }))
      .thenTicket()
    expect(t.snoozedUntil).toBeNull()
    expect(t.lastUnsnoozeReason).toBeNull()
  })

  it("closing after an unsnooze nulls the reason but keeps last_snooze_ended_at", () => {
    const t = given(ticketCreated(), snoozed(20, 6), unsnoozedEarlier)
      .when(new CloseTicket({ ticketId, at: minute(30), actor: associate, classification: "resolved" }))
      .thenTicket()
    expect(t.lastUnsnoozeReason).toBeNull()
    expect(t.lastSnoozeEndedAt).toEqual(minute(8))
  })

  it("marking spam clears the snooze", () => {
    const t = given(ticketCreated(), snoozed(60))
      .when(new MarkSpam({ ticketId, at: minute(30), actor: associate }))
      .thenTicket()
    expect(t.snoozedUntil).toBeNull()
    expect(t.lastUnsnoozeReason).toBeNull()
  })
})
