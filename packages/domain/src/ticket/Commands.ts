import { Schema } from "effect"
import { SlaTarget } from "./Events.js"
import * as Values from "./Values.js"

/**
 * Fields every command carries: the ticket it addresses, when it is issued (the app reads the clock,
 * the domain never does) and who issues it.
 */
const commandBase = {
  ticketId: Values.TicketId,
  at: Values.Instant,
  actor: Values.Actor
}

const emptyList = <S extends Schema.Schema.Any>(item: S) =>
  Schema.optionalWith(Schema.Array(item), { default: () => [] })

/** Create a ticket with the id the app allocated. */
export class CreateTicket extends Schema.TaggedClass<CreateTicket>()("CreateTicket", {
  ...commandBase,
  publicId: Schema.String,
  organizationId: Values.OrganizationId,
  subject: Schema.String,
  description: Schema.String,
  descriptionHtml: Schema.optionalWith(Schema.String, { default: () => "" }),
  kind: Schema.optionalWith(Values.TicketKind, { default: () => "text" as const }),
  inbox: Values.InboxRef,
  channel: Values.Channel,
  origin: Values.Origin,
  customer: Values.CustomerRef,
  externalRecipientEmails: emptyList(Schema.String),
  bccRecipientEmails: emptyList(Schema.String),
  fromEmail: Schema.optionalWith(Schema.String, { default: () => "" }),
  fromName: Schema.optionalWith(Schema.String, { default: () => "" }),
  attachments: emptyList(Values.Attachment),
  tags: emptyList(Values.TagRef),
  priority: Schema.optionalWith(Values.Priority, { default: () => "not_set" as const }),
  assignee: Schema.optionalWith(Schema.NullOr(Values.UserRef), { default: () => null }),
  /** An associate creating a ticket may send it to the customer as an email, whose delivery is tracked. */
  sendsCreateEmail: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}

/** Store the speech-to-text transcript of an audio ticket. */
export class RecordTranscript extends Schema.TaggedClass<RecordTranscript>()("RecordTranscript", {
  ...commandBase,
  transcript: Schema.String
}) {}

/** Close the ticket with a (non-empty) classification. */
export class CloseTicket extends Schema.TaggedClass<CloseTicket>()("CloseTicket", {
  ...commandBase,
  classification: Values.Classification
}) {}

/** Reopen a closed ticket. */
export class ReopenTicket extends Schema.TaggedClass<ReopenTicket>()("ReopenTicket", commandBase) {}

/** Set or change the classification. */
export class ClassifyTicket extends Schema.TaggedClass<ClassifyTicket>()("ClassifyTicket", {
  ...commandBase,
  classification: Values.Classification
}) {}

/** Change the priority. */
export class ChangePriority extends Schema.TaggedClass<ChangePriority>()("ChangePriority", {
  ...commandBase,
  priority: Values.Priority
}) {}

/** Assign the ticket (`null`: unassign). */
/** Set who must act next by hand: `customer`, `associate`, or `""` (nobody). */
export class SetWaitingOn extends Schema.TaggedClass<SetWaitingOn>()("SetWaitingOn", {
  ...commandBase,
  waitingOn: Values.WaitingOn
}) {}

export class AssignTicket extends Schema.TaggedClass<AssignTicket>()("AssignTicket", {
  ...commandBase,
  assignee: Schema.NullOr(Values.UserRef)
}) {}

/** Replace the ticket's tags. */
export class SetTags extends Schema.TaggedClass<SetTags>()("SetTags", {
  ...commandBase,
  tags: Schema.Array(Values.TagRef)
}) {}

/** Mark the ticket as spam. */
export class MarkSpam extends Schema.TaggedClass<MarkSpam>()("MarkSpam", commandBase) {}

/** Take the spam mark off. */
export class UnmarkSpam extends Schema.TaggedClass<UnmarkSpam>()("UnmarkSpam", commandBase) {}

/** Record the customer's satisfaction answer (rating 1 to 5). */
export class RecordCsatResponse extends Schema.TaggedClass<RecordCsatResponse>()("RecordCsatResponse", {
  ...commandBase,
  rating: Schema.Int,
  comment: Schema.optionalWith(Schema.String, { default: () => "" })
}) {}

/** Store an AI summary. */
export class RecordSummary extends Schema.TaggedClass<RecordSummary>()("RecordSummary", {
  ...commandBase,
  summary: Schema.String
}) {}

/** Store a sentiment class. */
export class RecordSentiment extends Schema.TaggedClass<RecordSentiment>()("RecordSentiment", {
  ...commandBase,
  sentiment: Values.Sentiment
}) {}

/** Store the detected language (a 2-letter code). */
export class RecordLanguage extends Schema.TaggedClass<RecordLanguage>()("RecordLanguage", {
  ...commandBase,
  language: Schema.String
}) {}

/**
 * Add a reply (customer-visible) or an internal note. The message's role and author are the actor's.
 * `externalRecipientEmails: null` means "not set on this message": an associate reply then uses the
 * last customer-visible message's CC, or the ticket's creation-time CC when there is none.
 * `bccRecipientEmails` applies only when set on this message.
 */
export class AddMessage extends Schema.TaggedClass<AddMessage>()("AddMessage", {
  ...commandBase,
  messageId: Values.MessageId,
  sender: Schema.optionalWith(Schema.NullOr(Values.Sender), { default: () => null }),
  content: Schema.String,
  contentHtml: Schema.optionalWith(Schema.String, { default: () => "" }),
  kind: Schema.optionalWith(Schema.String, { default: () => "text" }),
  hasRawContent: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  isVisibleToCustomer: Schema.Boolean,
  externalRecipientEmails: Schema.optionalWith(Schema.NullOr(Values.EmailList), { default: () => null }),
  bccRecipientEmails: Schema.optionalWith(Schema.NullOr(Values.EmailList), { default: () => null }),
  nextAssignee: Schema.optionalWith(Schema.NullOr(Values.UserRef), { default: () => null }),
  nextPriority: Schema.optionalWith(Schema.NullOr(Values.Priority), { default: () => null }),
  nextAction: Schema.optionalWith(Schema.String, { default: () => "" }),
  attachments: emptyList(Values.Attachment),
  /** Whether this message goes out as an email whose delivery is tracked. */
  sendsEmail: Schema.optionalWith(Schema.Boolean, { default: () => false })
}) {}

/** Snooze (or re-snooze) the ticket until an instant after `at`. */
export class SnoozeTicket extends Schema.TaggedClass<SnoozeTicket>()("SnoozeTicket", {
  ...commandBase,
  until: Values.Instant
}) {}

/** An actor takes the ticket out of snooze. */
export class UnsnoozeTicket extends Schema.TaggedClass<UnsnoozeTicket>()("UnsnoozeTicket", commandBase) {}

/**
 * The snooze timer fired. `snoozedUntil` is the instant the timer was scheduled for, so a timer left
 * over from before a re-snooze is recognised as stale and does nothing.
 */
export class SnoozeTimerElapsed extends Schema.TaggedClass<SnoozeTimerElapsed>()("SnoozeTimerElapsed", {
  ...commandBase,
  snoozedUntil: Values.Instant
}) {}

/**
 * A delivery report for the create-email (`messageId: null`) or a message's email. `at` is when the
 * provider observed the fact; reports may arrive late, twice, or out of order.
 */
export class ReportDelivery extends Schema.TaggedClass<ReportDelivery>()("ReportDelivery", {
  ...commandBase,
  messageId: Schema.NullOr(Values.MessageId),
  status: Values.ReportedDeliveryStatus,
  reason: Schema.optionalWith(Schema.String, { default: () => "" })
}) {}

/**
 * The SLA breach timer found target `target` of policy `policyId` overdue since `dueAt`. The caller claims the
 * breach once (docs/decisions/0503-sla-policies.md); the domain records it.
 */
export class RecordSlaBreach extends Schema.TaggedClass<RecordSlaBreach>()("RecordSlaBreach", {
  ...commandBase,
  policyId: Schema.Int,
  target: SlaTarget,
  dueAt: Values.Instant
}) {}

/**
 * Send the create-email again after its delivery failed: the one way a delivery goes back from `failed` to
 * `pending` (decision 0663). Refused in every other delivery state and for a ticket that sent no create-email.
 */
export class ResendCreationEmail extends Schema.TaggedClass<ResendCreationEmail>()("ResendCreationEmail", {
  ...commandBase
}) {}

/** Every command on one ticket stream (merging spans two streams and has its own command). */
export const TicketCommand = Schema.Union(
  CreateTicket,
  RecordTranscript,
  CloseTicket,
  ReopenTicket,
  ClassifyTicket,
  ChangePriority,
  SetWaitingOn,
  AssignTicket,
  SetTags,
  MarkSpam,
  UnmarkSpam,
  RecordCsatResponse,
  RecordSummary,
  RecordSentiment,
  RecordLanguage,
  AddMessage,
  SnoozeTicket,
  UnsnoozeTicket,
  SnoozeTimerElapsed,
  ReportDelivery,
  RecordSlaBreach,
  ResendCreationEmail
)
export type TicketCommand = typeof TicketCommand.Type

/**
 * Merge the source ticket into the target (survivor). Decided over both tickets' states. `openingMessageId` (allocated
 * by the app like any message id) is the id the source's opening request (description and ticket attachments) takes
 * as a message on the survivor; `null`: the opening request is not carried.
 */
export class MergeTickets extends Schema.TaggedClass<MergeTickets>()("MergeTickets", {
  sourceTicketId: Values.TicketId,
  targetTicketId: Values.TicketId,
  at: Values.Instant,
  actor: Values.Actor,
  openingMessageId: Schema.optionalWith(Schema.NullOr(Values.MessageId), { default: () => null })
}) {}
