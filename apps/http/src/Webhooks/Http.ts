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
    const resource = yield* Resource.handlers(WebhookResource, {
      filters: Resource.noFilters,
      writeError,
      repository: webhooks
    })

    return Resource.handleAll(handlers, resource)
      .handle("rotateSecret", ({ path }) =>
        Effect.gen(function* () {
          const { scope, item: webhook } = yield* resource.scoped(path, "write")
          const rotated = yield* webhooks
            .rotateSecret(scope.organizationId, webhook.id)
            .pipe(Effect.mapError(writeError))
          return toWebhookWithSecret(rotated)
        })
      )
      .handle("deliveries", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const { item: webhook } = yield* resource.scoped(path, "read")
          const page = yield* Pagination.parse(urlParams)
          const result = yield* Pagination.paginate(request, page, webhooks.attempts(webhook.id))
          return { ...result, results: result.results.map(toWebhookAttempt) }
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Webhooks.Default]))
