import type { DateTime } from "effect"
import type { TicketEvent } from "./Events.js"
import { evolveAll } from "./Evolve.js"
import type { MessageState, Ticket, TicketState } from "./State.js"
import type {
  ActorRole,
  Attachment,
  Channel,
  Classification,
  CsatResponse,
  CustomerRef,
  DeliveryStatus,
  InboxRef,
  Origin,
  Priority,
  Sender,
  Sentiment,
  TagRef,
  TicketKind,
  TicketRef,
  TicketStatus,
  UnsnoozeReason,
  UserRef,
  WaitingOn
} from "./Values.js"

/** Delivery fields as the ticket and message resources show them. */
export interface DeliveryFields {
  readonly deliveryStatus: DeliveryStatus | null
  readonly sentAt: DateTime.Utc | null
  readonly readAt: DateTime.Utc | null
  readonly failedAt: DateTime.Utc | null
  readonly deliveryFailureReason: string
}

/**
 * The spec's Ticket resource, as far as the domain owns it (camelCase; the HTTP app renders the wire
 * names and adds `download_url`s to attachments).
 */
export interface TicketView extends DeliveryFields {
  readonly id: number
  readonly publicId: string
  readonly organizationId: string
  readonly subject: string
  readonly inbox: InboxRef
  readonly channel: Channel
  readonly customer: CustomerRef
  readonly assignee: UserRef | null
  readonly kind: TicketKind
  readonly summary: string
  /** Customer-visible messages from either side (merged-in ones included); internal notes do not count. */
  readonly customerVisibleReplyCount: number
  readonly status: TicketStatus
  readonly classification: Classification
  readonly priority: Priority
  readonly waitingOn: WaitingOn
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly csatResponse: CsatResponse | null
  readonly attachments: ReadonlyArray<Attachment>
  /** True when the ticket or any of its messages carries an attachment. */
  readonly hasAttachments: boolean
  readonly origin: Origin
  readonly createdBy: { readonly role: ActorRole; readonly user: UserRef | null }
  readonly externalRecipientEmails: ReadonlyArray<string>
  readonly bccRecipientEmails: ReadonlyArray<string>
  readonly fromEmail: string
  readonly fromName: string
  readonly snoozedUntil: DateTime.Utc | null
  readonly snoozedBy: UserRef | null
  readonly lastSnoozeEndedAt: DateTime.Utc | null
  readonly lastUnsnoozeReason: UnsnoozeReason | null
  readonly mergedInto: TicketRef | null
  readonly mergedAt: DateTime.Utc | null
  readonly mergedBy: UserRef | null
  readonly description: string
  readonly descriptionHtml: string
  readonly sentimentAnalysisClass: Sentiment
  readonly tags: ReadonlyArray<TagRef>
  readonly language: string
  readonly isSpam: boolean
}

/** The spec's Ticket message resource. */
export interface MessageView extends DeliveryFields {
  readonly id: number
  readonly ticketId: number
  readonly author: UserRef | null
  readonly role: ActorRole
  readonly sender: Sender | null
  readonly nextAssignee: UserRef | null
  readonly nextPriority: Priority | null
  readonly nextAction: string
  readonly kind: string
  readonly hasRawContent: boolean
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly mergedFromTicket: TicketRef | null
  readonly attachments: ReadonlyArray<Attachment>
  readonly content: string
  readonly contentHtml: string
  readonly isVisibleToCustomer: boolean
  readonly externalRecipientEmails: ReadonlyArray<string>
  readonly bccRecipientEmails: ReadonlyArray<string>
}

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
  deliveryStatus: t.createEmailDelivery?.status ?? null,
  sentAt: t.createEmailDelivery?.sentAt ?? null,
  readAt: t.createEmailDelivery?.readAt ?? null,
  failedAt: t.createEmailDelivery?.failedAt ?? null,
  deliveryFailureReason: t.createEmailDelivery?.failureReason ?? ""
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
  deliveryStatus: m.delivery?.status ?? null,
  sentAt: m.delivery?.sentAt ?? null,
  readAt: m.delivery?.readAt ?? null,
  failedAt: m.delivery?.failedAt ?? null,
  deliveryFailureReason: m.delivery?.failureReason ?? ""
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
