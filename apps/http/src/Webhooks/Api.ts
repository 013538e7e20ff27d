import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { IntegerId, OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import { Webhook, WebhookAttempt, WebhookCreate, WebhookUpdate, WebhookWithSecret } from "./Webhook.js"

const WebhookPath = Schema.Struct({ organization_id: OrganizationId, webhook_id: IntegerId })

const signing =
  'Each delivery is a `POST` of one event as JSON, signed in `X-Helpdesk-Signature` (`t=<unix seconds>,v1=<HMAC-SHA256 hex of "t.body">`) with the webhook\'s secret, its event id in `X-Helpdesk-Event-Id`; see docs/webhooks.md.'

/** `/organizations/{organization_id}/webhooks/`: signed deliveries of the organization's ticket events. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/webhooks/")
      .setPath(OrganizationPath)
      .setUrlParams(Schema.Struct({ ...Pagination.params }))
      .addSuccess(Pagination.Envelope(Webhook))
      .annotate(OpenApi.Summary, "List webhooks")
      .annotate(OpenApi.Description, "Owners, admins and integration tokens. Oldest first.")
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/webhooks/")
      .setPath(OrganizationPath)
      .setPayload(WebhookCreate)
      .addSuccess(WebhookWithSecret, { status: 201 })
      .annotate(OpenApi.Summary, "Create a webhook")
      .annotate(
        OpenApi.Description,
        `Owners, admins and integration tokens. \`url\`: \`http\` or \`https\`, at most 2,000 characters, not a loopback, private or link-local address (checked again at every delivery on the address connected to). \`event_types\`: event types of docs/events.md, empty or omitted for all. Answers 201 with the generated \`secret\`, shown only now. Events committed from about now on are delivered. ${signing}`
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/webhooks/:webhook_id/")
      .setPath(WebhookPath)
      .addSuccess(Webhook)
      .annotate(OpenApi.Summary, "Read a webhook")
      .annotate(OpenApi.Description, "`disabled_reason` says why the service turned `active` off.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/webhooks/:webhook_id/")
      .setPath(WebhookPath)
      .setPayload(WebhookUpdate)
      .addSuccess(Webhook)
      .annotate(OpenApi.Summary, "Change a webhook")
      .annotate(
        OpenApi.Description,
        "`active: false` gives up its pending deliveries; `active: true` clears `disabled_reason` and delivers the events committed from then on (not those in between)."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/organizations/:organization_id/webhooks/:webhook_id/")
      .setPath(WebhookPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Delete a webhook")
      .annotate(OpenApi.Description, "Answers 204. Nothing more is sent to it; its delivery log goes with it.")
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", "/organizations/:organization_id/webhooks/:webhook_id/rotate-secret/")
      .setPath(WebhookPath)
      .addSuccess(WebhookWithSecret)
      .annotate(OpenApi.Summary, "Rotate a webhook's secret")
      .annotate(
        OpenApi.Description,
        "Answers the new `secret`. For 24 hours deliveries carry two `v1` signatures, with the new and the previous secret."
      )
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/organizations/:organization_id/webhooks/:webhook_id/deliveries/")
      .setPath(WebhookPath)
      .setUrlParams(Schema.Struct({ ...Pagination.params }))
      .addSuccess(Pagination.Envelope(WebhookAttempt))
      .annotate(OpenApi.Summary, "A webhook's delivery log")
      .annotate(
        OpenApi.Description,
        "Its delivery attempts, newest first: event, attempt number, HTTP status, latency, error. Kept 7 days."
      )
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Webhooks") {}
