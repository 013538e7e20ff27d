import type { DateTime } from "effect"
import { applyDeliveryReport, type Delivery, pendingDelivery } from "./Delivery.js"
import type { CarriedMessage, MessageData, TicketCreated, TicketEvent } from "./Events.js"
import type { MessageState, Ticket, TicketState } from "./State.js"
import type { ActorRole, TicketRef, WaitingOn } from "./Values.js"

/*
 * Performance notes. Folding is the hot path of every read (`GET /tickets/{id}`, projections, rebuilds),
 * so the fold avoids object spread and per-event allocation: `apply` updates a draft in place. `evolve`
 * (the decider's pure step) copies the state into a fresh draft first and never mutates shared arrays;
 * `foldTicket` owns its draft from the first event to the last and so may append to its arrays in place.
 * Both run the same `apply`, so they cannot disagree (a property test checks it anyway).
 */

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type Draft = Mutable<Omit<Ticket, "messages">> & { messages: Array<MessageState> }

/** Who must act after a customer-visible message by `role`; system messages leave it as it was. */
const waitingOnAfter = (role: ActorRole, current: WaitingOn): WaitingOn =>
  role === "customer" ? "associate" : role === "associate" ? "customer" : current

const created = (e: TicketCreated): Draft => ({
  _tag: "Ticket",
  id: e.ticketId,
  publicId: e.publicId,
  organizationId: e.organizationId,
  subject: e.subject,
  description: e.description,
  descriptionHtml: e.descriptionHtml,
  kind: e.kind,
  inbox: e.inbox,
  channel: e.channel,
  origin: e.origin,
  customer: e.customer,
  createdBy: e.by,
  externalRecipientEmails: e.externalRecipientEmails,
  bccRecipientEmails: e.bccRecipientEmails,
  fromEmail: e.fromEmail,
  fromName: e.fromName,
  attachments: e.attachments,
  tags: e.tags,
  priority: e.priority,
  assignee: e.assignee,
  status: "created",
  classification: "",
  waitingOn: waitingOnAfter(e.by.role, ""),
  summary: "",
  sentiment: "pending",
  language: "",
  isSpam: false,
  csatResponse: null,
  customerVisibleReplyCount: 0,
  createdAt: e.at,
  updatedAt: e.at,
  snoozedUntil: null,
  snoozedBy: null,
  lastSnoozeEndedAt: null,
  lastUnsnoozeReason: null,
  mergedInto: null,
  mergedAt: null,
  mergedBy: null,
  createEmailDelivery: e.sendsCreateEmail ? pendingDelivery : null,
  messages: [],
  hasMessageAttachments: false,
  lastVisibleRecipientEmails: null
})

/** A field-by-field copy (much cheaper than spread on V8) sharing the arrays, which `apply(…, false)` never mutates. */
const copy = (t: Ticket, messages: Array<MessageState>): Draft => ({
  _tag: "Ticket",
  id: t.id,
  publicId: t.publicId,
  organizationId: t.organizationId,
  subject: t.subject,
  description: t.description,
  descriptionHtml: t.descriptionHtml,
  kind: t.kind,
  inbox: t.inbox,
  channel: t.channel,
  origin: t.origin,
  customer: t.customer,
  createdBy: t.createdBy,
  externalRecipientEmails: t.externalRecipientEmails,
  bccRecipientEmails: t.bccRecipientEmails,
  fromEmail: t.fromEmail,
  fromName: t.fromName,
  attachments: t.attachments,
  tags: t.tags,
  priority: t.priority,
  assignee: t.assignee,
  status: t.status,
  classification: t.classification,
  waitingOn: t.waitingOn,
  summary: t.summary,
  sentiment: t.sentiment,
  language: t.language,
  isSpam: t.isSpam,
  csatResponse: t.csatResponse,
  customerVisibleReplyCount: t.customerVisibleReplyCount,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
  snoozedUntil: t.snoozedUntil,
  snoozedBy: t.snoozedBy,
  lastSnoozeEndedAt: t.lastSnoozeEndedAt,
  lastUnsnoozeReason: t.lastUnsnoozeReason,
  mergedInto: t.mergedInto,
  mergedAt: t.mergedAt,
  mergedBy: t.mergedBy,
  createEmailDelivery: t.createEmailDelivery,
  messages,
  hasMessageAttachments: t.hasMessageAttachments,
  lastVisibleRecipientEmails: t.lastVisibleRecipientEmails
})

const messageState = (
  m: MessageData,
  delivery: Delivery | null,
  mergedFromTicket: TicketRef | null,
  updatedAt: DateTime.Utc
): MessageState => ({
  id: m.id,
  author: m.author,
  role: m.role,
  sender: m.sender,
  content: m.content,
  contentHtml: m.contentHtml,
  kind: m.kind,
  hasRawContent: m.hasRawContent,
  isVisibleToCustomer: m.isVisibleToCustomer,
  externalRecipientEmails: m.externalRecipientEmails,
  bccRecipientEmails: m.bccRecipientEmails,
  nextAssignee: m.nextAssignee,
  nextPriority: m.nextPriority,
  nextAction: m.nextAction,
  attachments: m.attachments,
  sendsEmail: m.sendsEmail,
  createdAt: m.createdAt,
  delivery,
  mergedFromTicket,
  updatedAt
})

const newMessage = (m: MessageData): MessageState =>
  messageState(m, m.sendsEmail ? pendingDelivery : null, null, m.createdAt)

const carriedMessage = (m: CarriedMessage, at: DateTime.Utc): MessageState =>
  messageState(m, m.delivery, m.mergedFromTicket, at)

const clearSnooze = (d: Draft): void => {
  d.snoozedUntil = null
  d.snoozedBy = null
  d.lastUnsnoozeReason = null
}

const indexOfMessage = (messages: ReadonlyArray<MessageState>, id: number): number => {
  // Reports concern recent messages most of the time, so search from the end.
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i
  return -1
}

/**
 * Applies one event to a draft. `owned`: the draft's arrays belong to it alone and may grow in place;
 * otherwise they are shared with an older state and are replaced, never mutated.
 */
const apply = (d: Draft, e: TicketEvent, owned: boolean): void => {
  switch (e._tag) {
    case "TicketCreated":
      return
    case "TicketTranscriptRecorded":
      d.description = e.transcript
      break
    case "TicketActivated":
      d.status = "active"
      break
    case "TicketClosed":
      d.status = "closed"
      d.classification = e.classification
      clearSnooze(d)
      break
    case "TicketReopened":
      d.status = "active"
      d.classification = ""
      break
    case "TicketClassified":
      d.classification = e.classification
      break
    case "TicketWaitingOnChanged":
      d.waitingOn = e.waitingOn
      break
    case "TicketPriorityChanged":
      d.priority = e.priority
      break
    case "TicketAssigned":
      d.assignee = e.assignee
      break
    case "TicketTagsChanged":
      d.tags = e.tags
      break
    case "TicketMarkedSpam":
      d.isSpam = true
      clearSnooze(d)
      break
    case "TicketUnmarkedSpam":
      d.isSpam = false
      break
    case "TicketCsatRecorded":
      d.csatResponse = { rating: e.rating, comment: e.comment }
      break
    case "TicketSummarized":
      d.summary = e.summary
      break
    case "TicketSentimentAnalyzed":
      d.sentiment = e.sentiment
      break
    case "TicketLanguageDetected":
      d.language = e.language
      break
    case "MessageAdded": {
      const m = e.message
      const state = newMessage(m)
      if (owned) d.messages.push(state)
      else d.messages = [...d.messages, state]
      if (m.attachments.length > 0) d.hasMessageAttachments = true
      if (m.isVisibleToCustomer) {
        d.customerVisibleReplyCount++
        d.waitingOn = waitingOnAfter(m.role, d.waitingOn)
        d.lastVisibleRecipientEmails = m.externalRecipientEmails
      }
      break
    }
    case "TicketSnoozed":
      d.snoozedUntil = e.until
      d.snoozedBy = e.by.user
      d.lastUnsnoozeReason = null
      break
    case "TicketUnsnoozed":
      d.snoozedUntil = null
      d.snoozedBy = null
      d.lastSnoozeEndedAt = e.at
      d.lastUnsnoozeReason = e.reason
      break
    case "TicketMergedInto":
      d.mergedInto = e.into
      d.mergedAt = e.at
      d.mergedBy = e.by.user
      clearSnooze(d)
      break
    case "TicketMergedFrom": {
      const messages = owned ? d.messages : d.messages.slice()
      for (const m of e.messages) {
        messages.push(carriedMessage(m, e.at))
        if (m.isVisibleToCustomer) d.customerVisibleReplyCount++
        if (m.attachments.length > 0) d.hasMessageAttachments = true
      }
      d.messages = messages
      break
    }
    case "CreateEmailDeliveryReported": {
      if (d.createEmailDelivery === null) return
      const delivery = applyDeliveryReport(d.createEmailDelivery, e.status, e.at, e.reason)
      if (delivery === d.createEmailDelivery) return
      d.createEmailDelivery = delivery
      // A delivery or read receipt is no change a person made: updated_at stays (decision 0659).
      return
    }
    case "TicketSlaBreached":
      // A missed target is no change a person made (the read model's SLA fields show it): updated_at stays.
      return
    case "TicketEmailResendRequested": {
      if (d.createEmailDelivery === null) return
      // The new attempt starts over; the failed one's reports stay in the history (decision 0663).
      d.createEmailDelivery = pendingDelivery
      break
    }
    case "MessageDeliveryReported": {
      const i = indexOfMessage(d.messages, e.messageId)
      if (i < 0) return
      const m = d.messages[i]!
      if (m.delivery === null) return
      const delivery = applyDeliveryReport(m.delivery, e.status, e.at, e.reason)
      if (delivery === m.delivery) return
      // Neither the message's nor the ticket's updated_at moves for a receipt (decision 0659).
      const updated = messageState(m, delivery, m.mergedFromTicket, m.updatedAt)
      const messages = owned ? d.messages : d.messages.slice()
      messages[i] = updated
      d.messages = messages
      return
    }
  }
  // Late events never move updated_at back.
  if (e.at.epochMillis > d.updatedAt.epochMillis) d.updatedAt = e.at
}

/**
 * Applies one event to a ticket state, returning a new state and leaving the given one untouched. Pure
 * and cheap: no decoding, no clock, no validation (events are facts `decide` already checked). Events
 * before `TicketCreated` leave a missing ticket missing.
 * Structural sharing is part of the contract: the `messages` array is the same object when the event
 * did not touch messages, and messages an event did not change are the same objects, so projections can
 * detect which messages changed by identity.
 */
export const evolve = (state: TicketState, event: TicketEvent): TicketState => {
  if (state._tag === "NoTicket") return event._tag === "TicketCreated" ? created(event) : state
  const draft = copy(state, state.messages as Array<MessageState>)
  apply(draft, event, false)
  return draft
}

/**
 * Folds events over a state (the initial state by default): the same result as reducing with `evolve`,
 * without a copy per event.
 */
export const evolveAll = (events: Iterable<TicketEvent>, state: TicketState = { _tag: "NoTicket" }): TicketState => {
  let draft: Draft | null = state._tag === "Ticket" ? copy(state, state.messages.slice()) : null
  for (const e of events) {
    if (draft !== null) apply(draft, e, true)
    else if (e._tag === "TicketCreated") draft = created(e)
  }
  return draft ?? state
}
