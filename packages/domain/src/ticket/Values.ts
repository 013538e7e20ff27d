import { DateTime, ParseResult, Schema } from "effect"

/**
 * An instant in UTC, stored as an ISO-8601 string. It accepts and refuses what `Schema.DateTimeUtc` does (any
 * string `Date.parse` reads), but decodes in about half the time: replaying streams decodes one or two per event.
 */
export const Instant: Schema.Schema<DateTime.Utc, string> = Schema.transformOrFail(
  Schema.String,
  Schema.DateTimeUtcFromSelf,
  {
    strict: true,
    decode: (text, _, ast) => {
      const millis = Date.parse(text)
      return Number.isNaN(millis)
        ? ParseResult.fail(
            new ParseResult.Type(ast, text, `Expected an ISO-8601 date-time, got ${JSON.stringify(text)}`)
          )
        : ParseResult.succeed(DateTime.unsafeMake(millis))
    },
    encode: (instant) => ParseResult.succeed(DateTime.formatIso(instant))
  }
).annotations({ identifier: "Instant" })

/**
 * The id of the organization a ticket belongs to, as the app allocates it (`organizations.id`, a `bigserial`,
 * written in decimal). A string, branded so that it is not mixed up with other strings: events, commands,
 * state and views carry it, and their encoded form is the plain string (stored events are unchanged). It is not
 * the organization's `public_id` that names it in URLs; the app resolves that to this id (decision 0809).
 */
export const OrganizationId = Schema.String.pipe(Schema.brand("OrganizationId"))
export type OrganizationId = typeof OrganizationId.Type

/** The app-allocated integer id of a ticket; the domain treats it as data. */
export const TicketId = Schema.Int
/** The app-allocated integer id of a message. */
export const MessageId = Schema.Int

/** `<user_ref>`: a value snapshot of a user taken when the command was issued. */
export const UserRef = Schema.Struct({
  id: Schema.Int,
  email: Schema.String,
  name: Schema.String,
  profilePictureUrl: Schema.String
})
export type UserRef = typeof UserRef.Type

/** Who issues a command (and so who an event is attributed to). */
export const ActorRole = Schema.Literal("customer", "associate", "system")
export type ActorRole = typeof ActorRole.Type

/** The acting party: its role and, for people, the user snapshot (`created_by` has this shape). */
export const Actor = Schema.Struct({
  role: ActorRole,
  user: Schema.NullOr(UserRef)
})
export type Actor = typeof Actor.Type

/** The actor for events that no person caused (timers, delivery reports, enrichment). */
export const systemActor: Actor = { role: "system", user: null }

/** A claimed attachment. The signed `download_url` is the app's concern, so it is not stored here. */
export const Attachment = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  size: Schema.Int,
  contentType: Schema.String
})
export type Attachment = typeof Attachment.Type

/** An organization tag as it was when applied. */
export const TagRef = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  color: Schema.String
})
export type TagRef = typeof TagRef.Type

/** The inbox a ticket was routed to. */
export const InboxRef = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  emailPrefix: Schema.String,
  customerInteractionStyle: Schema.String
})
export type InboxRef = typeof InboxRef.Type

/** The conversation medium (use this, not `origin`, for the medium). */
export const Channel = Schema.Struct({
  type: Schema.String,
  connectionId: Schema.NullOr(Schema.Int)
})
export type Channel = typeof Channel.Type

/** A customer's company, as referenced from a customer. */
export const CompanyRef = Schema.Struct({
  id: Schema.String,
  name: Schema.String
})
export type CompanyRef = typeof CompanyRef.Type

/** The requester, as a snapshot. */
export const CustomerRef = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  email: Schema.String,
  isSpam: Schema.Boolean,
  company: Schema.NullOr(CompanyRef),
  isCompanyManager: Schema.Boolean
})
export type CustomerRef = typeof CustomerRef.Type

/** Who a message's email or chat message came from. */
export const Sender = Schema.Struct({
  email: Schema.String,
  name: Schema.String,
  userId: Schema.NullOr(Schema.Int),
  profilePicture: Schema.String
})
export type Sender = typeof Sender.Type

/** A reference to another ticket (`merged_into`, `merged_from_ticket`). */
export const TicketRef = Schema.Struct({
  id: TicketId,
  publicId: Schema.String,
  subject: Schema.String
})
export type TicketRef = typeof TicketRef.Type

/** A customer-satisfaction answer. */
export const CsatResponse = Schema.Struct({
  rating: Schema.Int,
  comment: Schema.String
})
export type CsatResponse = typeof CsatResponse.Type

export const TicketKind = Schema.Literal("text", "audio")
export type TicketKind = typeof TicketKind.Type

export const Origin = Schema.Literal("email", "api", "telegram", "whatsapp")
export type Origin = typeof Origin.Type

export const TicketStatus = Schema.Literal("created", "active", "closed")
export type TicketStatus = typeof TicketStatus.Type

/** `""` means pending (not classified yet). */
export const Classification = Schema.Literal("", "no_response", "customer_inactivity", "resolved", "invalid", "other")
export type Classification = typeof Classification.Type

export const Priority = Schema.Literal("not_set", "low", "medium", "high", "urgent")
export type Priority = typeof Priority.Type

/** Who must act next; `""` means nobody. */
export const WaitingOn = Schema.Literal("", "customer", "associate")
export type WaitingOn = typeof WaitingOn.Type

export const Sentiment = Schema.Literal("positive", "negative", "neutral", "pending")
export type Sentiment = typeof Sentiment.Type

export const UnsnoozeReason = Schema.Literal("timer", "manual", "customer_reply")
export type UnsnoozeReason = typeof UnsnoozeReason.Type

export const DeliveryStatus = Schema.Literal("pending", "sent", "read", "failed")
export type DeliveryStatus = typeof DeliveryStatus.Type

/** What a delivery report can say (`pending` is only ever the initial state). */
export const ReportedDeliveryStatus = Schema.Literal("sent", "read", "failed")
export type ReportedDeliveryStatus = typeof ReportedDeliveryStatus.Type

/** A list of email addresses (CC/BCC snapshots). */
export const EmailList = Schema.Array(Schema.String)
