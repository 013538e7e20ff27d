import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created } from "../Http/Responses.js"
import { Inbox, InboxCreate, InboxUpdate } from "./Inbox.js"
import type { DefaultInboxRequired, EmailPrefixTaken, InboxNotFound } from "./InboxErrors.js"
import { Inboxes, InboxOrdering } from "./Inboxes.js"

/** The wire error of a refused inbox write. */
export const inboxWriteError = (
  error: InboxNotFound | EmailPrefixTaken | DefaultInboxRequired
): NotFound | ValidationError => {
  switch (error._tag) {
    case "InboxNotFound":
      return new NotFound()
    case "EmailPrefixTaken":
      return ValidationError.field("email_prefix", "An inbox with this email prefix already exists.")
    case "DefaultInboxRequired":
      return ValidationError.field(
        "is_default",
        "An organization always has a default inbox: make another inbox the default instead."
      )
  }
}

/** Handlers of the `inboxes` group. */
export const InboxesLive = HttpApiBuilder.group(Api, "inboxes", (handlers) =>
  Effect.gen(function* () {
    const inboxes = yield* Inboxes
    const access = yield* OrganizationAccess

    const existing = (organizationId: number, pk: string) =>
      Effect.gen(function* () {
        const id = parseIntegerId(pk)
        const inbox = id === undefined ? undefined : yield* inboxes.findById(organizationId, id)
        if (inbox === undefined) return yield* new NotFound()
        return inbox
      })

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "inboxes.read")
          const ordering = yield* InboxOrdering.parse(urlParams.ordering)
          const page = yield* Pagination.parse(urlParams)
          return yield* Pagination.paginate(request, page, inboxes.list(scope.organizationId, ordering))
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "inboxes.write")
          const input = yield* RequestBody.decode(request, InboxCreate)
          const inbox = yield* inboxes.create(scope.organizationId, input).pipe(Effect.mapError(inboxWriteError))
          return yield* created(request, Inbox, inbox, `/organizations/${scope.publicId}/inboxes/${inbox.id}/`)
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "inboxes.read")
          return yield* existing(scope.organizationId, path.pk)
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "inboxes.write")
          const inbox = yield* existing(scope.organizationId, path.pk)
          const changes = yield* RequestBody.decode(request, InboxUpdate)
          return yield* inboxes.update(scope.organizationId, inbox.id, changes).pipe(Effect.mapError(inboxWriteError))
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Inboxes.Default]))
