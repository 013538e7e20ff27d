import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created, noContent } from "../Http/Responses.js"
import { Tag, TagCreate, TagUpdate } from "./Tag.js"
import type { TagNameTaken, TagNotFound } from "./TagErrors.js"
import { TagOrdering, Tags } from "./Tags.js"

/** The wire error of a refused tag write. */
export const tagWriteError = (error: TagNotFound | TagNameTaken): NotFound | ValidationError =>
  error._tag === "TagNotFound" ? new NotFound() : ValidationError.field("name", "A tag with this name already exists.")

/** Handlers of the `tags` group. */
export const TagsLive = HttpApiBuilder.group(Api, "tags", (handlers) =>
  Effect.gen(function* () {
    const tags = yield* Tags
    const access = yield* OrganizationAccess

    const existing = (organizationId: number, pk: string) =>
      Effect.gen(function* () {
        const id = parseIntegerId(pk)
        const tag = id === undefined ? undefined : yield* tags.findById(organizationId, id)
        if (tag === undefined) return yield* new NotFound()
        return tag
      })

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tags.read")
          const ordering = yield* TagOrdering.parse(urlParams.ordering)
          const page = yield* Pagination.parse(urlParams)
          return yield* Pagination.paginate(
            request,
            page,
            tags.list(scope.organizationId, { search: urlParams.search ?? "", ordering })
          )
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tags.write")
          const input = yield* RequestBody.decode(request, TagCreate)
          const tag = yield* tags.create(scope.organizationId, input).pipe(Effect.mapError(tagWriteError))
          return yield* created(request, Tag, tag, `/organizations/${scope.publicId}/tags/${tag.id}/`)
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tags.read")
          return yield* existing(scope.organizationId, path.pk)
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tags.write")
          const tag = yield* existing(scope.organizationId, path.pk)
          const changes = yield* RequestBody.decode(request, TagUpdate)
          return yield* tags.update(scope.organizationId, tag.id, changes).pipe(Effect.mapError(tagWriteError))
        })
      )
      .handleRaw("delete", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tags.write")
          const tag = yield* existing(scope.organizationId, path.pk)
          yield* tags.remove(scope.organizationId, tag.id).pipe(Effect.mapError(tagWriteError))
          return noContent
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Tags.Default]))
