import type { DateTime } from "effect"
import type { Delivery } from "./Delivery.js"
import type { MessageData } from "./Events.js"
import type {
  Actor,
  Attachment,
  Channel,
  Classification,
  CsatResponse,
  CustomerRef,
  InboxRef,
  OrganizationId,
  Origin,
  Priority,
  Sentiment,
  TagRef,
  TicketKind,
  TicketRef,
  TicketStatus,
  UnsnoozeReason,
  UserRef,
  WaitingOn
} from "./Values.js"

/** A message as the decider keeps it: the recorded data plus what happened to it since. */
export interface MessageState extends MessageData {
  readonly delivery: Delivery | null
  readonly mergedFromTicket: TicketRef | null
  readonly updatedAt: DateTime.Utc
}

/** A ticket stream before `TicketCreated`. */
export interface NoTicket {
  readonly _tag: "NoTicket"
}

/**
 * The decider's state of an existing ticket: everything the rules need and everything the ticket view
 * shows. Updated by `evolve` with readonly copies, never in place.
 */
export interface Ticket {
  readonly _tag: "Ticket"
  readonly id: number
  readonly publicId: string
  readonly organizationId: OrganizationId
  readonly subject: string
  readonly description: string
  readonly descriptionHtml: string
  readonly kind: TicketKind
  readonly inbox: InboxRef
  readonly channel: Channel
  readonly origin: Origin
  readonly customer: CustomerRef
  readonly createdBy: Actor
  readonly externalRecipientEmails: ReadonlyArray<string>
  readonly bccRecipientEmails: ReadonlyArray<string>
  readonly fromEmail: string
  readonly fromName: string
  readonly attachments: ReadonlyArray<Attachment>
  readonly tags: ReadonlyArray<TagRef>
  readonly priority: Priority
  readonly assignee: UserRef | null
  readonly status: TicketStatus
  readonly classification: Classification
  readonly waitingOn: WaitingOn
  readonly summary: string
  readonly sentiment: Sentiment
  readonly language: string
  readonly isSpam: boolean
  readonly csatResponse: CsatResponse | null
  readonly customerVisibleReplyCount: number
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly snoozedUntil: DateTime.Utc | null
  readonly snoozedBy: UserRef | null
  readonly lastSnoozeEndedAt: DateTime.Utc | null
  readonly lastUnsnoozeReason: UnsnoozeReason | null
  readonly mergedInto: TicketRef | null
  readonly mergedAt: DateTime.Utc | null
  readonly mergedBy: UserRef | null
  /** The create-email's delivery; `null` when no create-email was sent. */
  readonly createEmailDelivery: Delivery | null
  readonly messages: ReadonlyArray<MessageState>
  /** Whether any message carries attachments (for `has_attachments`). */
  readonly hasMessageAttachments: boolean
  /** CC snapshot of the last customer-visible message; `null` until there is one. */
  readonly lastVisibleRecipientEmails: ReadonlyArray<string> | null
}

/** The state of a ticket stream. */
export type TicketState = NoTicket | Ticket

/** The state before any event. */
export const initialState: TicketState = { _tag: "NoTicket" }

/** Whether the ticket is snoozed at `now` (snoozed means `snoozed_until` > now). */
export const isSnoozedAt = (snoozedUntil: DateTime.Utc | null, now: DateTime.Utc): boolean =>
  snoozedUntil !== null && snoozedUntil.epochMillis > now.epochMillis
