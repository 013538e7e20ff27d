import {
  CreateEmailDeliveryReported,
  type DeliveryStatus,
  pendingDelivery,
  ResendCreationEmail,
  TicketEmailResendRequested
} from "@helpdesk/domain"
import { associate, minute, system, ticketCreated, ticketId } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given, ticketAfter } from "../utils/DeciderSpecification.js"

const withCreateEmail = ticketCreated({ actor: associate, sendsCreateEmail: true })
const resend = (at: number) => new ResendCreationEmail({ ticketId, at: minute(at), actor: associate })
const resent = (at: number) => new TicketEmailResendRequested({ at: minute(at), by: associate })
const reported = (status: "sent" | "failed" | "read", at: number, reason = "") =>
  new CreateEmailDeliveryReported({ at: minute(at), by: system, status, reason })

describe("resending the create-email", () => {
  it("a failed create-email goes back to pending", () => {
    const spec = given(withCreateEmail, reported("failed", 1, "550 no such user")).when(resend(2))
    spec.thenEmits(resent(2))
    const ticket = spec.thenTicket()
    expect(ticket.createEmailDelivery).toEqual(pendingDelivery)
    expect(ticket.updatedAt).toEqual(minute(2))
  })

  it("the new attempt's reports apply to the fresh delivery, and it can fail and be resent again", () => {
    const sent = ticketAfter(withCreateEmail, reported("failed", 1, "550"), resent(2), reported("sent", 3))
    expect(sent.createEmailDelivery).toMatchObject({ status: "sent", sentAt: minute(3), failedAt: null })
    given(withCreateEmail, reported("failed", 1, "550"), resent(2), reported("failed", 3, "550 again"))
      .when(resend(4))
      .thenEmits(resent(4))
  })

  const refused: ReadonlyArray<[DeliveryStatus, ReadonlyArray<CreateEmailDeliveryReported>]> = [
    ["pending", []],
    ["sent", [reported("sent", 1)]],
    ["read", [reported("sent", 1), reported("read", 2)]]
  ]
  for (const [status, reports] of refused) {
    it(`is refused when the create-email is ${status}`, () => {
      const error = given(withCreateEmail, ...reports)
        .when(resend(5))
        .thenFails("CreateEmailNotFailed")
      expect(error.status).toBe(status)
    })
  }

  it("is refused right after a resend (pending again) and when a read receipt overtook the failure", () => {
    expect(
      given(withCreateEmail, reported("failed", 1), resent(2)).when(resend(3)).thenFails("CreateEmailNotFailed").status
    ).toBe("pending")
    expect(
      given(withCreateEmail, reported("failed", 1), reported("read", 2))
        .when(resend(3))
        .thenFails("CreateEmailNotFailed").status
    ).toBe("read")
  })

  it("is refused for a ticket that sent no create-email", () => {
    const error = given(ticketCreated({ actor: associate }))
      .when(resend(5))
      .thenFails("CreateEmailNotFailed")
    expect(error.status).toBeNull()
  })
})
