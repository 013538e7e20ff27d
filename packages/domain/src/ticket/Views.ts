import { Schema } from "effect"
import type { Delivery } from "./Delivery.js"
import type { TicketEvent } from "./Events.js"
import { evolveAll } from "./Evolve.js"
import type { MessageState, Ticket, TicketState } from "./State.js"
import * as Values from "./Values.js"

const deliveryFields = {
  deliveryStatus: Schema.NullOr(Values.DeliveryStatus),
  sentAt: Schema.NullOr(Values.Instant),
  readAt: Schema.NullOr(Values.Instant),
  failedAt: Schema.NullOr(Values.Instant),
  deliveryFailureReason: Schema.String
}

/** Delivery fields as the ticket and message resources show them. */
export interface DeliveryFields extends Schema.Struct.Type<typeof deliveryFields> {}

/**
 * The spec's Ticket resource, as far as the domain owns it (camelCase; the HTTP app renders the wire
 * names and adds `download_url`s to attachments). Its encoded form (instants as ISO-8601 text) is what a read
 * model stores.
 */
/** The SLA part of a ticket view (see `TicketView.sla`). */
export const SlaView = Schema.Struct({
  policyId: Schema.NullOr(Schema.Int),
  policyName: Schema.NullOr(Schema.String),
  firstReplyDueAt: Schema.NullOr(Schema.String),
  nextReplyDueAt: Schema.NullOr(Schema.String),
  resolutionDueAt: Schema.NullOr(Schema.String),
  breached: Schema.Boolean
})

export const TicketView = Schema.Struct({
  id: Values.TicketId,
  publicId: Schema.String,
  organizationId: Values.OrganizationId,
  subject: Schema.String,
  inbox: Values.InboxRef,
  channel: Values.Channel,
  customer: Values.CustomerRef,
  assignee: Schema.NullOr(Values.UserRef),
  kind: Values.TicketKind,
  summary: Schema.String,
  /** Customer-visible messages from either side (merged-in ones included); internal notes do not count. */
  customerVisibleReplyCount: Schema.Int,
  status: Values.TicketStatus,
  classification: Values.Classification,
  priority: Values.Priority,
  waitingOn: Values.WaitingOn,
  createdAt: Values.Instant,
  updatedAt: Values.Instant,
  csatResponse: Schema.NullOr(Values.CsatResponse),
  attachments: Schema.Array(Values.Attachment),
  /** True when the ticket or any of its messages carries an attachment. */
  hasAttachments: Schema.Boolean,
  origin: Values.Origin,
  createdBy: Values.Actor,
  externalRecipientEmails: Schema.Array(Schema.String),
  bccRecipientEmails: Schema.Array(Schema.String),
  fromEmail: Schema.String,
  fromName: Schema.String,
  snoozedUntil: Schema.NullOr(Values.Instant),
  snoozedBy: Schema.NullOr(Values.UserRef),
  lastSnoozeEndedAt: Schema.NullOr(Values.Instant),
  lastUnsnoozeReason: Schema.NullOr(Values.UnsnoozeReason),
  mergedInto: Schema.NullOr(Values.TicketRef),
  mergedAt: Schema.NullOr(Values.Instant),
  mergedBy: Schema.NullOr(Values.UserRef),
  description: Schema.String,
  descriptionHtml: Schema.String,
  sentimentAnalysisClass: Values.Sentiment,
  tags: Schema.Array(Values.TagRef),
  language: Schema.String,
  isSpam: Schema.Boolean,
  ...deliveryFields,
  /**
   * The ticket's SLA state, written by the application's SLA projection beside this view (instants as ISO-8601
   * text); absent on views stored before it, or when the application keeps no SLA state.
   */
  sla: Schema.optional(SlaView)
}).annotations({ identifier: "TicketView" })
export interface TicketView extends Schema.Schema.Type<typeof TicketView> {}

/** The spec's Ticket message resource (camelCase, as {@link TicketView}). */
export const MessageView = Schema.Struct({
  id: Values.MessageId,
  ticketId: Values.TicketId,
  author: Schema.NullOr(Values.UserRef),
  role: Values.ActorRole,
  sender: Schema.NullOr(Values.Sender),
  nextAssignee: Schema.NullOr(Values.UserRef),
  nextPriority: Schema.NullOr(Values.Priority),
  nextAction: Schema.String,
  kind: Schema.String,
  hasRawContent: Schema.Boolean,
  createdAt: Values.Instant,
  updatedAt: Values.Instant,
  mergedFromTicket: Schema.NullOr(Values.TicketRef),
  attachments: Schema.Array(Values.Attachment),
  content: Schema.String,
  contentHtml: Schema.String,
  isVisibleToCustomer: Schema.Boolean,
  externalRecipientEmails: Schema.Array(Schema.String),
  bccRecipientEmails: Schema.Array(Schema.String),
  ...deliveryFields
}).annotations({ identifier: "MessageView" })
export interface MessageView extends Schema.Schema.Type<typeof MessageView> {}

/** `delivery_failure_reason`: why the mail failed, else which recipients were refused (decision 0662), else empty. */
const failureReasonOf = (delivery: Delivery | null): string =>
  delivery === null ? "" : delivery.failureReason !== "" ? delivery.failureReason : delivery.refusal

/** The delivery fields of a view from an e-mail's delivery (all empty when no e-mail went out). */
const deliveryFieldsOf = (delivery: Delivery | null): DeliveryFields => ({
  deliveryStatus: delivery?.status ?? null,
  sentAt: delivery?.sentAt ?? null,
  readAt: delivery?.readAt ?? null,
  failedAt: delivery?.failedAt ?? null,
  deliveryFailureReason: failureReasonOf(delivery)
})

/** The ticket view of a ticket state. */
export const ticketView = (t: Ticket): TicketView => ({
  id: t.id,
  publicId: t.publicId,
  organizationId: t.organizationId,
  subject: t.subject,
  inbox: t.inbox,
  channel: t.channel,
  customer: t.customer,
  assignee: t.assignee,
  kind: t.kind,
  summary: t.summary,
  customerVisibleReplyCount: t.customerVisibleReplyCount,
  status: t.status,
  classification: t.classification,
  priority: t.priority,
  waitingOn: t.waitingOn,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
  csatResponse: t.csatResponse,
  attachments: t.attachments,
  hasAttachments: t.attachments.length > 0 || t.hasMessageAttachments,
  origin: t.origin,
  createdBy: t.createdBy,
  externalRecipientEmails: t.externalRecipientEmails,
  bccRecipientEmails: t.bccRecipientEmails,
  fromEmail: t.fromEmail,
  fromName: t.fromName,
  snoozedUntil: t.snoozedUntil,
  snoozedBy: t.snoozedBy,
  lastSnoozeEndedAt: t.lastSnoozeEndedAt,
  lastUnsnoozeReason: t.lastUnsnoozeReason,
  mergedInto: t.mergedInto,
  mergedAt: t.mergedAt,
  mergedBy: t.mergedBy,
  description: t.description,
  descriptionHtml: t.descriptionHtml,
  sentimentAnalysisClass: t.sentiment,
  tags: t.tags,
  language: t.language,
  isSpam: t.isSpam,
  ...deliveryFieldsOf(t.createEmailDelivery)
})

/** The message view of one message of a ticket. */
export const messageView = (ticketId: number, m: MessageState): MessageView => ({
  id: m.id,
  ticketId,
  author: m.author,
  role: m.role,
  sender: m.sender,
  nextAssignee: m.nextAssignee,
  nextPriority: m.nextPriority,
  nextAction: m.nextAction,
  kind: m.kind,
  hasRawContent: m.hasRawContent,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
  mergedFromTicket: m.mergedFromTicket,
  attachments: m.attachments,
  content: m.content,
  contentHtml: m.contentHtml,
  isVisibleToCustomer: m.isVisibleToCustomer,
  externalRecipientEmails: m.externalRecipientEmails,
  bccRecipientEmails: m.bccRecipientEmails,
  ...deliveryFieldsOf(m.delivery)
})

const fold = (events: Iterable<TicketEvent>): TicketState => evolveAll(events)

/** The ticket view as a pure fold over the stream's events; `null` when the stream holds no ticket. */
export const projectTicketView = (events: Iterable<TicketEvent>): TicketView | null => {
  const state = fold(events)
  return state._tag === "Ticket" ? ticketView(state) : null
}

/** The ticket's messages (its own and those carried over by merges) in stream order. */
export const projectMessageViews = (events: Iterable<TicketEvent>): ReadonlyArray<MessageView> => {
  const state = fold(events)
  return state._tag === "Ticket" ? state.messages.map((m) => messageView(state.id, m)) : []
}
