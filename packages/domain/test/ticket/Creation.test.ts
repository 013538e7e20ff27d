import { RecordTranscript, TicketTranscriptRecorded } from "@helpdesk/domain"
import { associate, createTicket, customer, minute, system, ticketCreated, ticketId } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given, ticketAfter } from "../utils/DeciderSpecification.js"

describe("ticket creation", () => {
  it("given no ticket, when a customer creates one, then TicketCreated carries every field", () => {
    given().when(createTicket()).thenEmits(ticketCreated())
  })

  it("a new ticket starts `created`, unclassified, waiting on an associate, with no create-email", () => {
    const t = ticketAfter(ticketCreated())
    expect(t.status).toBe("created")
    expect(t.classification).toBe("")
    expect(t.waitingOn).toBe("associate")
    expect(t.customerVisibleReplyCount).toBe(0)
    expect(t.createEmailDelivery).toBeNull()
    expect(t.sentiment).toBe("pending")
    expect(t.createdBy).toEqual(customer)
    expect(t.externalRecipientEmails).toEqual(["cc@customer.test"])
    expect(t.bccRecipientEmails).toEqual(["audit@customer.test"])
    expect(t.fromEmail).toBe("carol@customer.test")
    expect(t.createdAt).toEqual(minute(0))
    expect(t.updatedAt).toEqual(minute(0))
  })

  it("a ticket an associate creates waits on the customer", () => {
    expect(ticketAfter(ticketCreated({ actor: associate })).waitingOn).toBe("customer")
  })

  it("a ticket the system creates waits on nobody", () => {
    expect(ticketAfter(ticketCreated({ actor: system })).waitingOn).toBe("")
  })

  it("an associate's create-email starts `pending`", () => {
    const t = ticketAfter(ticketCreated({ actor: associate, sendsCreateEmail: true }))
    expect(t.createEmailDelivery?.status).toBe("pending")
  })

  it("refuses a create-email for a ticket a customer creates (CreateEmailRequiresAssociate)", () => {
    given()
      .when(createTicket({ sendsCreateEmail: true }))
      .thenFails("CreateEmailRequiresAssociate")
  })

  it("refuses to create a ticket twice (TicketAlreadyExists)", () => {
    given(ticketCreated()).when(createTicket()).thenFails("TicketAlreadyExists")
  })

  it("refuses other commands before creation (TicketNotFound)", () => {
    const error = given()
      .when(new RecordTranscript({ ticketId, at: minute(1), actor: system, transcript: "hello" }))
      .thenFails("TicketNotFound")
    expect(error.ticketId).toBe(ticketId)
  })
})

describe("audio tickets", () => {
  const audio = { kind: "audio" as const, description: "", descriptionHtml: "" }

  it("an audio ticket with an empty description is pending speech-to-text", () => {
    const t = ticketAfter(ticketCreated(audio))
    expect(t.kind).toBe("audio")
    expect(t.description).toBe("")
  })

  it("refuses HTML on an audio ticket (AudioTicketHasNoHtml)", () => {
    given()
      .when(createTicket({ ...audio, descriptionHtml: "<p>x</p>" }))
      .thenFails("AudioTicketHasNoHtml")
  })

  it("when the transcript arrives, then it becomes the description and the HTML stays empty", () => {
    const command = new RecordTranscript({
      ticketId,
      at: minute(2),
      actor: system,
      transcript: "My printer is on fire"
    })
    const spec = given(ticketCreated(audio)).when(command)
    spec.thenEmits(new TicketTranscriptRecorded({ at: minute(2), by: system, transcript: "My printer is on fire" }))
    const t = spec.thenTicket()
    expect(t.description).toBe("My printer is on fire")
    expect(t.descriptionHtml).toBe("")
  })

  it("the same transcript twice changes nothing", () => {
    given(ticketCreated(audio), new TicketTranscriptRecorded({ at: minute(2), by: system, transcript: "hi" }))
      .when(new RecordTranscript({ ticketId, at: minute(3), actor: system, transcript: "hi" }))
      .thenNothingHappened()
  })

  it("refuses a transcript for a text ticket (NotAnAudioTicket)", () => {
    given(ticketCreated())
      .when(new RecordTranscript({ ticketId, at: minute(2), actor: system, transcript: "x" }))
      .thenFails("NotAnAudioTicket")
  })
})
