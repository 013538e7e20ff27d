import { projectMessageViews, projectTicketView, TicketMergedInto } from "@helpdesk/domain"
import { addMessage, associate, customer, customerRef, minute, ticketCreated, ticketId } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given } from "../utils/DeciderSpecification.js"

describe("ticket view", () => {
  it("is null for a stream without a ticket", () => {
    expect(projectTicketView([])).toBeNull()
    expect(projectMessageViews([])).toEqual([])
  })

  it("shows every field the domain owns, with spec defaults", () => {
    const attachment = { id: "a1", name: "a.png", size: 3, contentType: "image/png" }
    const created = ticketCreated({ attachments: [attachment] })
    const reply = given(created).when(addMessage()).events()
    expect(projectTicketView([created, ...reply])).toEqual({
      id: ticketId,
      publicId: "T-42",
      organizationId: "acme",
      subject: "Printer on fire",
      inbox: { id: 1, name: "Support", emailPrefix: "support", customerInteractionStyle: "helpdesk" },
      channel: { type: "email", connectionId: 5 },
      customer: customerRef,
      assignee: null,
      kind: "text",
      summary: "",
      customerVisibleReplyCount: 1,
      status: "active",
      classification: "",
      priority: "not_set",
      waitingOn: "customer",
      createdAt: minute(0),
      updatedAt: minute(10),
      csatResponse: null,
      attachments: [attachment],
      hasAttachments: true,
      origin: "email",
      createdBy: customer,
      externalRecipientEmails: ["cc@customer.test"],
      bccRecipientEmails: ["audit@customer.test"],
      fromEmail: "carol@customer.test",
      fromName: "Carol",
      snoozedUntil: null,
      snoozedBy: null,
      lastSnoozeEndedAt: null,
      lastUnsnoozeReason: null,
      mergedInto: null,
      mergedAt: null,
      mergedBy: null,
      description: "It is on fire.",
      descriptionHtml: "<p>It is on fire.</p>",
      sentimentAnalysisClass: "pending",
      tags: [],
      language: "",
      isSpam: false,
      deliveryStatus: null,
      sentAt: null,
      readAt: null,
      failedAt: null,
      deliveryFailureReason: ""
    })
  })

  it("has_attachments is false without ticket or message attachments", () => {
    expect(projectTicketView([ticketCreated()])!.hasAttachments).toBe(false)
  })

  it("shows the merge of a merged-away ticket", () => {
    const into = { id: 7, publicId: "T-7", subject: "Other" }
    const view = projectTicketView([ticketCreated(), new TicketMergedInto({ at: minute(3), by: associate, into })])!
    expect(view).toMatchObject({ mergedInto: into, mergedAt: minute(3), mergedBy: associate.user })
  })

  it("updated_at never moves back for a late event carrying an earlier time", () => {
    const created = ticketCreated({ actor: associate, sendsCreateEmail: true })
    const reply = given(created)
      .when(addMessage({ at: minute(10) }))
      .events()
    const late = given(created, ...reply)
      .when(addMessage({ messageId: 101, at: minute(5), isVisibleToCustomer: false }))
      .events()
    expect(projectTicketView([created, ...reply, ...late])!.updatedAt).toEqual(minute(10))
  })
})
