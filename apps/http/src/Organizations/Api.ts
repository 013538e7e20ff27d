import { HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import * as Endpoint from "../Http/Endpoint.js"
import { OrganizationPath } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { NullableTimestamp, Timestamp, UserRef, userRefWire } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import {
  DELETION_PLAN_STATUSES,
  hasAccessEnabled,
  type Organization,
  OrganizationCreate,
  OrganizationUpdate,
  periodDescription,
  SUBSCRIPTION_STATUSES,
  TICKET_PUBLIC_ID_MODES,
  trialDaysRemaining
} from "./Organization.js"
import { OrganizationOrdering } from "./Organizations.js"

/** The organization's subscription as the API shows it. */
export const SubscriptionWire = Schema.Struct({
  status: Schema.Literal(...SUBSCRIPTION_STATUSES),
  plan_name: Schema.String,
  plan_metric: Schema.String,
  renews_at: NullableTimestamp,
  ends_at: NullableTimestamp,
  trial_ends_at: NullableTimestamp,
  trial_days_remaining: Schema.Int.annotations({ description: "Whole days left in the trial; 0 when not trialing." }),
  has_access_enabled: Schema.Boolean
}).annotations({ identifier: "Subscription", description: "Read-only." })

/** The organization's deletion plan as the API shows it. */
export const DeletionPlanWire = Schema.Struct({
  status: Schema.Literal(...DELETION_PLAN_STATUSES),
  inactivity_detected_at: NullableTimestamp,
  deletion_at: NullableTimestamp
}).annotations({ identifier: "DeletionPlan", description: "Read-only." })

/** An organization as the API shows it. */
export const OrganizationWire = Schema.Struct({
  id: Schema.Int,
  public_id: Schema.String.annotations({ description: "Used as `{organization_id}` in paths." }),
  name: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp,
  created_by: Schema.NullOr(UserRef),
  support_email: Schema.String,
  deletion_plan: DeletionPlanWire,
  subscription: SubscriptionWire,
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
export type OrganizationWire = typeof OrganizationWire.Type

/** An organization on the wire at `now` (which only the trial's remaining days depend on). */
export const organizationWire = (organization: Organization, now: Date): OrganizationWire => {
  const { createdBy, deletionPlan, subscription } = organization
  return {
    id: Number(organization.id),
    public_id: organization.publicId,
    name: organization.name,
    created_at: organization.createdAt,
    updated_at: organization.updatedAt,
    created_by: userRefWire(createdBy),
    support_email: organization.supportEmail,
    deletion_plan: {
      status: deletionPlan.status,
      inactivity_detected_at: deletionPlan.inactivityDetectedAt,
      deletion_at: deletionPlan.deletionAt
    },
    subscription: {
      status: subscription.status,
      plan_name: subscription.planName,
      plan_metric: subscription.planMetric,
      renews_at: subscription.renewsAt,
      ends_at: subscription.endsAt,
      trial_ends_at: subscription.trialEndsAt,
      trial_days_remaining: trialDaysRemaining(subscription, now),
      has_access_enabled: hasAccessEnabled(subscription)
    },
    customer_max_inactivity_period: organization.customerMaxInactivityPeriod,
    customer_inactivity_reminder_period: organization.customerInactivityReminderPeriod,
    site_url: organization.siteUrl,
    description: organization.description,
    email_from_name: organization.emailFromName,
    email_subject_prefix: organization.emailSubjectPrefix,
    enable_csat: organization.enableCsat,
    enable_auto_tagging: organization.enableAutoTagging,
    enable_cc_email_routing: organization.enableCcEmailRouting,
    enable_self_service: organization.enableSelfService,
    enable_associate_signatures: organization.enableAssociateSignatures,
    enable_auto_stt: organization.enableAutoStt,
    ticket_public_id_mode: organization.ticketPublicIdMode,
    working_language: organization.workingLanguage
  }
}

// Organizations are not under `/organizations/{organization_id}/…`, so the resource builder does not declare them.
const collection = "/organizations/"
const member = "/organizations/:organization_id/"

/** `/organizations/`: the caller's organizations and their settings. */
export class OrganizationsApi extends Resource.guarded(
  HttpApiGroup.make("organizations")
    .add(
      Endpoint.list(
        "list",
        collection,
        {
          summary: "List the caller's organizations",
          description: "Organizations the caller belongs to (an integration token sees its one organization)."
        },
        OrganizationWire,
        {
          ...Query.search("name: case- and accent-insensitive"),
          ...OrganizationOrdering.params
        }
      )
    )
    .add(
      Endpoint.post("create", collection, {
        summary: "Create an organization",
        description:
          "Personal tokens only: the caller becomes the owner. Integration tokens get 403. Answers 201 with a `Location` header."
      })
        .setPayload(OrganizationCreate)
        .addSuccess(OrganizationWire, { status: 201 })
    )
    .add(
      Endpoint.get("get", member, { summary: "Read an organization" })
        .setPath(OrganizationPath)
        .addSuccess(OrganizationWire)
    )
    .add(
      Endpoint.patch("update", member, {
        summary: "Change an organization's name or settings",
        description:
          "Owners, admins and integration tokens; members get 403. `subscription` and `deletion_plan` are read-only."
      })
        .setPath(OrganizationPath)
        .setPayload(OrganizationUpdate)
        .addSuccess(OrganizationWire)
    ),
  "Organizations"
) {}
