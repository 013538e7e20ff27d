import { Schema } from "effect"
import { AUTO_REPLY_PLACEHOLDERS, unknownPlaceholders } from "../AutoReplies/AutoReplyTemplate.js"
import * as Fields from "../Http/Fields.js"
import { Timestamp } from "../Http/Representation.js"
import { MAX_PERIOD_DAYS } from "../Organizations/Organization.js"
import { emailPrefix } from "./EmailPrefix.js"

/** How an inbox talks to customers; `helpdesk` (ticket e-mails) is the only style so far. */
export const CUSTOMER_INTERACTION_STYLES = ["helpdesk"] as const

/** Limits of an inbox's text fields. */
export const LIMITS = {
  name: 255,
  template: 10_000,
  signature: 10_000,
  emailFromName: 255
} as const

/**
 * A channel connection of an inbox (a mailbox, a messaging account). None are modelled yet, so every inbox
 * shows an empty list; the schema documents the shape clients will get (docs/decisions/0551-inboxes.md).
 */
export const ChannelConnection = Schema.Struct({
  id: Schema.Int,
  type: Schema.String,
  external_identifier: Schema.String,
  is_enabled: Schema.Boolean,
  status: Schema.String,
  token_expires_at: Schema.NullOr(Timestamp),
  config: Schema.Struct({ auto_reply_template: Schema.String })
}).annotations({ identifier: "ChannelConnection" })

const periodDescription =
  "Whole days; 0 turns it off. The effective value: the inbox's own, or the organization's when the inbox has none (see `*_inherited`). Write `null` to fall back to the organization's."

/** An inbox as the API shows it, and as the `Inboxes` service returns it. */
export const Inbox = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  email_prefix: Schema.String,
  inbox_email_address: Schema.String.annotations({
    description: "`{email_prefix}@{organization public_id}.{INBOX_EMAIL_DOMAIN}`: where customers write to this inbox."
  }),
  channel_connections: Schema.Array(ChannelConnection),
  created_at: Timestamp,
  updated_at: Timestamp,
  is_default: Schema.Boolean.annotations({
    description: "Exactly one inbox of an organization is the default; tickets created without `inbox_id` go there."
  }),
  auto_reply_during_enabled: Schema.Boolean,
  auto_reply_outside_enabled: Schema.Boolean,
  auto_reply_during_template: Schema.String,
  auto_reply_outside_template: Schema.String,
  enable_inactivity_reminders: Schema.Boolean,
  enable_auto_close_inactive_tickets: Schema.Boolean,
  customer_max_inactivity_period: Schema.Int.annotations({ description: periodDescription }),
  customer_inactivity_reminder_period: Schema.Int.annotations({ description: periodDescription }),
  customer_max_inactivity_period_inherited: Schema.Boolean.annotations({
    description: "True when `customer_max_inactivity_period` is the organization's (the inbox sets none)."
  }),
  customer_inactivity_reminder_period_inherited: Schema.Boolean.annotations({
    description: "True when `customer_inactivity_reminder_period` is the organization's (the inbox sets none)."
  }),
  signature: Schema.String,
  email_from_name: Schema.String,
  customer_interaction_style: Schema.Literal(...CUSTOMER_INTERACTION_STYLES)
}).annotations({ identifier: "Inbox" })

/**
 * An inbox: its wire representation. Inactivity periods are the effective ones (the organization's when the
 * inbox sets none); `inbox_email_address` is derived from `email_prefix`.
 */
export type Inbox = typeof Inbox.Type

/** The short form a ticket embeds as its `inbox`. */
export const InboxRef = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  email_prefix: Schema.String,
  customer_interaction_style: Schema.Literal(...CUSTOMER_INTERACTION_STYLES)
}).annotations({ identifier: "InboxRef" })

/** The short form a ticket embeds as its `inbox`. */
export type InboxRef = typeof InboxRef.Type

/** The short form of an inbox (for a ticket's `inbox`). */
export const toInboxRef = (inbox: Inbox): InboxRef => ({
  id: inbox.id,
  name: inbox.name,
  email_prefix: inbox.email_prefix,
  customer_interaction_style: inbox.customer_interaction_style
})

const period = Fields.nullable(Fields.integer({ minimum: 0, maximum: MAX_PERIOD_DAYS, description: periodDescription }))

const placeholderList = Object.keys(AUTO_REPLY_PLACEHOLDERS)
  .map((name) => `{{${name}}}`)
  .join(", ")

const autoReplyTemplate = Fields.text({
  maxLength: LIMITS.template,
  allowBlank: true,
  description: `Plain text sent to the customer of a new ticket. Placeholders: ${placeholderList}.`,
  check: (template) => {
    const unknown = unknownPlaceholders(template)
    return unknown.length === 0
      ? undefined
      : `Unknown placeholder${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `{{${name}}}`).join(", ")}. Use ${placeholderList}.`
  }
})

const settings = {
  is_default: Fields.optional(Fields.boolean),
  auto_reply_during_enabled: Fields.optional(Fields.boolean),
  auto_reply_outside_enabled: Fields.optional(Fields.boolean),
  auto_reply_during_template: Fields.optional(autoReplyTemplate),
  auto_reply_outside_template: Fields.optional(autoReplyTemplate),
  enable_inactivity_reminders: Fields.optional(Fields.boolean),
  enable_auto_close_inactive_tickets: Fields.optional(Fields.boolean),
  customer_max_inactivity_period: Fields.optional(period),
  customer_inactivity_reminder_period: Fields.optional(period),
  signature: Fields.optional(Fields.text({ maxLength: LIMITS.signature, allowBlank: true })),
  email_from_name: Fields.optional(Fields.text({ maxLength: LIMITS.emailFromName, allowBlank: true })),
  customer_interaction_style: Fields.optional(Fields.choice(CUSTOMER_INTERACTION_STYLES))
}

/** Body of `POST /organizations/{organization_id}/inboxes/`: a name, an e-mail prefix and any settings. */
export const InboxCreate = Schema.Struct({
  name: Fields.text({ maxLength: LIMITS.name }),
  email_prefix: emailPrefix,
  ...settings
}).annotations({ identifier: "InboxCreate" })

/** A decoded create body. */
export type InboxCreate = typeof InboxCreate.Type

/** Body of `PATCH /organizations/{organization_id}/inboxes/{pk}/`: any writable field. */
export const InboxUpdate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: LIMITS.name })),
  email_prefix: Fields.optional(emailPrefix),
  ...settings
}).annotations({ identifier: "InboxUpdate" })

/** A decoded update body. */
export type InboxUpdate = typeof InboxUpdate.Type
