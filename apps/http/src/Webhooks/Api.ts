import { Schema } from "effect"
import * as Endpoint from "../Http/Endpoint.js"
import * as Ordering from "../Http/Ordering.js"
import { IntegerId, integerIdParam, OrganizationPublicId } from "../Http/PathParams.js"
import { fromModel } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import {
  type StoredWebhook,
  type StoredWebhookAttempt,
  type StoredWebhookWithSecret,
  Webhook,
  WebhookAttempt,
  WebhookCreate,
  WebhookUpdate,
  WebhookWithSecret
} from "./Webhook.js"

const WebhookPath = Schema.Struct({ organization_id: OrganizationPublicId, webhook_id: IntegerId })

const WEBHOOK = "/organizations/:organization_id/webhooks/:webhook_id/"

const signing =
  'Each delivery is a `POST` of one event as JSON, signed in `X-Helpdesk-Signature` (`t=<unix seconds>,v1=<HMAC-SHA256 hex of "t.body">`) with the webhook\'s secret, its event id in `X-Helpdesk-Event-Id`; see docs/webhooks.md.'

/** The wire form of a stored webhook. */
export const toWebhook: (webhook: StoredWebhook) => Webhook = fromModel(Webhook)

/** The wire form of a webhook with the secret it was just given. */
export const toWebhookWithSecret = (webhook: StoredWebhookWithSecret): WebhookWithSecret => ({
  ...toWebhook(webhook),
  secret: webhook.secret
})

/** The wire form of a stored delivery attempt. */
export const toWebhookAttempt: (attempt: StoredWebhookAttempt) => WebhookAttempt = fromModel(WebhookAttempt)

/** Webhooks as a directory resource: `/organizations/{organization_id}/webhooks/{webhook_id}/`, oldest first. */
export const WebhookResource = Resource.make({
  path: { segment: "webhooks", id: integerIdParam("webhook_id") },
  noun: "a webhook",
  wire: {
    item: Webhook,
    toWire: toWebhook,
    create: WebhookCreate,
    update: WebhookUpdate,
    created: { schema: WebhookWithSecret, toWire: toWebhookWithSecret }
  },
  ordering: Ordering.fixed("id"),
  docs: {
    list: "Owners, admins and integration tokens. Oldest first.",
    create: `Owners, admins and integration tokens. \`url\`: \`http\` or \`https\`, at most 2,000 characters, not a loopback, private or link-local address (checked again at every delivery on the address connected to). \`event_types\`: event types of docs/events.md, empty or omitted for all. Answers 201 with the generated \`secret\`, shown only now. Events committed from about now on are delivered. ${signing}`,
    get: "`disabled_reason` says why the service turned `active` off.",
    update:
      "`active: false` gives up its pending deliveries; `active: true` clears `disabled_reason` and delivers the events committed from then on (not those in between).",
    delete: "Answers 204. Nothing more is sent to it; its delivery log goes with it."
  }
})

/** `/organizations/{organization_id}/webhooks/`: signed deliveries of the organization's ticket events. */
export class WebhooksApi extends Resource.group("webhooks", Resource.endpoints(WebhookResource), "Webhooks")
  .add(
    Endpoint.post("rotateSecret", `${WEBHOOK}rotate-secret/`, {
      summary: "Rotate a webhook's secret",
      description:
        "Answers the new `secret`. For 24 hours deliveries carry two `v1` signatures, with the new and the previous secret."
    })
      .setPath(WebhookPath)
      .addSuccess(WebhookWithSecret)
  )
  .add(
    Endpoint.list(
      "deliveries",
      `${WEBHOOK}deliveries/`,
      {
        summary: "A webhook's delivery log",
        description:
          "Its delivery attempts, newest first: event, attempt number, HTTP status, latency, error. Kept 7 days."
      },
      WebhookAttempt
    ).setPath(WebhookPath)
  ) {}
