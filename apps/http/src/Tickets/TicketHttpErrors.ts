import type { MergeError, TicketError, TicketRef } from "@helpdesk/domain"
import { Match } from "effect"
import { claimProblemMessages } from "../Attachments/Attachment.js"
import { Conflict, NON_FIELD_ERRORS, NotFound, ValidationError } from "../Http/Errors.js"
import { HTML_TOO_DEEP } from "../Http/Html.js"
import type {
  TicketInputReason,
  TicketInputRefused,
  TicketNotInOrganization,
  TicketWriteConflict
} from "./TicketErrors.js"

/** Every failure of a ticket write, before it becomes an HTTP error. */
export type TicketWriteError =
  | TicketError
  | MergeError
  | TicketInputRefused
  | TicketNotInOrganization
  | TicketWriteConflict

const survivor = (ref: TicketRef) => `ticket ${ref.publicId} (id ${ref.id}, "${ref.subject}")`

const field = (name: string, message: string) => ValidationError.field(name, message)

const plural = (count: number, word: string) => (count > 1 ? `${word}s` : word)

const one = (field: string, message: string) => ({ field, messages: [message] })

/** The request field a refused input concerns, and what the caller reads there. */
export const inputRefusal: (reason: TicketInputReason) => {
  readonly field: string
  readonly messages: ReadonlyArray<string>
} = Match.typeTags<TicketInputReason, { readonly field: string; readonly messages: ReadonlyArray<string> }>()({
  HtmlTooDeep: ({ of }) => one(of === "description" ? "description_html" : "content_html", HTML_TOO_DEEP),
  DescriptionHtmlUnsafe: () =>
    one("description_html", "Nothing is left of description_html once unsafe markup is removed; give a description."),
  InboxNotInOrganization: ({ inboxId }) => one("inbox_id", `Inbox ${inboxId} does not exist in this organization.`),
  CustomerNotInOrganization: ({ customerId }) =>
    one("customer_id", `Customer ${customerId} does not exist in this organization.`),
  TagsNotInOrganization: ({ tagIds }) =>
    one(
      "tags",
      `Unknown ${plural(tagIds.length, "tag id")}: ${tagIds.join(", ")}. Use ids of this organization's tags.`
    ),
  AssigneeNotMember: ({ userId }) => one("assignee_id", `User ${userId} is not a member of this organization.`),
  NextAssigneeNotMember: ({ userId }) =>
    one("next_assignee_id", `User ${userId} is not a member of this organization.`),
  AttachmentsNotClaimable: ({ problems }) => ({ field: "attachment_ids", messages: claimProblemMessages(problems) }),
  CannotActivateNewTicket: () =>
    one("status", "A new ticket becomes active when an associate replies to the customer; it cannot be set to active."),
  CannotReturnToCreated: ({ status }) => one("status", `A ${status} ticket cannot go back to created.`),
  MergeTargetNotInOrganization: ({ ticketId }) => one("into", `Ticket ${ticketId} does not exist in this organization.`)
})

/**
 * The HTTP answer to a refused ticket write: 404 for a ticket the organization does not have, 409 for a conflict
 * that survived retries, and otherwise 400 with the message under the field concerned or `non_field_errors`.
 */
export const toHttpError = (error: TicketWriteError): ValidationError | NotFound | Conflict => {
  switch (error._tag) {
    case "TicketNotInOrganization":
    case "TicketNotFound":
      return new NotFound()
    case "TicketWriteConflict":
      return new Conflict({
        detail: "The ticket was changed by someone else at the same time, several times over. Try again."
      })
    case "TicketInputRefused": {
      const refusal = inputRefusal(error.reason)
      return new ValidationError({ errors: { [refusal.field]: refusal.messages } })
    }
    case "TicketAlreadyExists":
      return field(NON_FIELD_ERRORS, "The ticket already exists.")
    case "TicketMergedAway":
      return field(
        NON_FIELD_ERRORS,
        `This ticket was merged into ${survivor(error.mergedInto)} and takes no more changes; write to ticket ${error.mergedInto.publicId} instead.`
      )
    case "TicketAlreadyMerged":
      return field(NON_FIELD_ERRORS, `This ticket was already merged into ${survivor(error.mergedInto)}.`)
    case "CannotMergeIntoMergedTicket":
      return field(
        "into",
        `That ticket was merged into ${survivor(error.mergedInto)}; merge into ticket ${error.mergedInto.publicId} instead.`
      )
    case "CannotMergeIntoItself":
      return field("into", "A ticket cannot be merged into itself.")
    case "CannotMergeAcrossOrganizations":
      return field("into", "Tickets of different organizations cannot be merged.")
    case "AudioTicketHasNoHtml":
      return field("description_html", "An audio ticket has no description_html; its description is the transcript.")
    case "NotAnAudioTicket":
      return field("transcript", "Only audio tickets have a transcript.")
    case "CreateEmailRequiresAssociate":
      return field(NON_FIELD_ERRORS, "A create-email is only sent for tickets an associate creates.")
    case "ClassificationRequiredToClose":
      return field("classification", "Closing a ticket requires a classification (and a closed ticket keeps one).")
    case "TicketAlreadyClosed":
      return field("status", "The ticket is already closed.")
    case "TicketNotClosed":
      return field("status", "Only a closed ticket can be reopened.")
    case "CsatRatingOutOfRange":
      return field("rating", `Rating ${error.rating} is not between 1 and 5.`)
    case "CsatAlreadyRecorded":
      return new Conflict({ detail: "The customer has already answered this ticket's satisfaction survey." })
    case "InvalidLanguageCode":
      return field("language", `"${error.language}" is not a two-letter language code.`)
    case "CustomerCannotWriteInternalNote":
      return field("is_visible_to_customer", "A customer's message is always visible to the customer.")
    case "EmptyMessage":
      return field("content", "A message needs content or an attachment.")
    case "DuplicateMessageId":
      return field(NON_FIELD_ERRORS, `The ticket already has message ${error.messageId}.`)
    case "OnlyRepliesToTheCustomerAreEmailed":
      return field(NON_FIELD_ERRORS, "Only a customer-visible reply to the customer is sent as an e-mail.")
    case "SnoozeMustBeInFuture":
      return field("until", "The snooze must end in the future.")
    case "CannotSnoozeClosedTicket":
      return field(NON_FIELD_ERRORS, "A closed ticket cannot be snoozed.")
    case "CannotSnoozeSpamTicket":
      return field(NON_FIELD_ERRORS, "A spam ticket cannot be snoozed.")
    case "TicketNotSnoozed":
      return field(NON_FIELD_ERRORS, "The ticket is not snoozed.")
    case "SnoozeNotElapsed":
      return field(NON_FIELD_ERRORS, "The snooze has not elapsed yet.")
    case "DeliveryNotTracked":
      return field(NON_FIELD_ERRORS, error.message)
    case "MessageNotFound":
      return field(NON_FIELD_ERRORS, error.message)
    case "CreateEmailNotFailed":
      return new Conflict({ detail: `${error.message}.` })
  }
}
