import {
  decideMerge,
  evolve,
  initialState,
  MergeTickets,
  type MessageAdded,
  type MessageDeliveryReported,
  OrganizationId,
  projectMessageViews,
  ReportDelivery,
  SnoozeTicket,
  type TicketEvent,
  TicketMergedFrom,
  TicketMergedInto,
  type TicketState
} from "@helpdesk/domain"
import { addMessage, alice, associate, customer, minute, system, ticketCreated } from "@helpdesk/domain/testing"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { given, ticketAfter } from "../utils/DeciderSpecification.js"

const fold = (events: ReadonlyArray<TicketEvent>): TicketState => events.reduce(evolve, initialState)

const sourceCreated = ticketCreated({ ticketId: 1, publicId: "T-1", subject: "Printer" })
const targetCreated = ticketCreated({ ticketId: 2, publicId: "T-2", subject: "Printer again" })
const sourceReply = given(sourceCreated)
  .when(addMessage({ ticketId: 1, messageId: 10, sendsEmail: true }))
  .events()[0] as MessageAdded
const sourceNote = given(sourceCreated, sourceReply)
  .when(addMessage({ ticketId: 1, messageId: 11, isVisibleToCustomer: false, at: minute(11) }))
  .events()[0] as MessageAdded
const sentReport = given(sourceCreated, sourceReply)
  .when(new ReportDelivery({ ticketId: 1, at: minute(12), actor: system, messageId: 10, status: "sent" }))
  .events()[0] as MessageDeliveryReported
const source = [sourceCreated, sourceReply, sourceNote, sentReport]
const target = [targetCreated]

const merge = (sourceTicketId = 1, targetTicketId = 2) =>
  new MergeTickets({ sourceTicketId, targetTicketId, at: minute(30), actor: associate })

const decided = (s: ReadonlyArray<TicketEvent>, t: ReadonlyArray<TicketEvent>, command = merge()) =>
  decideMerge(command, fold(s), fold(t))

const accepted = (s: ReadonlyArray<TicketEvent>, t: ReadonlyArray<TicketEvent>) => {
  const result = decided(s, t)
  if (Either.isLeft(result)) throw new Error(result.left._tag)
  return result.right
}

const refusal = (s: ReadonlyArray<TicketEvent>, t: ReadonlyArray<TicketEvent>, command = merge()) => {
  const result = decided(s, t, command)
  if (Either.isRight(result)) throw new Error("expected a refusal")
  return result.left
}

describe("merging a source ticket into a target", () => {
  it("the source records merged_into / merged_at / merged_by", () => {
    const decision = accepted(source, target)
    expect(decision.source).toEqual([
      new TicketMergedInto({
        at: minute(30),
        by: associate,
        into: { id: 2, publicId: "T-2", subject: "Printer again" }
      })
    ])
    const s = ticketAfter(...source, ...decision.source)
    expect(s.mergedInto).toEqual({ id: 2, publicId: "T-2", subject: "Printer again" })
    expect(s.mergedAt).toEqual(minute(30))
    expect(s.mergedBy).toEqual(alice)
  })

  it("the target gains the source's messages marked merged_from_ticket, keeping their delivery state", () => {
    const decision = accepted(source, target)
    expect(decision.target).toHaveLength(1)
    const event = decision.target[0] as TicketMergedFrom
    expect(event).toBeInstanceOf(TicketMergedFrom)
    expect(event.from).toEqual({ id: 1, publicId: "T-1", subject: "Printer" })
    const views = projectMessageViews([...target, ...decision.target])
    expect(views.map((m) => [m.id, m.ticketId, m.mergedFromTicket?.id, m.deliveryStatus])).toEqual([
      [10, 2, 1, "sent"],
      [11, 2, 1, null]
    ])
    const t = ticketAfter(...target, ...decision.target)
    expect(t.customerVisibleReplyCount).toBe(1)
  })

  it("the survivor then takes delivery reports for a carried message", () => {
    const decision = accepted(source, target)
    const t = given(...target, ...decision.target)
      .when(new ReportDelivery({ ticketId: 2, at: minute(40), actor: system, messageId: 10, status: "read" }))
      .thenTicket()
    expect(t.messages.find((m) => m.id === 10)?.delivery?.status).toBe("read")
  })

  it("messages carried twice keep the ticket they first came from", () => {
    const intoTarget = accepted(source, target)
    const third = [ticketCreated({ ticketId: 3, publicId: "T-3" })]
    const second = decideMerge(merge(2, 3), fold([...target, ...intoTarget.target]), fold(third))
    if (Either.isLeft(second)) throw new Error(second.left._tag)
    const views = projectMessageViews([...third, ...second.right.target])
    expect(views.map((m) => m.mergedFromTicket?.id)).toEqual([1, 1])
  })

  it("the merge clears the source's snooze", () => {
    const snoozed = given(...source)
      .when(new SnoozeTicket({ ticketId: 1, at: minute(20), actor: associate, until: minute(90) }))
      .events()
    const decision = accepted([...source, ...snoozed], target)
    expect(ticketAfter(...source, ...snoozed, ...decision.source).snoozedUntil).toBeNull()
  })
})

describe("merge refusals", () => {
  it("not into itself (CannotMergeIntoItself)", () => {
    expect(refusal(source, source, merge(1, 1))._tag).toBe("CannotMergeIntoItself")
  })

  it("not across organizations (CannotMergeAcrossOrganizations)", () => {
    const foreign = [ticketCreated({ ticketId: 2, organizationId: OrganizationId.make("globex") })]
    expect(refusal(source, foreign)._tag).toBe("CannotMergeAcrossOrganizations")
  })

  it("not into a ticket that is itself merged away (CannotMergeIntoMergedTicket)", () => {
    const away = new TicketMergedInto({ at: minute(20), by: associate, into: { id: 9, publicId: "T-9", subject: "" } })
    const error = refusal(source, [...target, away])
    expect(error._tag).toBe("CannotMergeIntoMergedTicket")
  })

  it("not from a ticket already merged (TicketAlreadyMerged)", () => {
    const away = new TicketMergedInto({ at: minute(20), by: associate, into: { id: 9, publicId: "T-9", subject: "" } })
    expect(refusal([...source, away], target)._tag).toBe("TicketAlreadyMerged")
  })

  it("not with a ticket that does not exist (TicketNotFound)", () => {
    expect(refusal([], target)._tag).toBe("TicketNotFound")
    expect(refusal(source, [])._tag).toBe("TicketNotFound")
  })
})

describe("the source's opening request travels to the survivor", () => {
  const attachment = {
    id: "6f1c2a52-0d2b-4a57-9d7e-2f1f7c8f3a10",
    name: "photo.jpg",
    size: 10,
    contentType: "image/jpeg"
  }
  const withAttachment = ticketCreated({ ticketId: 1, publicId: "T-1", subject: "Printer", attachments: [attachment] })
  const carrying = (openingMessageId: number) =>
    new MergeTickets({ sourceTicketId: 1, targetTicketId: 2, at: minute(30), actor: associate, openingMessageId })

  it("as a message marked merged_from_ticket: description, HTML, attachments, the opener, the opening time", () => {
    const result = decideMerge(carrying(99), fold([withAttachment, sourceReply]), fold(target))
    if (Either.isLeft(result)) throw new Error(result.left._tag)
    const views = projectMessageViews([...target, ...result.right.target])
    expect(views.map((m) => m.id)).toEqual([99, 10])
    const opening = views[0]!
    expect(opening).toMatchObject({
      ticketId: 2,
      role: "customer",
      author: withAttachment.by.user,
      sender: { email: "carol@customer.test", name: "Carol", userId: null, profilePicture: "" },
      content: "It is on fire.",
      contentHtml: "<p>It is on fire.</p>",
      attachments: [attachment],
      isVisibleToCustomer: true,
      externalRecipientEmails: ["cc@customer.test"],
      createdAt: minute(0),
      mergedFromTicket: { id: 1, publicId: "T-1", subject: "Printer" },
      deliveryStatus: null
    })
    const survivor = ticketAfter(...target, ...result.right.target)
    expect(survivor.hasMessageAttachments).toBe(true)
    expect(survivor.customerVisibleReplyCount).toBe(2)
  })

  it("an associate's ticket: no sender, the associate as author; chains keep every opening request", () => {
    const byAssociate = ticketCreated({ ticketId: 1, publicId: "T-1", actor: associate, sendsCreateEmail: true })
    const first = decideMerge(carrying(99), fold([byAssociate]), fold(target))
    if (Either.isLeft(first)) throw new Error(first.left._tag)
    const survivor = [...target, ...first.right.target]
    const opening = projectMessageViews(survivor)[0]!
    expect(opening).toMatchObject({ id: 99, role: "associate", author: alice, sender: null, deliveryStatus: null })
    const third = ticketCreated({ ticketId: 3, publicId: "T-3", subject: "Third" })
    const second = decideMerge(
      new MergeTickets({
        sourceTicketId: 2,
        targetTicketId: 3,
        at: minute(40),
        actor: associate,
        openingMessageId: 100
      }),
      fold(survivor),
      fold([third])
    )
    if (Either.isLeft(second)) throw new Error(second.left._tag)
    const views = projectMessageViews([third, ...second.right.target])
    expect(views.map((m) => [m.id, m.mergedFromTicket?.id])).toEqual([
      [100, 2],
      [99, 1]
    ])
  })

  it("nothing to carry (a pending audio ticket without files), and an id already taken is refused", () => {
    const audio = ticketCreated({ ticketId: 1, publicId: "T-1", kind: "audio", description: "", descriptionHtml: "" })
    const result = decideMerge(carrying(99), fold([audio]), fold(target))
    if (Either.isLeft(result)) throw new Error(result.left._tag)
    expect(projectMessageViews([...target, ...result.right.target])).toEqual([])
    expect(refusal(source, target, carrying(10))._tag).toBe("DuplicateMessageId")
  })
})

describe("a merged-away ticket refuses further writes", () => {
  const away = new TicketMergedInto({ at: minute(30), by: associate, into: { id: 2, publicId: "T-2", subject: "" } })

  it("a customer's reply is refused with TicketMergedAway naming the survivor, to re-address it there", () => {
    const error = given(...source, away)
      .when(addMessage({ ticketId: 1, messageId: 12, actor: customer }))
      .thenFails("TicketMergedAway")
    expect(error.ticketId).toBe(1)
    expect(error.mergedInto.id).toBe(2)
  })

  it("so is an associate's note", () => {
    given(...source, away)
      .when(addMessage({ ticketId: 1, messageId: 12, isVisibleToCustomer: false }))
      .thenFails("TicketMergedAway")
  })
})
