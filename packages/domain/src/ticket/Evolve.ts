import type { DateTime } from "effect"
import { applyDeliveryReport, pendingDelivery } from "./Delivery.js"
import type { CarriedMessage, MessageData, TicketCreated, TicketEvent } from "./Events.js"
import type { MessageState, Ticket, TicketState } from "./State.js"
import type { ActorRole, WaitingOn } from "./Values.js"

const later = (a: DateTime.Utc, b: DateTime.Utc): DateTime.Utc => (b.epochMillis > a.epochMillis ? b : a)

/** Who must act after a customer-visible message by `role`; system messages leave it as it was. */
const waitingOnAfter = (role: ActorRole, current: WaitingOn): WaitingOn =>
  role === "customer" ? "associate" : role === "associate" ? "customer" : current

const created = (e: TicketCreated): Ticket => ({
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

const newMessage = (m: MessageData): MessageState => ({
  ...m,
  delivery: m.sendsEmail ? pendingDelivery : null,
  mergedFromTicket: null,
  updatedAt: m.createdAt
})

const carriedMessage = (m: CarriedMessage, at: DateTime.Utc): MessageState => ({ ...m, updatedAt: at })

const countVisible = (messages: ReadonlyArray<MessageData>): number => {
  let n = 0
  for (const m of messages) if (m.isVisibleToCustomer) n++
  return n
}

/**
 * Applies one event to a ticket state. Pure and cheap: no decoding, no clock, no validation (events
 * are facts that `decide` already checked); a readonly copy of the fields that change.
 * Events before `TicketCreated` leave a missing ticket missing.
 */
export const evolve = (state: TicketState, event: TicketEvent): TicketState => {
  if (state._tag === "NoTicket") return event._tag === "TicketCreated" ? created(event) : state
  const updatedAt = later(state.updatedAt, event.at)
  switch (event._tag) {
    case "TicketCreated":
      return state
    case "TicketTranscriptRecorded":
      return { ...state, updatedAt, description: event.transcript }
    case "TicketActivated":
      return { ...state, updatedAt, status: "active" }
    case "TicketClosed":
      return {
        ...state,
        updatedAt,
        status: "closed",
        classification: event.classification,
        snoozedUntil: null,
        snoozedBy: null,
        lastUnsnoozeReason: null
      }
    case "TicketReopened":
      return { ...state, updatedAt, status: "active", classification: "" }
    case "TicketClassified":
      return { ...state, updatedAt, classification: event.classification }
    case "TicketPriorityChanged":
      return { ...state, updatedAt, priority: event.priority }
    case "TicketAssigned":
      return { ...state, updatedAt, assignee: event.assignee }
    case "TicketTagsChanged":
      return { ...state, updatedAt, tags: event.tags }
    case "TicketMarkedSpam":
      return { ...state, updatedAt, isSpam: true, snoozedUntil: null, snoozedBy: null, lastUnsnoozeReason: null }
    case "TicketUnmarkedSpam":
      return { ...state, updatedAt, isSpam: false }
    case "TicketCsatRecorded":
      return { ...state, updatedAt, csatResponse: { rating: event.rating, comment: event.comment } }
    case "TicketSummarized":
      return { ...state, updatedAt, summary: event.summary }
    case "TicketSentimentAnalyzed":
      return { ...state, updatedAt, sentiment: event.sentiment }
    case "TicketLanguageDetected":
      return { ...state, updatedAt, language: event.language }
    case "MessageAdded": {
      const m = event.message
      const visible = m.isVisibleToCustomer
      return {
        ...state,
        updatedAt,
        messages: [...state.messages, newMessage(m)],
        hasMessageAttachments: state.hasMessageAttachments || m.attachments.length > 0,
        customerVisibleReplyCount: visible ? state.customerVisibleReplyCount + 1 : state.customerVisibleReplyCount,
        waitingOn: visible ? waitingOnAfter(m.role, state.waitingOn) : state.waitingOn,
        lastVisibleRecipientEmails: visible ? m.externalRecipientEmails : state.lastVisibleRecipientEmails
      }
    }
    case "TicketSnoozed":
      return { ...state, updatedAt, snoozedUntil: event.until, snoozedBy: event.by.user, lastUnsnoozeReason: null }
    case "TicketUnsnoozed":
      return {
        ...state,
        updatedAt,
        snoozedUntil: null,
        snoozedBy: null,
        lastSnoozeEndedAt: event.at,
        lastUnsnoozeReason: event.reason
      }
    case "TicketMergedInto":
      return {
        ...state,
        updatedAt,
        mergedInto: event.into,
        mergedAt: event.at,
        mergedBy: event.by.user,
        snoozedUntil: null,
        snoozedBy: null,
        lastUnsnoozeReason: null
      }
    case "TicketMergedFrom": {
      const carried = event.messages.map((m) => carriedMessage(m, event.at))
      return {
        ...state,
        updatedAt,
        messages: [...state.messages, ...carried],
        hasMessageAttachments: state.hasMessageAttachments || event.messages.some((m) => m.attachments.length > 0),
        customerVisibleReplyCount: state.customerVisibleReplyCount + countVisible(event.messages)
      }
    }
    case "CreateEmailDeliveryReported": {
      if (state.createEmailDelivery === null) return state
      const createEmailDelivery = applyDeliveryReport(state.createEmailDelivery, event.status, event.at, event.reason)
      return createEmailDelivery === state.createEmailDelivery ? state : { ...state, updatedAt, createEmailDelivery }
    }
    case "MessageDeliveryReported": {
      let changed = false
      const messages = state.messages.map((m) => {
        if (m.id !== event.messageId || m.delivery === null) return m
        const delivery = applyDeliveryReport(m.delivery, event.status, event.at, event.reason)
        if (delivery === m.delivery) return m
        changed = true
        return { ...m, delivery, updatedAt: later(m.updatedAt, event.at) }
      })
      return changed ? { ...state, updatedAt, messages } : state
    }
  }
}

/** Folds events over a state (the initial state by default). */
export const evolveAll = (events: Iterable<TicketEvent>, state: TicketState = { _tag: "NoTicket" }): TicketState => {
  let s = state
  for (const e of events) s = evolve(s, e)
  return s
}
