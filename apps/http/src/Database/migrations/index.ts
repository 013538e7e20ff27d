import type { SqlClient } from "@effect/sql"
import type { Effect } from "effect"
import createEventStore from "./0001_create_event_store.js"
import createTicketReadModels from "./0002_create_ticket_read_models.js"
import identity from "./0010_identity.js"
import businessHours from "./0020_business_hours.js"
import inboxes from "./0030_inboxes.js"
import companiesAndCustomers from "./0031_companies_and_customers.js"
import tags from "./0032_tags.js"
import presetFilters from "./0040_preset_filters.js"
import helpCenter from "./0041_help_center.js"
import tickets from "./0050_tickets.js"
import attachments from "./0060_attachments.js"
import mailDelivery from "./0070_mail_delivery.js"
import timers from "./0071_timers.js"
import csatSurveys from "./0072_csat_surveys.js"
import redactSentSurveyLinks from "./0073_redact_sent_survey_links.js"
import authChangedNotifications from "./0081_auth_changed_notifications.js"
import ticketSnapshots from "./0082_ticket_snapshots.js"
import inboundMail from "./0091_inbound_mail.js"
import ticketSearch from "./0093_ticket_search.js"
import blobStores from "./0095_blob_stores.js"
import eventOrganizations from "./0096_event_organizations.js"
import webhooks from "./0097_webhooks.js"
import sla from "./0099_sla.js"
import userProfileNotifications from "./0100_user_profile_notifications.js"

/**
 * Every migration of the service, in order. Keys are `NNNN_name`; the migrator records which have run.
 * Add new ones at the end with the next number; never edit one that has shipped.
 */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_create_event_store": createEventStore,
  "0002_create_ticket_read_models": createTicketReadModels,
  "0010_identity": identity,
  "0020_business_hours": businessHours,
  "0030_inboxes": inboxes,
  "0031_companies_and_customers": companiesAndCustomers,
  "0032_tags": tags,
  "0040_preset_filters": presetFilters,
  "0041_help_center": helpCenter,
  "0050_tickets": tickets,
  "0060_attachments": attachments,
  "0070_mail_delivery": mailDelivery,
  "0071_timers": timers,
  "0072_csat_surveys": csatSurveys,
  "0073_redact_sent_survey_links": redactSentSurveyLinks,
  "0081_auth_changed_notifications": authChangedNotifications,
  "0082_ticket_snapshots": ticketSnapshots,
  "0091_inbound_mail": inboundMail,
  "0093_ticket_search": ticketSearch,
  "0095_blob_stores": blobStores,
  "0096_event_organizations": eventOrganizations,
  "0097_webhooks": webhooks,
  "0099_sla": sla,
  "0100_user_profile_notifications": userProfileNotifications
}
