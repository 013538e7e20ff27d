import { OrganizationId, UserRef } from "@helpdesk/domain"
import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"

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

/** The organization's subscription (read-only; managed outside the API). */
export const Subscription = Schema.Struct({
  status: Schema.Literal(...SUBSCRIPTION_STATUSES),
  planName: Schema.String,
  planMetric: Schema.String,
  renewsAt: Schema.NullOr(Schema.DateFromSelf),
  endsAt: Schema.NullOr(Schema.DateFromSelf),
  trialEndsAt: Schema.NullOr(Schema.DateFromSelf)
})

/** The organization's subscription. */
export type Subscription = typeof Subscription.Type

const DAY_MS = 24 * 60 * 60 * 1000

/** Whole days left in a trial at `now`; 0 when not trialing. */
export const trialDaysRemaining = (subscription: Subscription, now: Date): number =>
  subscription.status === "trialing" && subscription.trialEndsAt !== null
    ? Math.max(0, Math.ceil((subscription.trialEndsAt.getTime() - now.getTime()) / DAY_MS))
    : 0

/** Whether the subscription lets the organization's people work (a trial or an active plan). */
export const hasAccessEnabled = (subscription: Subscription): boolean =>
  subscription.status === "trialing" || subscription.status === "active"

/** The organization's deletion plan (read-only). */
export const DeletionPlan = Schema.Struct({
  status: Schema.Literal(...DELETION_PLAN_STATUSES),
  inactivityDetectedAt: Schema.NullOr(Schema.DateFromSelf),
  deletionAt: Schema.NullOr(Schema.DateFromSelf)
})

/** An organization: its public id, name, settings, subscription and deletion plan. */
export const Organization = Schema.Struct({
  id: OrganizationId,
  publicId: Schema.String,
  name: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  /** The user who created it, as every user reference is kept. */
  createdBy: Schema.NullOr(UserRef),
  supportEmail: Schema.String,
  siteUrl: Schema.String,
  description: Schema.String,
  emailFromName: Schema.String,
  emailSubjectPrefix: Schema.String,
  customerMaxInactivityPeriod: Schema.Int,
  customerInactivityReminderPeriod: Schema.Int,
  enableCsat: Schema.Boolean,
  enableAutoTagging: Schema.Boolean,
  enableCcEmailRouting: Schema.Boolean,
  enableSelfService: Schema.Boolean,
  enableAssociateSignatures: Schema.Boolean,
  enableAutoStt: Schema.Boolean,
  ticketPublicIdMode: Schema.Literal(...TICKET_PUBLIC_ID_MODES),
  workingLanguage: Schema.String,
  subscription: Subscription,
  deletionPlan: DeletionPlan
})

/** An organization. */
export type Organization = typeof Organization.Type

/** How the inactivity periods are described, in the bodies and the wire organization. */
export const periodDescription = "Whole days; 0 turns it off."

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
