import { Schema } from "effect"
import { integerIdParam } from "../Http/PathParams.js"
import { fromModel, Timestamp } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import {
  CUSTOMER_INTERACTION_STYLES,
  type Inbox,
  InboxCreate,
  InboxId,
  InboxUpdate,
  periodDescription
} from "./Inbox.js"
import { InboxOrdering } from "./Inboxes.js"

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

/** An inbox as the API shows it. */
export const InboxWire = Schema.Struct({
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

const inboxFields = fromModel(InboxWire.omit("inbox_email_address", "channel_connections"))

/** An inbox on the wire: its fields in snake_case, `inbox_email_address` its address, no channel connections yet. */
export const inboxWire = (inbox: Inbox): typeof InboxWire.Type => ({
  ...inboxFields(inbox),
  inbox_email_address: inbox.emailAddress,
  channel_connections: []
})

/** Inboxes as a directory resource: `/organizations/{organization_id}/inboxes/{pk}/` (never deleted). */
export const InboxResource = Resource.make({
  path: { segment: "inboxes", id: integerIdParam("pk", InboxId.make) },
  noun: "an inbox",
  wire: { item: InboxWire, toWire: inboxWire, create: InboxCreate, update: InboxUpdate },
  ordering: InboxOrdering,
  docs: {
    list: "All inboxes of the organization; by default the default inbox first, then by name.",
    create:
      "Owners, admins and integration tokens. `name` and `email_prefix` (unique in the organization) are required. The organization's first inbox becomes its default; `is_default: true` on a later one moves the flag to it. Inactivity periods left out or null fall back to the organization's. Answers 201 with a `Location` header.",
    update:
      "`is_default: true` makes this inbox the default (the previous default stops being one, atomically); `is_default: false` on the default inbox is refused with 400 — make another inbox the default instead. An inactivity period set to null falls back to the organization's."
  }
})

/** `/organizations/{organization_id}/inboxes/`: the organization's mailboxes for routing tickets. */
export class InboxesApi extends Resource.group("inboxes", Resource.endpoints(InboxResource), "Inboxes", {
  delete: false
}) {}
