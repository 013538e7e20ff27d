import { Schema } from "effect"
import { Delivery } from "./Delivery.js"
import * as Values from "./Values.js"

/**
 * Fields every ticket event carries: when it happened (taken from the command, never from a clock)
 * and who caused it.
 */
const eventBase = {
  at: Values.Instant,
  by: Values.Actor
}

/** A ticket was created. Emitted by `CreateTicket`. Version 2 (v1 is upcast, see `Upcasters.ts`). */
export class TicketCreated extends Schema.TaggedClass<TicketCreated>()("TicketCreated", {
  ...eventBase,
  ticketId: Values.TicketId,
  publicId: Schema.String,
  organizationId: Values.OrganizationId,
  subject: Schema.String,
  description: Schema.String,
  descriptionHtml: Schema.String,
  kind: Values.TicketKind,
  inbox: Values.InboxRef,
  channel: Values.Channel,
  origin: Values.Origin,
  customer: Values.CustomerRef,
  externalRecipientEmails: Values.EmailList,
  bccRecipientEmails: Values.EmailList,
  fromEmail: Schema.String,
  fromName: Schema.String,
  attachments: Schema.Array(Values.Attachment),
  tags: Schema.Array(Values.TagRef),
  priority: Values.Priority,
  assignee: Schema.NullOr(Values.UserRef),
  /** Whether a create-email goes out to the customer (its delivery is then tracked). */
  sendsCreateEmail: Schema.Boolean
}) {
  static readonly version = 2
}

/** The speech-to-text transcript of an audio ticket arrived. Emitted by `RecordTranscript`. */
export class TicketTranscriptRecorded extends Schema.TaggedClass<TicketTranscriptRecorded>()(
  "TicketTranscriptRecorded",
  { ...eventBase, transcript: Schema.String }
) {
  static readonly version = 1
}

/** `created` → `active`: an associate answered the customer. Emitted by `AddMessage`. */
export class TicketActivated extends Schema.TaggedClass<TicketActivated>()("TicketActivated", eventBase) {
  static readonly version = 1
}

/** The ticket was closed with a classification. Emitted by `CloseTicket`. Clears the snooze. */
export class TicketClosed extends Schema.TaggedClass<TicketClosed>()("TicketClosed", {
  ...eventBase,
  classification: Values.Classification
}) {
  static readonly version = 1
}

/** `closed` → `active`. Emitted by `ReopenTicket` (`manual`) and by a customer's reply (`customer_reply`). */
export class TicketReopened extends Schema.TaggedClass<TicketReopened>()("TicketReopened", {
  ...eventBase,
  reason: Schema.Literal("manual", "customer_reply")
}) {
  static readonly version = 1
}

/** The classification changed. Emitted by `ClassifyTicket`. */
export class TicketClassified extends Schema.TaggedClass<TicketClassified>()("TicketClassified", {
  ...eventBase,
  classification: Values.Classification
}) {
  static readonly version = 1
}

/** The priority changed. Emitted by `ChangePriority` and by `AddMessage` with `nextPriority`. */
export class TicketPriorityChanged extends Schema.TaggedClass<TicketPriorityChanged>()("TicketPriorityChanged", {
  ...eventBase,
  priority: Values.Priority
}) {
  static readonly version = 1
}

/** Who must act next was set by hand (a customer-visible message sets it too, see `MessageAdded`). Emitted by `SetWaitingOn`. */
export class TicketWaitingOnChanged extends Schema.TaggedClass<TicketWaitingOnChanged>()("TicketWaitingOnChanged", {
  ...eventBase,
  waitingOn: Values.WaitingOn
}) {
  static readonly version = 1
}

/** The assignee changed (`null`: unassigned). Emitted by `AssignTicket` and by `AddMessage` with `nextAssignee`. */
export class TicketAssigned extends Schema.TaggedClass<TicketAssigned>()("TicketAssigned", {
  ...eventBase,
  assignee: Schema.NullOr(Values.UserRef)
}) {
  static readonly version = 1
}

/** The tag set was replaced. Emitted by `SetTags`. */
export class TicketTagsChanged extends Schema.TaggedClass<TicketTagsChanged>()("TicketTagsChanged", {
  ...eventBase,
  tags: Schema.Array(Values.TagRef)
}) {
  static readonly version = 1
}

/** Marked as spam. Emitted by `MarkSpam`. Clears the snooze. */
export class TicketMarkedSpam extends Schema.TaggedClass<TicketMarkedSpam>()("TicketMarkedSpam", eventBase) {
  static readonly version = 1
}

/** No longer spam. Emitted by `UnmarkSpam`. */
export class TicketUnmarkedSpam extends Schema.TaggedClass<TicketUnmarkedSpam>()("TicketUnmarkedSpam", eventBase) {
  static readonly version = 1
}

/** The customer answered the satisfaction survey. Emitted by `RecordCsatResponse`. */
export class TicketCsatRecorded extends Schema.TaggedClass<TicketCsatRecorded>()("TicketCsatRecorded", {
  ...eventBase,
  rating: Schema.Int,
  comment: Schema.String
}) {
  static readonly version = 1
}

/** A (new) AI summary. Emitted by `RecordSummary`. */
export class TicketSummarized extends Schema.TaggedClass<TicketSummarized>()("TicketSummarized", {
  ...eventBase,
  summary: Schema.String
}) {
  static readonly version = 1
}

/** A (new) sentiment class. Emitted by `RecordSentiment`. */
export class TicketSentimentAnalyzed extends Schema.TaggedClass<TicketSentimentAnalyzed>()("TicketSentimentAnalyzed", {
  ...eventBase,
  sentiment: Values.Sentiment
}) {
  static readonly version = 1
}

/** The detected language of the conversation. Emitted by `RecordLanguage`. */
export class TicketLanguageDetected extends Schema.TaggedClass<TicketLanguageDetected>()("TicketLanguageDetected", {
  ...eventBase,
  language: Schema.String
}) {
  static readonly version = 1
}

/** The targets of a service-level agreement (SLA) a ticket can miss. */
export const SlaTarget = Schema.Literal("first_reply", "next_reply", "resolution")
export type SlaTarget = typeof SlaTarget.Type

/**
 * The ticket missed an SLA target of policy `policyId`: it was due at `dueAt` and was not met by then. Emitted by
 * `RecordSlaBreach` (the SLA breach timer), once per target and due instant.
 */
export class TicketSlaBreached extends Schema.TaggedClass<TicketSlaBreached>()("TicketSlaBreached", {
  ...eventBase,
  policyId: Schema.Int,
  target: SlaTarget,
  dueAt: Values.Instant
}) {
  static readonly version = 1
}

/** A message as the ticket stream records it (shared by `MessageAdded` and `TicketMergedFrom`). */
export const MessageData = Schema.Struct({
  id: Values.MessageId,
  author: Schema.NullOr(Values.UserRef),
  role: Values.ActorRole,
  sender: Schema.NullOr(Values.Sender),
  content: Schema.String,
  contentHtml: Schema.String,
  kind: Schema.String,
  hasRawContent: Schema.Boolean,
  isVisibleToCustomer: Schema.Boolean,
  /** The resolved CC snapshot this message went out with (see `AddMessage`). */
  externalRecipientEmails: Values.EmailList,
  bccRecipientEmails: Values.EmailList,
  nextAssignee: Schema.NullOr(Values.UserRef),
  nextPriority: Schema.NullOr(Values.Priority),
  nextAction: Schema.String,
  attachments: Schema.Array(Values.Attachment),
  /** Whether an outbound email carries this message (its delivery is then tracked). */
  sendsEmail: Schema.Boolean,
  createdAt: Values.Instant
})
export type MessageData = typeof MessageData.Type

/** A reply or internal note was added. Emitted by `AddMessage`. Version 2 (v1 is upcast). */
export class MessageAdded extends Schema.TaggedClass<MessageAdded>()("MessageAdded", {
  ...eventBase,
  message: MessageData
}) {
  static readonly version = 2
}

/** The ticket was snoozed (or re-snoozed) until `until`. Emitted by `SnoozeTicket`. */
export class TicketSnoozed extends Schema.TaggedClass<TicketSnoozed>()("TicketSnoozed", {
  ...eventBase,
  until: Values.Instant
}) {
  static readonly version = 1
}

/** The ticket left snooze. Emitted by `UnsnoozeTicket` (`timer`, `manual`) and `AddMessage` (`customer_reply`). */
export class TicketUnsnoozed extends Schema.TaggedClass<TicketUnsnoozed>()("TicketUnsnoozed", {
  ...eventBase,
  reason: Values.UnsnoozeReason
}) {
  static readonly version = 1
}

/** This ticket (the source) was merged into `into`; its stream is closed with this event. Emitted by `MergeTickets`. */
export class TicketMergedInto extends Schema.TaggedClass<TicketMergedInto>()("TicketMergedInto", {
  ...eventBase,
  into: Values.TicketRef
}) {
  static readonly version = 1
}

/**
 * A message carried over by a merge, with the delivery state it had on the source and the ticket it
 * first came from (the source, or an earlier ticket merged into the source).
 */
export const CarriedMessage = Schema.Struct({
  ...MessageData.fields,
  delivery: Schema.NullOr(Delivery),
  mergedFromTicket: Values.TicketRef
})
export type CarriedMessage = typeof CarriedMessage.Type

/** This ticket (the survivor) took over the messages of `from`. Emitted by `MergeTickets`. */
export class TicketMergedFrom extends Schema.TaggedClass<TicketMergedFrom>()("TicketMergedFrom", {
  ...eventBase,
  from: Values.TicketRef,
  messages: Schema.Array(CarriedMessage)
}) {
  static readonly version = 1
}

/** A delivery report for the create-email. `at` is when the provider observed it. Emitted by `ReportDelivery`. */
export class CreateEmailDeliveryReported extends Schema.TaggedClass<CreateEmailDeliveryReported>()(
  "CreateEmailDeliveryReported",
  { ...eventBase, status: Values.ReportedDeliveryStatus, reason: Schema.String }
) {
  static readonly version = 1
}

/** A delivery report for a message's email. Emitted by `ReportDelivery` with a `messageId`. */
export class MessageDeliveryReported extends Schema.TaggedClass<MessageDeliveryReported>()("MessageDeliveryReported", {
  ...eventBase,
  messageId: Values.MessageId,
  status: Values.ReportedDeliveryStatus,
  reason: Schema.String
}) {
  static readonly version = 1
}

/**
 * The failed create-email is sent again: its delivery starts over as `pending` (decision 0663).
 * Emitted by `ResendCreationEmail`.
 */
export class TicketEmailResendRequested extends Schema.TaggedClass<TicketEmailResendRequested>()(
  "TicketEmailResendRequested",
  { ...eventBase }
) {
  static readonly version = 1
}

/** Every event class of a ticket stream, once. */
const ticketEventList = [
  TicketCreated,
  TicketTranscriptRecorded,
  TicketActivated,
  TicketClosed,
  TicketReopened,
  TicketClassified,
  TicketPriorityChanged,
  TicketWaitingOnChanged,
  TicketAssigned,
  TicketTagsChanged,
  TicketMarkedSpam,
  TicketUnmarkedSpam,
  TicketCsatRecorded,
  TicketSummarized,
  TicketSentimentAnalyzed,
  TicketLanguageDetected,
  MessageAdded,
  TicketSnoozed,
  TicketUnsnoozed,
  TicketMergedInto,
  TicketMergedFrom,
  CreateEmailDeliveryReported,
  MessageDeliveryReported,
  TicketSlaBreached,
  TicketEmailResendRequested
] as const

/** Every event of a ticket stream, for decoding. */
export const TicketEvent = Schema.Union(...ticketEventList)
export type TicketEvent = typeof TicketEvent.Type

type TicketEventClass = (typeof ticketEventList)[number]

/** The classes of {@link TicketEvent} by tag, each with its current schema `version`. */
export const ticketEventClasses = Object.fromEntries(
  ticketEventList.map((eventClass) => [eventClass._tag, eventClass])
) as {
  readonly [C in TicketEventClass as C["_tag"]]: C
}

/** The tag of every ticket event. */
export type TicketEventType = keyof typeof ticketEventClasses
