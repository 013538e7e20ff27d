import {
  AssignTicket,
  ChangePriority,
  MarkSpam,
  RecordCsatResponse,
  RecordLanguage,
  RecordSentiment,
  RecordSummary,
  SetTags,
  SetWaitingOn,
  TicketAssigned,
  TicketCsatRecorded,
  TicketLanguageDetected,
  TicketMarkedSpam,
  TicketPriorityChanged,
  TicketSentimentAnalyzed,
  TicketSnoozed,
  TicketSummarized,
  TicketTagsChanged,
  TicketUnmarkedSpam,
  TicketWaitingOnChanged,
  UnmarkSpam
} from "@helpdesk/domain"
import { associate, bob, customer, minute, system, ticketCreated, ticketId } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given } from "../utils/DeciderSpecification.js"

const base = { ticketId, at: minute(5) }
const by = { at: minute(5) }

describe("priority", () => {
  it("changes the priority", () => {
    const spec = given(ticketCreated()).when(new ChangePriority({ ...base, actor: associate, priority: "urgent" }))
    spec.thenEmits(new TicketPriorityChanged({ ...by, by: associate, priority: "urgent" }))
    expect(spec.thenTicket().priority).toBe("urgent")
  })
  it("the same priority changes nothing", () => {
    given(ticketCreated({ priority: "high" }))
      .when(new ChangePriority({ ...base, actor: associate, priority: "high" }))
      .thenNothingHappened()
  })
})

describe("assignee", () => {
  it("assigns and unassigns", () => {
    const assigned = new TicketAssigned({ ...by, by: associate, assignee: bob })
    given(ticketCreated())
      .when(new AssignTicket({ ...base, actor: associate, assignee: bob }))
      .thenEmits(assigned)
    const t = given(ticketCreated(), assigned)
      .when(new AssignTicket({ ...base, actor: associate, assignee: null }))
      .thenTicket()
    expect(t.assignee).toBeNull()
  })
  it("assigning the current assignee changes nothing", () => {
    given(ticketCreated({ assignee: bob }))
      .when(new AssignTicket({ ...base, actor: associate, assignee: bob }))
      .thenNothingHappened()
  })
})

describe("tags", () => {
  const billing = { id: 1, name: "billing", color: "#f00" }
  const vip = { id: 2, name: "VIP", color: "" }
  it("replaces the tag set, dropping duplicates", () => {
    const spec = given(ticketCreated()).when(new SetTags({ ...base, actor: associate, tags: [billing, vip, billing] }))
    spec.thenEmits(new TicketTagsChanged({ ...by, by: associate, tags: [billing, vip] }))
    expect(spec.thenTicket().tags).toEqual([billing, vip])
  })
  it("the same tags change nothing", () => {
    given(ticketCreated({ tags: [billing] }))
      .when(new SetTags({ ...base, actor: associate, tags: [billing] }))
      .thenNothingHappened()
  })
})

describe("spam", () => {
  it("marking spam clears the snooze and its reason", () => {
    const spec = given(ticketCreated(), new TicketSnoozed({ at: minute(1), by: associate, until: minute(60) })).when(
      new MarkSpam({ ...base, actor: associate })
    )
    spec.thenEmits(new TicketMarkedSpam({ ...by, by: associate }))
    const t = spec.thenTicket()
    expect(t.isSpam).toBe(true)
    expect(t.snoozedUntil).toBeNull()
    expect(t.snoozedBy).toBeNull()
    expect(t.lastUnsnoozeReason).toBeNull()
  })
  it("marking spam twice changes nothing; unmarking reverses it", () => {
    const marked = new TicketMarkedSpam({ ...by, by: associate })
    given(ticketCreated(), marked)
      .when(new MarkSpam({ ...base, actor: associate }))
      .thenNothingHappened()
    const spec = given(ticketCreated(), marked).when(new UnmarkSpam({ ...base, actor: associate }))
    spec.thenEmits(new TicketUnmarkedSpam({ ...by, by: associate }))
    expect(spec.thenTicket().isSpam).toBe(false)
  })
  it("unmarking a ticket that is not spam changes nothing", () => {
    given(ticketCreated())
      .when(new UnmarkSpam({ ...base, actor: associate }))
      .thenNothingHappened()
  })
})

describe("waiting_on set by hand", () => {
  it("records who must act next", () => {
    const spec = given(ticketCreated()).when(new SetWaitingOn({ ...base, actor: associate, waitingOn: "customer" }))
    spec.thenEmits(new TicketWaitingOnChanged({ ...by, by: associate, waitingOn: "customer" }))
    expect(spec.thenTicket().waitingOn).toBe("customer")
  })
  it("setting the value it has changes nothing", () => {
    given(ticketCreated(), new TicketWaitingOnChanged({ ...by, by: associate, waitingOn: "" }))
      .when(new SetWaitingOn({ ...base, actor: associate, waitingOn: "" }))
      .thenNothingHappened()
  })
})

describe("CSAT", () => {
  it("records the rating and comment", () => {
    const spec = given(ticketCreated()).when(
      new RecordCsatResponse({ ...base, actor: customer, rating: 5, comment: "Great" })
    )
    spec.thenEmits(new TicketCsatRecorded({ ...by, by: customer, rating: 5, comment: "Great" }))
    expect(spec.thenTicket().csatResponse).toEqual({ rating: 5, comment: "Great" })
  })
  it.each([1, 5])("accepts rating %i at the edge", (rating) => {
    expect(
      given(ticketCreated())
        .when(new RecordCsatResponse({ ...base, actor: customer, rating }))
        .events()
    ).toHaveLength(1)
  })
  it("keeps the first answer: a second one is refused (CsatAlreadyRecorded)", () => {
    const first = new TicketCsatRecorded({ ...by, by: customer, rating: 2, comment: "Slow" })
    given(ticketCreated(), first)
      .when(new RecordCsatResponse({ ...base, actor: customer, rating: 5 }))
      .thenFails("CsatAlreadyRecorded")
  })
  it.each([0, 6, -1])("refuses rating %i (CsatRatingOutOfRange)", (rating) => {
    given(ticketCreated())
      .when(new RecordCsatResponse({ ...base, actor: customer, rating }))
      .thenFails("CsatRatingOutOfRange")
  })
})

describe("enrichment: summary, sentiment, language", () => {
  it("records a summary, and the same summary again changes nothing", () => {
    const event = new TicketSummarized({ ...by, by: system, summary: "Printer fire" })
    given(ticketCreated())
      .when(new RecordSummary({ ...base, actor: system, summary: "Printer fire" }))
      .thenEmits(event)
    given(ticketCreated(), event)
      .when(new RecordSummary({ ...base, actor: system, summary: "Printer fire" }))
      .thenNothingHappened()
  })
  it("records a sentiment class", () => {
    const spec = given(ticketCreated()).when(new RecordSentiment({ ...base, actor: system, sentiment: "negative" }))
    spec.thenEmits(new TicketSentimentAnalyzed({ ...by, by: system, sentiment: "negative" }))
    expect(spec.thenTicket().sentiment).toBe("negative")
  })
  it("records a two-letter language code", () => {
    const spec = given(ticketCreated()).when(new RecordLanguage({ ...base, actor: system, language: "de" }))
    spec.thenEmits(new TicketLanguageDetected({ ...by, by: system, language: "de" }))
    expect(spec.thenTicket().language).toBe("de")
  })
  it.each(["deu", "d", "DE", "d1"])("refuses language %s (InvalidLanguageCode)", (language) => {
    given(ticketCreated())
      .when(new RecordLanguage({ ...base, actor: system, language }))
      .thenFails("InvalidLanguageCode")
  })
})
