import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { NullableTimestamp, Timestamp, UserRef } from "../Http/Representation.js"

/** How tickets of an organization are numbered for people (`docs/decisions/0402-organization-settings.md`). */
export const TICKET_PUBLIC_ID_MODES = ["auto_numeric", "random_alphanumeric"] as const

/** Subscription states (read-only; a self-hosted service is `active` on the `Self-hosted` plan). */
export const SUBSCRIPTION_STATUSES = ["trialing", "active", "past_due", "canceled", "expired"] as const

/** Deletion-plan states (read-only). */
export const DELETION_PLAN_STATUSES = ["none", "scheduled", "canceled"] as const

/** Longest inactivity periods, in days (ten years). */
export const MAX_PERIOD_DAYS = 3650

/** Limits of the organization's text settings. */
export const LIMITS = {
  name: 255,
  supportEmail: 254,
  siteUrl: 200,
  description: 2000,
  emailFromName: 255,
  emailSubjectPrefix: 50
} as const

/** The organization's subscription. */
export const Subscription = Schema.Struct({
  status: Schema.Literal(...SUBSCRIPTION_STATUSES),
  plan_name: Schema.String,
  plan_metric: Schema.String,
  renews_at: NullableTimestamp,
  ends_at: NullableTimestamp,
  trial_ends_at: NullableTimestamp,
  trial_days_remaining: Schema.Int.annotations({ description: "Whole days left in the trial; 0 when not trialing." }),
  has_access_enabled: Schema.Boolean
}).annotations({ identifier: "Subscription", description: "Read-only." })

/** The organization's deletion plan. */
export const DeletionPlan = Schema.Struct({
  status: Schema.Literal(...DELETION_PLAN_STATUSES),
  inactivity_detected_at: NullableTimestamp,
  deletion_at: NullableTimestamp
}).annotations({ identifier: "DeletionPlan", description: "Read-only." })

const periodDescription = "Whole days; 0 turns it off."

/** An organization as the API shows it. */
export const Organization = Schema.Struct({
  id: Schema.Int,
  public_id: Schema.String.annotations({ description: "Used as `{organization_id}` in paths." }),
  name: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp,
  created_by: Schema.NullOr(UserRef),
  support_email: Schema.String,
  deletion_plan: DeletionPlan,
  subscription: Subscription,
  customer_max_inactivity_period: Schema.Int.annotations({ description: periodDescription }),
  customer_inactivity_reminder_period: Schema.Int.annotations({ description: periodDescription }),
  site_url: Schema.String,
  description: Schema.String,
  email_from_name: Schema.String,
  email_subject_prefix: Schema.String,
  enable_csat: Schema.Boolean,
  enable_auto_tagging: Schema.Boolean,
  enable_cc_email_routing: Schema.Boolean,
  enable_self_service: Schema.Boolean,
  enable_associate_signatures: Schema.Boolean,
  enable_auto_stt: Schema.Boolean,
  ticket_public_id_mode: Schema.Literal(...TICKET_PUBLIC_ID_MODES),
  working_language: Schema.String.annotations({ description: "BCP 47 language tag, e.g. `en`." })
}).annotations({ identifier: "Organization" })

/** An organization as the API shows it. */
export type Organization = typeof Organization.Type

/** The settings a caller may write (everything but ids, timestamps, subscription and deletion plan). */
const settings = {
  support_email: Fields.optional(Fields.email({ maxLength: LIMITS.supportEmail, allowBlank: true })),
  customer_max_inactivity_period: Fields.optional(
    Fields.integer({ minimum: 0, maximum: MAX_PERIOD_DAYS, description: periodDescription })
  ),
  customer_inactivity_reminder_period: Fields.optional(
    Fields.integer({ minimum: 0, maximum: MAX_PERIOD_DAYS, description: periodDescription })
  ),
  site_url: Fields.optional(Fields.url({ maxLength: LIMITS.siteUrl, allowBlank: true })),
  description: Fields.optional(Fields.text({ maxLength: LIMITS.description, allowBlank: true })),
  email_from_name: Fields.optional(Fields.text({ maxLength: LIMITS.emailFromName, allowBlank: true })),
  email_subject_prefix: Fields.optional(Fields.text({ maxLength: LIMITS.emailSubjectPrefix, allowBlank: true })),
  enable_csat: Fields.optional(Fields.boolean),
  enable_auto_tagging: Fields.optional(Fields.boolean),
  enable_cc_email_routing: Fields.optional(Fields.boolean),
  enable_self_service: Fields.optional(Fields.boolean),
  enable_associate_signatures: Fields.optional(Fields.boolean),
  enable_auto_stt: Fields.optional(Fields.boolean),
  ticket_public_id_mode: Fields.optional(Fields.choice(TICKET_PUBLIC_ID_MODES)),
  working_language: Fields.optional(Fields.languageTag)
}

/** Body of `POST /organizations/`: a name and any settings. */
export const OrganizationCreate = Schema.Struct({
  name: Fields.text({ maxLength: LIMITS.name }),
  ...settings
}).annotations({ identifier: "OrganizationCreate" })

/** Body of `PATCH /organizations/{organization_id}/`: any of the writable fields. */
export const OrganizationUpdate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: LIMITS.name })),
  ...settings
}).annotations({ identifier: "OrganizationUpdate" })

/** Writable fields after decoding. */
export type OrganizationChanges = Partial<typeof OrganizationUpdate.Type>
