import { Schema } from "effect"

/** No ticket with this id in this organization (unknown, or another organization's). */
export class TicketNotInOrganization extends Schema.TaggedError<TicketNotInOrganization>()("TicketNotInOrganization", {
  ticketId: Schema.Number
}) {}

/** Why a ticket request is refused before the domain decides: each reason names the rule, not a wire field. */
export const TicketInputReason = Schema.Union(
  /** The HTML of the description or of a message nests deeper than the sanitiser accepts. */
  Schema.TaggedStruct("HtmlTooDeep", { of: Schema.Literal("description", "message") }),
  /** Nothing is left of the description's HTML once unsafe markup is removed, and there is no plain description. */
  Schema.TaggedStruct("DescriptionHtmlUnsafe", {}),
  Schema.TaggedStruct("InboxNotInOrganization", { inboxId: Schema.Number }),
  Schema.TaggedStruct("CustomerNotInOrganization", { customerId: Schema.Number }),
  Schema.TaggedStruct("TagsNotInOrganization", { tagIds: Schema.Array(Schema.Number) }),
  Schema.TaggedStruct("AssigneeNotMember", { userId: Schema.Number }),
  /** The assignee a reply hands the ticket to is not a member. */
  Schema.TaggedStruct("NextAssigneeNotMember", { userId: Schema.Number }),
  /** Attachments that cannot be claimed, each with its problem (`ClaimProblem`). */
  Schema.TaggedStruct("AttachmentsNotClaimable", {
    problems: Schema.Array(Schema.Struct({ id: Schema.String, problem: Schema.String }))
  }),
  /** A new ticket becomes active by a reply to the customer, never by setting its status. */
  Schema.TaggedStruct("CannotActivateNewTicket", {}),
  Schema.TaggedStruct("CannotReturnToCreated", { status: Schema.String }),
  Schema.TaggedStruct("MergeTargetNotInOrganization", { ticketId: Schema.Number })
)

/** Why a ticket request is refused. */
export type TicketInputReason = typeof TicketInputReason.Type

/**
 * A request names something that does not fit: an inbox, customer, tag, user or ticket that is not the
 * organization's, or a combination of fields the API refuses. The HTTP side maps the reason to its field and
 * message (`TicketHttpErrors.ts`).
 */
export class TicketInputRefused extends Schema.TaggedError<TicketInputRefused>()("TicketInputRefused", {
  reason: TicketInputReason
}) {
  /** The refusal for this reason. */
  static readonly because = (reason: TicketInputReason) => new TicketInputRefused({ reason })
}

/** A command lost optimistic-concurrency races more times than the retry policy allows. */
export class TicketWriteConflict extends Schema.TaggedError<TicketWriteConflict>()("TicketWriteConflict", {
  ticketId: Schema.Number
}) {}
