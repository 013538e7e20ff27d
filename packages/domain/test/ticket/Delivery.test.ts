import {
  applyDeliveryReport,
  CreateEmailDeliveryReported,
  type Delivery,
  type MessageAdded,
  MessageDeliveryReported,
  maxFailureReasonLength,
  pendingDelivery,
  projectTicketView,
  ReportDelivery,
  type ReportedDeliveryStatus
} from "@helpdesk/domain"
import { addMessage, associate, minute, system, ticketCreated, ticketId } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given } from "../utils/DeciderSpecification.js"

const withCreateEmail = ticketCreated({ actor: associate, sendsCreateEmail: true })
const report = (status: ReportedDeliveryStatus, at: number, reason = "", messageId: number | null = null) =>
  new ReportDelivery({ ticketId, at: minute(at), actor: system, messageId, status, reason })
const reported = (status: ReportedDeliveryStatus, at: number, reason = "") =>
  new CreateEmailDeliveryReported({ at: minute(at), by: system, status, reason })

describe("create-email delivery", () => {
  it("pending → sent records sent_at", () => {
    const spec = given(withCreateEmail).when(report("sent", 1))
    spec.thenEmits(reported("sent", 1))
    expect(spec.thenTicket().createEmailDelivery).toEqual({ ...pendingDelivery, status: "sent", sentAt: minute(1) })
  })

  it("sent → read records read_at and keeps sent_at", () => {
    const t = given(withCreateEmail, reported("sent", 1)).when(report("read", 5)).thenTicket()
    expect(t.createEmailDelivery).toMatchObject({ status: "read", sentAt: minute(1), readAt: minute(5) })
  })

  it("a read receipt without a sent report also sets sent_at", () => {
    const t = given(withCreateEmail).when(report("read", 5)).thenTicket()
    expect(t.createEmailDelivery).toMatchObject({ status: "read", sentAt: minute(5), readAt: minute(5) })
  })

  it("failed records failed_at and a short reason", () => {
    const t = given(withCreateEmail, reported("sent", 1))
      .when(report("failed", 2, "550 mailbox unavailable"))
      .thenTicket()
    expect(t.createEmailDelivery).toMatchObject({
      status: "failed",
      sentAt: minute(1),
      failedAt: minute(2),
      failureReason: "550 mailbox unavailable"
    })
  })

  it("a long failure reason is cut to the limit", () => {
    const events = given(withCreateEmail)
      .when(report("failed", 2, "x".repeat(5000)))
      .events()
    const reason = (events[0] as CreateEmailDeliveryReported).reason
    expect(reason.length).toBe(maxFailureReasonLength)
    expect(reason.endsWith("…")).toBe(true)
    const exact = given(withCreateEmail)
      .when(report("failed", 2, "y".repeat(maxFailureReasonLength)))
      .events()
    expect((exact[0] as CreateEmailDeliveryReported).reason).toBe("y".repeat(maxFailureReasonLength))
  })

  it("a duplicate report is absorbed", () => {
    given(withCreateEmail, reported("sent", 1)).when(report("sent", 1)).thenNothingHappened()
  })

  it("a late `sent` after `read` does not move the status back", () => {
    given(withCreateEmail, reported("read", 5)).when(report("sent", 6)).thenNothingHappened()
  })

  it("a late `sent` carrying an earlier time corrects sent_at without moving the status", () => {
    const t = given(withCreateEmail, reported("read", 5)).when(report("sent", 1)).thenTicket()
    expect(t.createEmailDelivery).toMatchObject({ status: "read", sentAt: minute(1), readAt: minute(5) })
  })

  it("a failure after a read receipt is absorbed; a read receipt after a failure wins", () => {
    given(withCreateEmail, reported("read", 5))
      .when(report("failed", 6, "bounce"))
      .thenNothingHappened()
    const t = given(withCreateEmail, reported("failed", 5, "bounce"))
      .when(report("read", 6))
      .thenTicket()
    expect(t.createEmailDelivery).toMatchObject({ status: "read", failedAt: null, failureReason: "" })
  })

  it("refuses a report for a ticket that sent no create-email (DeliveryNotTracked)", () => {
    given(ticketCreated()).when(report("sent", 1)).thenFails("DeliveryNotTracked")
  })

  it("later replies do not change the ticket's delivery state", () => {
    const spec = given(withCreateEmail, reported("read", 5)).when(addMessage({ sendsEmail: true, at: minute(10) }))
    expect(spec.thenTicket().createEmailDelivery?.status).toBe("read")
  })

  it("the ticket view shows null delivery fields when there is no create-email", () => {
    const view = projectTicketView([ticketCreated()])
    expect(view).toMatchObject({ deliveryStatus: null, sentAt: null, readAt: null, failedAt: null })
    expect(projectTicketView([withCreateEmail, reported("sent", 1)])).toMatchObject({
      deliveryStatus: "sent",
      sentAt: minute(1)
    })
  })
})

describe("message delivery", () => {
  const emailed = given(withCreateEmail)
    .when(addMessage({ sendsEmail: true }))
    .events()[0] as MessageAdded
  const note = given(withCreateEmail)
    .when(addMessage({ messageId: 101, isVisibleToCustomer: false }))
    .events()[0] as MessageAdded

  it("a message's email moves on its own, leaving the ticket's create-email alone", () => {
    const spec = given(withCreateEmail, emailed).when(report("sent", 11, "", 100))
    spec.thenEmits(
      new MessageDeliveryReported({ at: minute(11), by: system, messageId: 100, status: "sent", reason: "" })
    )
    const t = spec.thenTicket()
    expect(t.messages[0]!.delivery).toMatchObject({ status: "sent", sentAt: minute(11) })
    expect(t.createEmailDelivery?.status).toBe("pending")
  })

  it("duplicates and regressions are absorbed per message", () => {
    const read = new MessageDeliveryReported({ at: minute(12), by: system, messageId: 100, status: "read", reason: "" })
    given(withCreateEmail, emailed, read)
      .when(report("read", 12, "", 100))
      .thenNothingHappened()
    given(withCreateEmail, emailed, read)
      .when(report("sent", 13, "", 100))
      .thenNothingHappened()
  })

  it("receipts leave updated_at of the ticket and of the message where the last change put it", () => {
    const t = given(withCreateEmail, emailed, reported("sent", 20), reported("read", 30))
      .when(report("read", 40, "", 100))
      .thenTicket()
    expect(t.messages[0]!.delivery?.status).toBe("read")
    expect(t.createEmailDelivery?.status).toBe("read")
    expect(t.messages[0]!.updatedAt).toEqual(emailed.message.createdAt)
    expect(t.updatedAt).toEqual(emailed.at)
    const failed = given(withCreateEmail)
      .when(report("failed", 50, "550 no such user"))
      .thenTicket()
    expect(failed.createEmailDelivery?.status).toBe("failed")
    expect(failed.updatedAt).toEqual(withCreateEmail.at)
  })

  it("a sent report with a reason records the refused recipients beside sent; a read keeps them, a failure wins", () => {
    const partly = given(withCreateEmail).when(report("sent", 5, "Refused: cc@customer.test (550 no such user)"))
    partly.thenEmits(reported("sent", 5, "Refused: cc@customer.test (550 no such user)"))
    const view = projectTicketView([
      withCreateEmail,
      reported("sent", 5, "Refused: cc@customer.test (550 no such user)")
    ])!
    expect(view.deliveryStatus).toBe("sent")
    expect(view.deliveryFailureReason).toBe("Refused: cc@customer.test (550 no such user)")
    const read = projectTicketView([
      withCreateEmail,
      reported("sent", 5, "Refused: cc@customer.test (550 no such user)"),
      reported("read", 9)
    ])!
    expect(read).toMatchObject({
      deliveryStatus: "read",
      deliveryFailureReason: "Refused: cc@customer.test (550 no such user)"
    })
    const failed = projectTicketView([
      withCreateEmail,
      reported("sent", 5, "Refused: x"),
      reported("failed", 7, "bounced")
    ])!
    expect(failed).toMatchObject({ deliveryStatus: "failed", deliveryFailureReason: "bounced" })
    // The same report again changes nothing; a plain sent keeps no reason.
    given(withCreateEmail, reported("sent", 5, "Refused: x"))
      .when(report("sent", 5, "Refused: x"))
      .thenNothingHappened()
    expect(projectTicketView([withCreateEmail, reported("sent", 5)])!.deliveryFailureReason).toBe("")
  })

  it("refuses a report for an unknown message (MessageNotFound)", () => {
    given(withCreateEmail, emailed)
      .when(report("sent", 11, "", 999))
      .thenFails("MessageNotFound")
  })

  it("refuses a report for a message that was not emailed (DeliveryNotTracked)", () => {
    given(withCreateEmail, note)
      .when(report("sent", 11, "", 101))
      .thenFails("DeliveryNotTracked")
  })
})

describe("applyDeliveryReport", () => {
  it("returns the same object when nothing changes (so decide can detect duplicates)", () => {
    const sent: Delivery = applyDeliveryReport(pendingDelivery, "sent", minute(1), "")
    expect(applyDeliveryReport(sent, "sent", minute(2), "")).toBe(sent)
  })
})
