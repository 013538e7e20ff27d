import { ticketEventClasses } from "@helpdesk/domain"
import { Schema } from "effect"
import { BigInt8, Timestamptz } from "../Database/Columns.js"
import * as Fields from "../Http/Fields.js"
import { NullableTimestamp, Timestamp, withSecret } from "../Http/Representation.js"

/** Longest webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2000

/** Event types a webhook may subscribe to: every ticket event of docs/events.md. */
export const WEBHOOK_EVENT_TYPES = Object.keys(ticketEventClasses).sort() as ReadonlyArray<string>

/** Most event types in one webhook's list (there are fewer types than this). */
export const MAX_EVENT_TYPES = 50

/** A webhook as the API shows it; the secret is only shown when created or rotated. */
export const Webhook = Schema.Struct({
  id: Schema.Int,
  url: Schema.String,
  event_types: Schema.Array(Schema.String).annotations({
    description: "The event types delivered; empty = every type."
  }),
  active: Schema.Boolean.annotations({
    description: "Whether events are delivered. The service turns it off when deliveries keep failing."
  }),
  disabled_reason: Schema.String.annotations({
    description: 'Why the service turned `active` off (`""` when it did not, or after `active` is set again).'
  }),
  disabled_at: NullableTimestamp,
  secret_rotated_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Webhook" })

/** A webhook as the API shows it. */
export type Webhook = typeof Webhook.Type

/** A webhook with its signing secret: the answer of create and of rotate-secret, the only times it is shown. */
export const WebhookWithSecret = withSecret(Webhook, {
  key: "secret",
  description: "The signing secret (`whsec_…`), shown only now. HMAC key of `X-Helpdesk-Signature`.",
  identifier: "WebhookWithSecret"
})

/** A webhook with its signing secret. */
export type WebhookWithSecret = typeof WebhookWithSecret.Type

const url = Fields.url({ maxLength: MAX_WEBHOOK_URL_LENGTH })
const eventTypes = Fields.list(Fields.choice(WEBHOOK_EVENT_TYPES as [string, ...Array<string>]), {
  maxItems: MAX_EVENT_TYPES
})

/** Body of `POST /organizations/{organization_id}/webhooks/`. */
export const WebhookCreate = Schema.Struct({
  url,
  event_types: Fields.optional(eventTypes),
  active: Fields.optional(Fields.boolean)
}).annotations({ identifier: "WebhookCreate" })

/** A decoded create body. */
export type WebhookCreate = typeof WebhookCreate.Type

/** Body of `PATCH /organizations/{organization_id}/webhooks/{pk}/`. */
export const WebhookUpdate = Schema.Struct({
  url: Fields.optional(url),
  event_types: Fields.optional(eventTypes),
  active: Fields.optional(Fields.boolean)
}).annotations({ identifier: "WebhookUpdate" })

/** A decoded update body. */
export type WebhookUpdate = typeof WebhookUpdate.Type

/** One attempt of the delivery log. */
export const WebhookAttempt = Schema.Struct({
  id: Schema.Int,
  event_id: Schema.String.annotations({ description: "The event's id, as sent in `X-Helpdesk-Event-Id`." }),
  event_type: Schema.String,
  attempt: Schema.Int.annotations({ description: "1 for the first attempt of this event, 2 for its first retry…" }),
  attempted_at: Timestamp,
  status_code: Schema.NullOr(Schema.Int).annotations({
    description: "The receiver's HTTP status; null when no response came (refused, timeout, network error)."
  }),
  latency_ms: Schema.Int,
  succeeded: Schema.Boolean.annotations({ description: "A 2xx answer." }),
  error: Schema.String.annotations({ description: 'What went wrong; `""` on success.' })
}).annotations({ identifier: "WebhookAttempt" })

/** One attempt of the delivery log. */
export type WebhookAttempt = typeof WebhookAttempt.Type

/** A webhook as stored: a `hd_webhooks` row (without its secrets), decoded. */
export const StoredWebhook = Schema.Struct({
  id: BigInt8,
  url: Schema.String,
  eventTypes: Schema.Array(Schema.String),
  active: Schema.Boolean,
  disabledReason: Schema.String,
  disabledAt: Schema.NullOr(Timestamptz),
  secretRotatedAt: Schema.NullOr(Timestamptz),
  createdAt: Timestamptz,
  updatedAt: Timestamptz
})

/** A webhook as stored. */
export type StoredWebhook = typeof StoredWebhook.Type

/** A webhook with the secret it was just given (created or rotated): the one time the secret leaves storage. */
export type StoredWebhookWithSecret = StoredWebhook & { readonly secret: string }

/** One attempt of the delivery log as stored: a `hd_webhook_attempts` row, decoded. */
export const StoredWebhookAttempt = Schema.Struct({
  id: BigInt8,
  eventId: Schema.String,
  eventType: Schema.String,
  attempt: Schema.Int,
  attemptedAt: Timestamptz,
  statusCode: Schema.NullOr(Schema.Int),
  latencyMs: Schema.Int,
  succeeded: Schema.Boolean,
  error: Schema.String
})

/** One attempt of the delivery log as stored. */
export type StoredWebhookAttempt = typeof StoredWebhookAttempt.Type
