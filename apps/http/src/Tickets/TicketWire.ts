import { Classification, Priority, Sentiment, TicketKind, TicketStatus, WaitingOn } from "@helpdesk/domain"
import { Schema } from "effect"
import { AttachmentView } from "../Attachments/Attachment.js"
import { NullableTimestamp, Timestamp, UserRef } from "../Http/Representation.js"
import type { StoredMessageView, StoredTicketView } from "./ReadModel/StoredViews.js"

/**
 * The wire shapes of tickets and messages (the spec's Ticket and Ticket message), and their rendering from the
 * read models' stored views (`ReadModel/StoredViews.ts`: the domain's views encoded by their schema).
 *
 * Rendering is a typed field-by-field copy from the stored (encoded) view to the wire schema's encoded form,
 * rather than a decode and an encode: `GET …/tickets/{id}/` is the hottest read of the service and the stored view
 * was encoded by its schema when written. The compiler checks both sides; the schemas below document the result
 * in `/openapi.json`, and the tests check every field against them.
 */

/** How attachment download links are found while rendering (ids to signed URLs, computed beforehand). */
export type DownloadUrls = ReadonlyMap<string, string>

const TicketRefWire = Schema.Struct({ id: Schema.Int, public_id: Schema.String, subject: Schema.String }).annotations({
  identifier: "TicketRef"
})

const CustomerWire = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  email: Schema.String,
  is_spam: Schema.Boolean,
  company: Schema.NullOr(Schema.Struct({ id: Schema.String, name: Schema.String })),
  is_company_manager: Schema.Boolean
}).annotations({
  identifier: "TicketCustomer",
  description: "The requester as it was when the ticket was created (a snapshot; the customer resource is live)."
})

const DeliveryStatusWire = Schema.NullOr(Schema.Literal("pending", "sent", "read", "failed"))

const TagWire = Schema.Struct({ id: Schema.Int, name: Schema.String, color: Schema.String }).annotations({
  identifier: "TicketTag"
})

/** Roles an actor can have on a ticket (`created_by.role`, message `role`). */
export const ACTOR_ROLES = ["associate", "customer", "system"] as const

/** The e-mail delivery of a ticket's create-email or of a message, as both show it. */
const deliveryFields = {
  delivery_status: DeliveryStatusWire,
  sent_at: NullableTimestamp,
  read_at: NullableTimestamp,
  failed_at: NullableTimestamp,
  delivery_failure_reason: Schema.String.annotations({
    description:
      "Short diagnostic: on `failed` why; on `sent` or `read`, when not empty, the recipients the server refused while it took the mail for the others (decision 0662). Not for branching."
  })
}

/** The spec's Ticket resource. */
export const TicketWire = Schema.Struct({
  id: Schema.Int.annotations({ description: "The `{ticket_id}` of paths." }),
  public_id: Schema.String.annotations({ description: "Per-organization number shown to people: 1, 2, 3 …" }),
  subject: Schema.String,
  inbox: Schema.Struct({
    id: Schema.Int,
    name: Schema.String,
    email_prefix: Schema.String,
    customer_interaction_style: Schema.String
  }),
  channel: Schema.Struct({ type: Schema.String, connection_id: Schema.NullOr(Schema.Int) }).annotations({
    description: "The conversation medium (`email`, `api`, `telegram`, `whatsapp`); use this, not `origin`."
  }),
  customer: CustomerWire,
  assignee: Schema.NullOr(UserRef),
  kind: TicketKind,
  summary: Schema.String,
  customer_visible_reply_count: Schema.Int,
  status: TicketStatus,
  classification: Classification,
  priority: Priority,
  waiting_on: WaitingOn,
  created_at: Timestamp,
  updated_at: Timestamp,
  csat_response: Schema.NullOr(Schema.Struct({ rating: Schema.Int, comment: Schema.String })),
  attachments: Schema.Array(AttachmentView),
  has_attachments: Schema.Boolean.annotations({ description: "True when the ticket or any message has a file." }),
  origin: Schema.Literal("email", "api", "telegram", "whatsapp"),
  created_by: Schema.Struct({ role: Schema.Literal(...ACTOR_ROLES), user: Schema.NullOr(UserRef) }).annotations({
    description:
      "`associate`: a person (their user) or an integration token (user null) created it; `customer`: an integration " +
      "recorded an inbound ticket from the customer (`created_by_role: customer`)."
  }),
  external_recipient_emails: Schema.Array(Schema.String),
  bcc_recipient_emails: Schema.Array(Schema.String),
  from_email: Schema.String,
  from_name: Schema.String,
  snoozed_until: NullableTimestamp,
  snoozed_by: Schema.NullOr(UserRef),
  last_snooze_ended_at: NullableTimestamp,
  last_unsnooze_reason: Schema.NullOr(Schema.Literal("timer", "manual", "customer_reply")),
  merged_into: Schema.NullOr(TicketRefWire),
  merged_at: NullableTimestamp,
  merged_by: Schema.NullOr(UserRef),
  ...deliveryFields,
  description: Schema.String,
  description_html: Schema.String,
  sentiment_analysis_class: Sentiment,
  tags: Schema.Array(TagWire),
  language: Schema.String.annotations({
    description: "ISO 639-1 code detected from the content; empty when unknown (too short or undetermined)."
  }),
  is_spam: Schema.Boolean,
  sla_policy: Schema.NullOr(Schema.Struct({ id: Schema.Int, name: Schema.String })).annotations({
    description: "The SLA policy that applies (the first by position whose conditions match); null: none."
  }),
  first_reply_due_at: NullableTimestamp.annotations({
    description: "When the first reply is due; null when given, paused, or no policy sets the target."
  }),
  next_reply_due_at: NullableTimestamp.annotations({
    description: "When the reply to the customer's unanswered message is due; null when none is awaited or paused."
  }),
  resolution_due_at: NullableTimestamp.annotations({
    description: "When the ticket is due to be closed; null when closed, paused, or no policy sets the target."
  }),
  sla_breached: Schema.Boolean.annotations({ description: "Whether the ticket has missed an SLA target." })
}).annotations({ identifier: "Ticket" })

/** The spec's Ticket message resource. */
export const MessageWire = Schema.Struct({
  id: Schema.Int,
  author: Schema.NullOr(UserRef),
  role: Schema.Literal(...ACTOR_ROLES),
  sender: Schema.NullOr(
    Schema.Struct({
      email: Schema.String,
      name: Schema.String,
      user_id: Schema.NullOr(Schema.Int),
      profile_picture: Schema.String
    })
  ),
  next_assignee: Schema.NullOr(UserRef),
  next_priority: Schema.NullOr(Priority),
  next_action: Schema.String,
  kind: Schema.String,
  has_raw_content: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp,
  ...deliveryFields,
  merged_from_ticket: Schema.NullOr(TicketRefWire),
  attachments: Schema.Array(AttachmentView),
  content: Schema.String,
  content_html: Schema.String,
  is_visible_to_customer: Schema.Boolean,
  external_recipient_emails: Schema.Array(Schema.String),
  bcc_recipient_emails: Schema.Array(Schema.String)
}).annotations({ identifier: "TicketMessage" })

/** The wire Ticket, as `renderTicket` gives it (JSON: instants as text). */
export type TicketWireJson = typeof TicketWire.Encoded

/** The wire Ticket message, as `renderMessage` gives it. */
export type MessageWireJson = typeof MessageWire.Encoded

type StoredUserRef = NonNullable<StoredTicketView["assignee"]>
type StoredTicketRef = NonNullable<StoredTicketView["mergedInto"]>
type StoredAttachment = StoredTicketView["attachments"][number]

const userRef = (user: StoredUserRef | null): TicketWireJson["assignee"] =>
  user === null
    ? null
    : { id: user.id, email: user.email, profile_picture_url: user.profilePictureUrl, name: user.name }

const ticketRef = (ref: StoredTicketRef | null): TicketWireJson["merged_into"] =>
  ref === null ? null : { id: ref.id, public_id: ref.publicId, subject: ref.subject }

const attachments = (list: ReadonlyArray<StoredAttachment>, urls: DownloadUrls): TicketWireJson["attachments"] =>
  list.map((a) => ({
    id: a.id,
    name: a.name,
    size: a.size,
    content_type: a.contentType,
    download_url: urls.get(a.id) ?? ""
  }))

/** Every attachment id a view mentions (to sign their download links before rendering). */
export const attachmentIdsOf = (view: StoredTicketView | StoredMessageView): ReadonlyArray<string> =>
  view.attachments.map((a) => a.id)

/** The wire Ticket of a stored ticket view. */
export const renderTicket = (v: StoredTicketView, urls: DownloadUrls): TicketWireJson => {
  const c = v.customer
  return {
    id: v.id,
    public_id: v.publicId,
    subject: v.subject,
    inbox: {
      id: v.inbox.id,
      name: v.inbox.name,
      email_prefix: v.inbox.emailPrefix,
      customer_interaction_style: v.inbox.customerInteractionStyle
    },
    channel: { type: v.channel.type, connection_id: v.channel.connectionId },
    customer: {
      id: c.id,
      name: c.name,
      email: c.email,
      is_spam: c.isSpam,
      company: c.company,
      is_company_manager: c.isCompanyManager
    },
    assignee: userRef(v.assignee),
    kind: v.kind,
    summary: v.summary,
    customer_visible_reply_count: v.customerVisibleReplyCount,
    status: v.status,
    classification: v.classification,
    priority: v.priority,
    waiting_on: v.waitingOn,
    created_at: v.createdAt,
    updated_at: v.updatedAt,
    csat_response: v.csatResponse,
    attachments: attachments(v.attachments, urls),
    has_attachments: v.hasAttachments,
    origin: v.origin,
    created_by: { role: v.createdBy.role, user: userRef(v.createdBy.user) },
    external_recipient_emails: v.externalRecipientEmails,
    bcc_recipient_emails: v.bccRecipientEmails,
    from_email: v.fromEmail,
    from_name: v.fromName,
    snoozed_until: v.snoozedUntil,
    snoozed_by: userRef(v.snoozedBy),
    last_snooze_ended_at: v.lastSnoozeEndedAt,
    last_unsnooze_reason: v.lastUnsnoozeReason,
    merged_into: ticketRef(v.mergedInto),
    merged_at: v.mergedAt,
    merged_by: userRef(v.mergedBy),
    delivery_status: v.deliveryStatus,
    sent_at: v.sentAt,
    read_at: v.readAt,
    failed_at: v.failedAt,
    delivery_failure_reason: v.deliveryFailureReason,
    description: v.description,
    description_html: v.descriptionHtml,
    sentiment_analysis_class: v.sentimentAnalysisClass,
    tags: v.tags,
    language: v.language,
    is_spam: v.isSpam,
    sla_policy:
      v.sla === undefined || v.sla.policyId === null ? null : { id: v.sla.policyId, name: v.sla.policyName ?? "" },
    first_reply_due_at: v.sla?.firstReplyDueAt ?? null,
    next_reply_due_at: v.sla?.nextReplyDueAt ?? null,
    resolution_due_at: v.sla?.resolutionDueAt ?? null,
    sla_breached: v.sla?.breached ?? false
  }
}

/** The wire Ticket message of a stored message view. */
export const renderMessage = (m: StoredMessageView, urls: DownloadUrls): MessageWireJson => ({
  id: m.id,
  author: userRef(m.author),
  role: m.role,
  sender:
    m.sender === null
      ? null
      : {
          email: m.sender.email,
          name: m.sender.name,
          user_id: m.sender.userId,
          profile_picture: m.sender.profilePicture
        },
  next_assignee: userRef(m.nextAssignee),
  next_priority: m.nextPriority,
  next_action: m.nextAction,
  kind: m.kind,
  has_raw_content: m.hasRawContent,
  created_at: m.createdAt,
  updated_at: m.updatedAt,
  delivery_status: m.deliveryStatus,
  sent_at: m.sentAt,
  read_at: m.readAt,
  failed_at: m.failedAt,
  delivery_failure_reason: m.deliveryFailureReason,
  merged_from_ticket: ticketRef(m.mergedFromTicket),
  attachments: attachments(m.attachments, urls),
  content: m.content,
  content_html: m.contentHtml,
  is_visible_to_customer: m.isVisibleToCustomer,
  external_recipient_emails: m.externalRecipientEmails,
  bcc_recipient_emails: m.bccRecipientEmails
})
