import { Schema } from "effect"

/** No ticket with this id in this organization (unknown, or another organization's). */
export class TicketNotInOrganization extends Schema.TaggedError<TicketNotInOrganization>()("TicketNotInOrganization", {
  ticketId: Schema.Number
}) {}

/**
 * A request names something that does not fit: an inbox, customer, tag, user or ticket that is not the
 * organization's, or a combination of fields the API refuses. `field` is the request field concerned
 * (`non_field_errors` for the request as a whole).
 */
export class TicketInputRefused extends Schema.TaggedError<TicketInputRefused>()("TicketInputRefused", {
  field: Schema.String,
  messages: Schema.Array(Schema.String)
}) {
  /** One message about one field. */
  static readonly of = (field: string, message: string) => new TicketInputRefused({ field, messages: [message] })
}

/** A command lost optimistic-concurrency races more times than the retry policy allows. */
export class TicketWriteConflict extends Schema.TaggedError<TicketWriteConflict>()("TicketWriteConflict", {
  ticketId: Schema.Number
}) {}
