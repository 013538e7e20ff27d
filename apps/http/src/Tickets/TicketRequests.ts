import { Classification, Priority, WaitingOn } from "@helpdesk/domain"
import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"

/**
 * Request bodies of the ticket endpoints (docs/decisions/0651-ticket-requests.md). Limits: see {@link LIMITS}.
 */

/** Limits of ticket and message fields. */
export const LIMITS = {
  subject: 500,
  description: 100_000,
  descriptionHtml: 500_000,
  content: 100_000,
  contentHtml: 500_000,
  customerName: 255,
  customerEmail: 254,
  recipients: 50,
  tags: 50,
  attachments: 20,
  nextAction: 255,
  summary: 10_000,
  transcript: 100_000
} as const

/** Channel types (the conversation medium); the same names as `origin` and as the preset filters' `channels`. */
export const CHANNEL_TYPES = ["email", "api", "telegram", "whatsapp"] as const

/** How a ticket entered the system. */
export const ORIGINS = ["email", "api", "telegram", "whatsapp"] as const

// Every id field is a reference (booleans, fractions and padded strings refused): see Fields.id.
const id = Fields.id

const emails = Fields.list(Fields.email(), { maxItems: LIMITS.recipients })

const attachmentIds = Fields.list(Fields.text({ maxLength: 64 }), { maxItems: LIMITS.attachments }).annotations({
  description: "Ids of pending attachments uploaded by the same caller; a bad id fails the whole request."
})

const tagIds = Fields.list(id, { maxItems: LIMITS.tags })

/** A timestamp field: ISO-8601 with a time zone (`Z` or an offset). */
export const instant = Fields.make(
  Schema.DateTimeUtcFromSelf,
  { type: "string", format: "date-time", description: "ISO-8601 date-time with a zone, e.g. `2026-11-23T09:00:00Z`." },
  (input) => {
    if (
      typeof input !== "string" ||
      !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(input.trim())
    )
      return { ok: false, message: "Datetime has wrong format. Use ISO-8601 with a zone, e.g. 2026-11-23T09:00:00Z." }
    const decoded = Schema.decodeUnknownEither(Schema.DateTimeUtc)(input.trim())
    return decoded._tag === "Right"
      ? { ok: true, value: decoded.right }
      : { ok: false, message: "Datetime has wrong format. Use ISO-8601 with a zone, e.g. 2026-11-23T09:00:00Z." }
  }
)

/** Body of `POST /organizations/{organization_id}/tickets/`. */
export const TicketCreate = Schema.Struct({
  subject: Fields.text({ maxLength: LIMITS.subject }),
  description: Fields.optional(
    Fields.text({
      maxLength: LIMITS.description,
      allowBlank: true,
      description:
        "Plain text. Required for `text` tickets unless `description_html` is given (its text is used). For `audio` the transcript; empty while speech-to-text is pending."
    })
  ),
  description_html: Fields.optional(Fields.text({ maxLength: LIMITS.descriptionHtml, allowBlank: true })),
  kind: Fields.optional(Fields.choice(["text", "audio"])),
  inbox_id: Fields.optional(
    Fields.nullable(id).annotations({
      description: "An inbox of the organization; omitted or null: the default inbox."
    })
  ),
  customer_id: Fields.optional(id.annotations({ description: "An existing customer. Or give `customer_email`." })),
  customer_email: Fields.optional(
    Fields.email({ maxLength: LIMITS.customerEmail }).annotations({
      description: "The customer's address: matched ignoring case, or a new customer is created."
    })
  ),
  customer_name: Fields.optional(Fields.text({ maxLength: LIMITS.customerName, allowBlank: true })),
  origin: Fields.optional(Fields.choice(ORIGINS)),
  channel_type: Fields.optional(Fields.choice(CHANNEL_TYPES)),
  channel_connection_id: Fields.optional(Fields.nullable(id)),
  external_recipient_emails: Fields.optional(emails),
  bcc_recipient_emails: Fields.optional(emails),
  tags: Fields.optional(tagIds.annotations({ description: "Tag ids of the organization." })),
  priority: Fields.optional(Fields.choice(Priority.literals)),
  assignee_id: Fields.optional(Fields.nullable(id)),
  attachment_ids: Fields.optional(attachmentIds),
  created_by_role: Fields.optional(
    Fields.choice(["associate", "customer"]).annotations({
      description:
        "`associate` (default): a team member or integration opens the ticket, and the customer is e-mailed. `customer` (integration tokens only): an inbound ticket the customer sent; no create-email."
    })
  )
}).annotations({ identifier: "TicketCreate" })

/** Body of `POST …/tickets/{ticket_id}/messages/`. */
export const MessageCreate = Schema.Struct({
  content: Fields.optional(Fields.text({ maxLength: LIMITS.content, allowBlank: true })),
  content_html: Fields.optional(Fields.text({ maxLength: LIMITS.contentHtml, allowBlank: true })),
  is_visible_to_customer: Fields.optional(Fields.boolean),
  role: Fields.optional(
    Fields.choice(["associate", "customer"]).annotations({
      description: "`customer` (integration tokens only): the customer's reply, e.g. an inbound e-mail."
    })
  ),
  external_recipient_emails: Fields.optional(
    Fields.nullable(emails).annotations({
      description:
        "CC of this reply. Omitted or null: the last customer-visible message's CC, else the ticket's creation-time CC."
    })
  ),
  bcc_recipient_emails: Fields.optional(
    Fields.nullable(emails).annotations({ description: "BCC of this reply only (never inherited)." })
  ),
  next_assignee_id: Fields.optional(Fields.nullable(id)),
  next_priority: Fields.optional(Fields.nullable(Fields.choice(Priority.literals))),
  next_action: Fields.optional(Fields.text({ maxLength: LIMITS.nextAction, allowBlank: true })),
  attachment_ids: Fields.optional(attachmentIds)
}).annotations({ identifier: "TicketMessageCreate" })

/** Body of `PATCH …/tickets/{ticket_id}/`. */
export const TicketUpdate = Schema.Struct({
  status: Fields.optional(Fields.choice(["created", "active", "closed"])),
  classification: Fields.optional(
    Fields.make(Classification, { type: "string", enum: [...Classification.literals] }, (input) =>
      typeof input === "string" && (Classification.literals as ReadonlyArray<string>).includes(input.trim())
        ? { ok: true, value: input.trim() as typeof Classification.Type }
        : {
            ok: false,
            message: `"${Fields.shown(input)}" is not a valid choice. Allowed: "" (pending), ${Classification.literals.filter((c) => c !== "").join(", ")}.`
          }
    )
  ),
  priority: Fields.optional(Fields.choice(Priority.literals)),
  assignee_id: Fields.optional(Fields.nullable(id)),
  tags: Fields.optional(tagIds),
  waiting_on: Fields.optional(
    Fields.choice(WaitingOn.literals).annotations({
      description:
        "Who must act next: `customer`, `associate`, or `\"\"` for nobody. Customer-visible messages set it too (an associate's reply: `customer`; the customer's: `associate`)."
    })
  ),
  is_spam: Fields.optional(Fields.boolean)
}).annotations({ identifier: "TicketUpdate" })

/** Body of `POST …/tickets/{ticket_id}/snooze/`. */
export const SnoozeRequest = Schema.Struct({ until: instant }).annotations({ identifier: "TicketSnooze" })

/** Body of `POST …/tickets/{ticket_id}/merge/`. */
export const MergeRequest = Schema.Struct({
  into: id.annotations({ description: "The surviving ticket's id (same organization)." })
}).annotations({ identifier: "TicketMerge" })

/** Body of `POST …/tickets/{ticket_id}/enrichment/`. */
export const EnrichmentRequest = Schema.Struct({
  summary: Fields.optional(Fields.text({ maxLength: LIMITS.summary, allowBlank: true })),
  sentiment_analysis_class: Fields.optional(Fields.choice(["positive", "negative", "neutral"])),
  transcript: Fields.optional(Fields.text({ maxLength: LIMITS.transcript, allowBlank: true })),
  tags: Fields.optional(tagIds.annotations({ description: "Tag ids to add (auto-tags); existing tags stay." })),
  language: Fields.optional(
    Fields.make(Schema.String, { type: "string", pattern: "^([a-z]{2})?$" }, (input) =>
      typeof input === "string" && /^([a-z]{2})?$/.test(input.trim())
        ? { ok: true, value: input.trim() }
        : { ok: false, message: "Enter a two-letter ISO 639-1 code in lower case (or empty for unknown)." }
    )
  )
}).annotations({ identifier: "TicketEnrichment" })
