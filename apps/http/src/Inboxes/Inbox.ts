import { Schema } from "effect"
import { AUTO_REPLY_PLACEHOLDERS, unknownPlaceholders } from "../AutoReplies/AutoReplyTemplate.js"
import * as Fields from "../Http/Fields.js"
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

/** An inbox's id. */
export const InboxId = Schema.Int.pipe(Schema.brand("InboxId"))

/** An inbox's id. */
export type InboxId = typeof InboxId.Type

/**
 * An inbox of an organization. Inactivity periods are the effective ones (the organization's when the inbox sets
 * none, `…Inherited` then true); `emailAddress` is derived from `emailPrefix` and the organization.
 */
export const Inbox = Schema.Struct({
  id: InboxId,
  name: Schema.String,
  emailPrefix: Schema.String,
  emailAddress: Schema.String,
  isDefault: Schema.Boolean,
  autoReplyDuringEnabled: Schema.Boolean,
  autoReplyOutsideEnabled: Schema.Boolean,
  autoReplyDuringTemplate: Schema.String,
  autoReplyOutsideTemplate: Schema.String,
  enableInactivityReminders: Schema.Boolean,
  enableAutoCloseInactiveTickets: Schema.Boolean,
  customerMaxInactivityPeriod: Schema.Int,
  customerInactivityReminderPeriod: Schema.Int,
  customerMaxInactivityPeriodInherited: Schema.Boolean,
  customerInactivityReminderPeriodInherited: Schema.Boolean,
  signature: Schema.String,
  emailFromName: Schema.String,
  customerInteractionStyle: Schema.Literal(...CUSTOMER_INTERACTION_STYLES),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})

/** An inbox of an organization. */
export type Inbox = typeof Inbox.Type

/** Effective inactivity periods are described alike on the wire and in bodies. */
export const periodDescription =
  "Whole days; 0 turns it off. The effective value: the inbox's own, or the organization's when the inbox has none (see `*_inherited`). Write `null` to fall back to the organization's."

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
