import { Schema } from "effect"
import type { Delivery } from "./Delivery.js"
import type { TicketEvent } from "./Events.js"
import { evolveAll } from "./Evolve.js"
import type { MessageState, Ticket, TicketState } from "./State.js"
import {
  Actor,
  ActorRole,
  Attachment,
  Channel,
  Classification,
  CsatResponse,
  CustomerRef,
  DeliveryStatus,
  InboxRef,
  Instant,
  MessageId,
  OrganizationId,
  Origin,
  Priority,
  Sender,
  Sentiment,
  TagRef,
  TicketId,
  TicketKind,
  TicketRef,
  TicketStatus,
  UnsnoozeReason,
  UserRef,
  WaitingOn
} from "./Values.js"

const deliveryFields = {
  deliveryStatus: Schema.NullOr(DeliveryStatus),
  sentAt: Schema.NullOr(Instant),
  readAt: Schema.NullOr(Instant),
  failedAt: Schema.NullOr(Instant),
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
  id: TicketId,
  publicId: Schema.String,
  organizationId: OrganizationId,
  subject: Schema.String,
  inbox: InboxRef,
  channel: Channel,
  customer: CustomerRef,
  assignee: Schema.NullOr(UserRef),
  kind: TicketKind,
  summary: Schema.String,
  /** Customer-visible messages from either side (merged-in ones included); internal notes do not count. */
  customerVisibleReplyCount: Schema.Int,
  status: TicketStatus,
  classification: Classification,
  priority: Priority,
  waitingOn: WaitingOn,
  createdAt: Instant,
  updatedAt: Instant,
  csatResponse: Schema.NullOr(CsatResponse),
  attachments: Schema.Array(Attachment),
  /** True when the ticket or any of its messages carries an attachment. */
  hasAttachments: Schema.Boolean,
  origin: Origin,
  createdBy: Actor,
  externalRecipientEmails: Schema.Array(Schema.String),
  bccRecipientEmails: Schema.Array(Schema.String),
  fromEmail: Schema.String,
  fromName: Schema.String,
  snoozedUntil: Schema.NullOr(Instant),
  snoozedBy: Schema.NullOr(UserRef),
  lastSnoozeEndedAt: Schema.NullOr(Instant),
  lastUnsnoozeReason: Schema.NullOr(UnsnoozeReason),
  mergedInto: Schema.NullOr(TicketRef),
  mergedAt: Schema.NullOr(Instant),
  mergedBy: Schema.NullOr(UserRef),
  description: Schema.String,
  descriptionHtml: Schema.String,
  sentimentAnalysisClass: Sentiment,
  tags: Schema.Array(TagRef),
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
  id: MessageId,
  ticketId: TicketId,
  author: Schema.NullOr(UserRef),
  role: ActorRole,
  sender: Schema.NullOr(Sender),
  nextAssignee: Schema.NullOr(UserRef),
  nextPriority: Schema.NullOr(Priority),
  nextAction: Schema.String,
  kind: Schema.String,
  hasRawContent: Schema.Boolean,
  createdAt: Instant,
  updatedAt: Instant,
  mergedFromTicket: Schema.NullOr(TicketRef),
  attachments: Schema.Array(Attachment),
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
