import { Schema } from "effect"
import { Instant, TicketRef } from "./Values.js"

/** The command addresses a ticket whose stream has no `TicketCreated`. */
export class TicketNotFound extends Schema.TaggedError<TicketNotFound>()("TicketNotFound", {
  ticketId: Schema.Int
}) {
  override get message() {
    return `ticket ${this.ticketId} does not exist`
  }
}

/** `CreateTicket` on a stream that already holds a ticket. */
export class TicketAlreadyExists extends Schema.TaggedError<TicketAlreadyExists>()("TicketAlreadyExists", {
  ticketId: Schema.Int
}) {
  override get message() {
    return `ticket ${this.ticketId} already exists`
  }
}

/**
 * The ticket was merged away and takes no more writes. `mergedInto` names the survivor, so a caller can
 * re-address the command there (the app does so for customer replies and delivery reports).
 */
export class TicketMergedAway extends Schema.TaggedError<TicketMergedAway>()("TicketMergedAway", {
  ticketId: Schema.Int,
  mergedInto: TicketRef
}) {
  override get message() {
    return `ticket ${this.ticketId} was merged into ticket ${this.mergedInto.id}`
  }
}

/** An audio ticket's description is its transcript; it has no HTML. */
export class AudioTicketHasNoHtml extends Schema.TaggedError<AudioTicketHasNoHtml>()("AudioTicketHasNoHtml", {
  ticketId: Schema.Int
}) {
  override get message() {
    return "an audio ticket has no description_html; its description is the transcript"
  }
}

/** Only audio tickets have transcripts. */
export class NotAnAudioTicket extends Schema.TaggedError<NotAnAudioTicket>()("NotAnAudioTicket", {
  ticketId: Schema.Int
}) {
  override get message() {
    return `ticket ${this.ticketId} is not an audio ticket`
  }
}

/** Only an associate (or the system on an associate's behalf) sends a create-email to the customer. */
export class CreateEmailRequiresAssociate extends Schema.TaggedError<CreateEmailRequiresAssociate>()(
  "CreateEmailRequiresAssociate",
  { ticketId: Schema.Int }
) {
  override get message() {
    return "a create-email is only sent for tickets an associate creates"
  }
}

/** A closed ticket must carry a non-empty classification. */
export class ClassificationRequiredToClose extends Schema.TaggedError<ClassificationRequiredToClose>()(
  "ClassificationRequiredToClose",
  { ticketId: Schema.Int }
) {
  override get message() {
    return "closing a ticket requires a classification"
  }
}

/** `CloseTicket` on a closed ticket. */
export class TicketAlreadyClosed extends Schema.TaggedError<TicketAlreadyClosed>()("TicketAlreadyClosed", {
  ticketId: Schema.Int
}) {
  override get message() {
    return `ticket ${this.ticketId} is already closed`
  }
}

/** `ReopenTicket` on a ticket that is not closed. */
export class TicketNotClosed extends Schema.TaggedError<TicketNotClosed>()("TicketNotClosed", {
  ticketId: Schema.Int
}) {
  override get message() {
    return `ticket ${this.ticketId} is not closed`
  }
}

/** CSAT ratings are integers from 1 to 5. */
export class CsatRatingOutOfRange extends Schema.TaggedError<CsatRatingOutOfRange>()("CsatRatingOutOfRange", {
  rating: Schema.Number
}) {
  override get message() {
    return `rating ${this.rating} is not between 1 and 5`
  }
}

/** A ticket's CSAT response is recorded once; the customer's first answer stands. */
export class CsatAlreadyRecorded extends Schema.TaggedError<CsatAlreadyRecorded>()("CsatAlreadyRecorded", {
  ticketId: Schema.Int
}) {
  override get message() {
    return "the customer has already answered this ticket's satisfaction survey"
  }
}

/** Language codes are two lowercase letters (ISO 639-1), or empty for unknown. */
export class InvalidLanguageCode extends Schema.TaggedError<InvalidLanguageCode>()("InvalidLanguageCode", {
  language: Schema.String
}) {
  override get message() {
    return `"${this.language}" is not a two-letter language code`
  }
}

/** Customers cannot write internal notes. */
export class CustomerCannotWriteInternalNote extends Schema.TaggedError<CustomerCannotWriteInternalNote>()(
  "CustomerCannotWriteInternalNote",
  { ticketId: Schema.Int }
) {
  override get message() {
    return "a customer's message is always visible to the customer"
  }
}

/** A message needs content or at least one attachment. */
export class EmptyMessage extends Schema.TaggedError<EmptyMessage>()("EmptyMessage", {
  ticketId: Schema.Int
}) {
  override get message() {
    return "a message needs content or an attachment"
  }
}

/** Message ids are unique within a ticket. */
export class DuplicateMessageId extends Schema.TaggedError<DuplicateMessageId>()("DuplicateMessageId", {
  ticketId: Schema.Int,
  messageId: Schema.Int
}) {
  override get message() {
    return `ticket ${this.ticketId} already has message ${this.messageId}`
  }
}

/** Only a customer-visible message from an associate may go out as a tracked email. */
export class OnlyRepliesToTheCustomerAreEmailed extends Schema.TaggedError<OnlyRepliesToTheCustomerAreEmailed>()(
  "OnlyRepliesToTheCustomerAreEmailed",
  { ticketId: Schema.Int }
) {
  override get message() {
    return "only a customer-visible reply by an associate or by the service (auto-reply, reminder) is sent as an email"
  }
}

/** A snooze must end after the moment it is requested. */
export class SnoozeMustBeInFuture extends Schema.TaggedError<SnoozeMustBeInFuture>()("SnoozeMustBeInFuture", {
  ticketId: Schema.Int,
  until: Instant,
  at: Instant
}) {
  override get message() {
    return "snoozed_until must be in the future"
  }
}

/** Closed tickets are not in any queue, so they cannot be snoozed. */
export class CannotSnoozeClosedTicket extends Schema.TaggedError<CannotSnoozeClosedTicket>()(
  "CannotSnoozeClosedTicket",
  { ticketId: Schema.Int }
) {
  override get message() {
    return "a closed ticket cannot be snoozed"
  }
}

/** Spam tickets are out of the queues, so they cannot be snoozed (marking spam clears the snooze). */
export class CannotSnoozeSpamTicket extends Schema.TaggedError<CannotSnoozeSpamTicket>()("CannotSnoozeSpamTicket", {
  ticketId: Schema.Int
}) {
  override get message() {
    return "a spam ticket cannot be snoozed"
  }
}

/** A manual unsnooze of a ticket that is not snoozed. */
export class TicketNotSnoozed extends Schema.TaggedError<TicketNotSnoozed>()("TicketNotSnoozed", {
  ticketId: Schema.Int
}) {
  override get message() {
    return `ticket ${this.ticketId} is not snoozed`
  }
}

/** A snooze timer that fires before `snoozed_until`. */
export class SnoozeNotElapsed extends Schema.TaggedError<SnoozeNotElapsed>()("SnoozeNotElapsed", {
  ticketId: Schema.Int,
  snoozedUntil: Instant,
  at: Instant
}) {
  override get message() {
    return "the snooze has not elapsed yet"
  }
}

/** A ticket cannot be merged into itself. */
export class CannotMergeIntoItself extends Schema.TaggedError<CannotMergeIntoItself>()("CannotMergeIntoItself", {
  ticketId: Schema.Int
}) {
  override get message() {
    return "a ticket cannot be merged into itself"
  }
}

/** Merging only joins tickets of one organization. */
export class CannotMergeAcrossOrganizations extends Schema.TaggedError<CannotMergeAcrossOrganizations>()(
  "CannotMergeAcrossOrganizations",
  { sourceTicketId: Schema.Int, targetTicketId: Schema.Int }
) {
  override get message() {
    return "tickets of different organizations cannot be merged"
  }
}

/** The target was itself merged away; merge into its survivor instead. */
export class CannotMergeIntoMergedTicket extends Schema.TaggedError<CannotMergeIntoMergedTicket>()(
  "CannotMergeIntoMergedTicket",
  { targetTicketId: Schema.Int, mergedInto: TicketRef }
) {
  override get message() {
    return `ticket ${this.targetTicketId} was merged into ticket ${this.mergedInto.id}`
  }
}

/** The source was already merged away. */
export class TicketAlreadyMerged extends Schema.TaggedError<TicketAlreadyMerged>()("TicketAlreadyMerged", {
  ticketId: Schema.Int,
  mergedInto: TicketRef
}) {
  override get message() {
    return `ticket ${this.ticketId} was already merged into ticket ${this.mergedInto.id}`
  }
}

/** A delivery report for an email that was never sent (no create-email, or a message not emailed). */
export class DeliveryNotTracked extends Schema.TaggedError<DeliveryNotTracked>()("DeliveryNotTracked", {
  ticketId: Schema.Int,
  messageId: Schema.NullOr(Schema.Int)
}) {
  override get message() {
    return this.messageId === null
      ? `ticket ${this.ticketId} sent no create-email`
      : `message ${this.messageId} was not sent as an email`
  }
}

/** A resend of the create-email when it did not fail (`status` null: the ticket sent no create-email). */
export class CreateEmailNotFailed extends Schema.TaggedError<CreateEmailNotFailed>()("CreateEmailNotFailed", {
  ticketId: Schema.Int,
  status: Schema.NullOr(Schema.Literal("pending", "sent", "failed", "read"))
}) {
  override get message() {
    return this.status === null
      ? `ticket ${this.ticketId} sent no create-email`
      : `the create-email of ticket ${this.ticketId} is ${this.status}, not failed; only a failed one can be sent again`
  }
}

/** The message is not on this ticket. */
export class MessageNotFound extends Schema.TaggedError<MessageNotFound>()("MessageNotFound", {
  ticketId: Schema.Int,
  messageId: Schema.Int
}) {
  override get message() {
    return `ticket ${this.ticketId} has no message ${this.messageId}`
  }
}

/** Every refusal of the ticket decider. */
export type TicketError =
  | TicketNotFound
  | TicketAlreadyExists
  | TicketMergedAway
  | AudioTicketHasNoHtml
  | NotAnAudioTicket
  | CreateEmailRequiresAssociate
  | ClassificationRequiredToClose
  | TicketAlreadyClosed
  | TicketNotClosed
  | CsatRatingOutOfRange
  | CsatAlreadyRecorded
  | InvalidLanguageCode
  | CustomerCannotWriteInternalNote
  | EmptyMessage
  | DuplicateMessageId
  | OnlyRepliesToTheCustomerAreEmailed
  | SnoozeMustBeInFuture
  | CannotSnoozeClosedTicket
  | CannotSnoozeSpamTicket
  | TicketNotSnoozed
  | SnoozeNotElapsed
  | DeliveryNotTracked
  | CreateEmailNotFailed
  | MessageNotFound

/** Every refusal of a merge. */
export type MergeError =
  | TicketNotFound
  | CannotMergeIntoItself
  | CannotMergeAcrossOrganizations
  | CannotMergeIntoMergedTicket
  | TicketAlreadyMerged
  | DuplicateMessageId
