import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import * as Resource from "../Http/Resource.js"
import { toWebhookAttempt, toWebhookWithSecret, WebhookResource } from "./Api.js"
import type { WebhookNotFound, WebhookUrlRefused } from "./WebhookErrors.js"
import { Webhooks } from "./Webhooks.js"

/** The wire error of a refused webhook write. */
const writeError = (error: WebhookNotFound | WebhookUrlRefused): NotFound | ValidationError =>
  error._tag === "WebhookNotFound" ? new NotFound() : ValidationError.field("url", error.reason)

/** Handlers of the `webhooks` group: the resource's five, the secret's rotation and the delivery log. */
export const WebhooksLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const access = yield* OrganizationAccess
    const resource = yield* Resource.handlers(WebhookResource, {
      filters: Resource.noFilters,
      writeError,
      repository: webhooks
    })

    // The webhook a request names, once the caller may manage the organization's webhooks.
    const managed = (path: { readonly organization_id: string; readonly webhook_id: string }) =>
      Effect.gen(function* () {
        const scope = yield* access.require(path.organization_id, "webhooks.manage")
        return { scope, webhook: yield* resource.existing(scope.organizationId, path.webhook_id) }
      })

    return Resource.handleAll(handlers, resource)
      .handle("rotateSecret", ({ path }) =>
        Effect.gen(function* () {
          const { scope, webhook } = yield* managed(path)
          const rotated = yield* webhooks
            .rotateSecret(scope.organizationId, webhook.id)
            .pipe(Effect.mapError(writeError))
          return toWebhookWithSecret(rotated)
        })
      )
      .handle("deliveries", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const { webhook } = yield* managed(path)
          const page = yield* Pagination.parse(urlParams)
          const result = yield* Pagination.paginate(request, page, webhooks.attempts(webhook.id))
          return { ...result, results: result.results.map(toWebhookAttempt) }
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Webhooks.Default]))
