import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created, noContent } from "../Http/Responses.js"
import { WebhookCreate, WebhookUpdate, WebhookWithSecret } from "./Webhook.js"
import type { WebhookNotFound, WebhookUrlRefused } from "./WebhookErrors.js"
import { Webhooks } from "./Webhooks.js"

/** The wire error of a refused webhook write. */
const writeError = (error: WebhookNotFound | WebhookUrlRefused): NotFound | ValidationError =>
  error._tag === "WebhookNotFound" ? new NotFound() : ValidationError.field("url", error.reason)

/** Handlers of the `webhooks` group. */
export const WebhooksLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const access = yield* OrganizationAccess

    const existing = (organizationId: number, segment: string) =>
      Effect.gen(function* () {
        const id = parseIntegerId(segment)
        const webhook = id === undefined ? undefined : yield* webhooks.findById(organizationId, id)
        if (webhook === undefined) return yield* new NotFound()
        return webhook
      })

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "webhooks.manage")
          const page = yield* Pagination.parse(urlParams)
          return yield* Pagination.paginate(request, page, webhooks.list(scope.organizationId))
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "webhooks.manage")
          const input = yield* RequestBody.decode(request, WebhookCreate)
          const webhook = yield* webhooks.create(scope.organizationId, input).pipe(Effect.mapError(writeError))
          return yield* created(
            request,
            WebhookWithSecret,
            webhook,
            `/organizations/${scope.publicId}/webhooks/${webhook.id}/`
          )
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "webhooks.manage")
          return yield* existing(scope.organizationId, path.webhook_id)
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "webhooks.manage")
          const webhook = yield* existing(scope.organizationId, path.webhook_id)
          const changes = yield* RequestBody.decode(request, WebhookUpdate)
          return yield* webhooks.update(scope.organizationId, webhook.id, changes).pipe(Effect.mapError(writeError))
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "webhooks.manage")
          const webhook = yield* existing(scope.organizationId, path.webhook_id)
          yield* webhooks.remove(scope.organizationId, webhook.id).pipe(Effect.mapError(writeError))
          return noContent
        })
      )
      .handle("rotateSecret", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "webhooks.manage")
          const webhook = yield* existing(scope.organizationId, path.webhook_id)
          return yield* webhooks.rotateSecret(scope.organizationId, webhook.id).pipe(Effect.mapError(writeError))
        })
      )
      .handle("deliveries", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "webhooks.manage")
          const webhook = yield* existing(scope.organizationId, path.webhook_id)
          const page = yield* Pagination.parse(urlParams)
          return yield* Pagination.paginate(request, page, webhooks.attempts(webhook.id))
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Webhooks.Default]))
