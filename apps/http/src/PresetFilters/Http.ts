import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Auth/CurrentCaller.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, PermissionDenied, ValidationError } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created, noContent } from "../Http/Responses.js"
import type { Criteria } from "./Criteria.js"
import { defaultVisibility, FILTER_WRITES, type Refusal, refuseChange, refuseCreate } from "./Permissions.js"
import { PresetFilter, PresetFilterCreate, PresetFilterUpdate } from "./PresetFilter.js"
import { PresetFilterOrdering, PresetFilters, type StoredPresetFilter, toPresetFilter } from "./PresetFilters.js"

const refused = (refusal: Refusal) =>
  refusal._tag === "Forbidden"
    ? new PermissionDenied({ detail: refusal.detail })
    : ValidationError.field("visibility", refusal.message)

// Criteria name inboxes and members like any other reference: unknown or another organization's → 400.
const checkReferences = (filters: PresetFilters, organizationId: number, criteria: Criteria | undefined) =>
  criteria === undefined
    ? Effect.void
    : Effect.flatMap(filters.unknownReferences(organizationId, criteria), (errors) =>
        Object.keys(errors).length === 0
          ? Effect.void
          : Effect.fail(new ValidationError({ errors: { criteria: errors } }))
      )

const ownerOf = (filter: StoredPresetFilter) => ({
  visibility: filter.visibility,
  createdById: filter.createdBy?.id ?? null
})

/** Handlers of the `presetFilters` group. */
export const PresetFiltersLive = HttpApiBuilder.group(Api, "presetFilters", (handlers) =>
  Effect.gen(function* () {
    const filters = yield* PresetFilters
    const access = yield* OrganizationAccess

    const visible = (organizationId: number, id: string) =>
      Effect.gen(function* () {
        const caller = yield* CurrentCaller
        return yield* filters
          .findVisible(organizationId, caller, id)
          .pipe(Effect.catchTag("PresetFilterNotFound", () => Effect.fail(new NotFound())))
      })

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "preset_filters.read")
          const caller = yield* CurrentCaller
          const page = yield* Pagination.parse(urlParams)
          const ordering = yield* PresetFilterOrdering.parse(urlParams.ordering)
          const result = yield* Pagination.paginate(
            request,
            page,
            filters.list({ organizationId: scope.organizationId, viewer: caller, ordering })
          )
          return { ...result, results: result.results.map(toPresetFilter) }
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, FILTER_WRITES)
          const caller = yield* CurrentCaller
          const body = yield* RequestBody.decode(request, PresetFilterCreate)
          const visibility = body.visibility ?? defaultVisibility(caller)
          const refusal = refuseCreate(caller, scope.role, visibility)
          if (refusal !== undefined) return yield* refused(refusal)
          yield* checkReferences(filters, scope.organizationId, body.criteria)
          const filter = yield* filters.create(scope.organizationId, {
            name: body.name,
            criteria: body.criteria,
            visibility,
            position: body.position,
            displayCount: body.display_count,
            groupByPriority: body.group_by_priority,
            createdById: caller._tag === "Person" ? caller.userId : null
          })
          return yield* created(
            request,
            PresetFilter,
            toPresetFilter(filter),
            `/organizations/${scope.publicId}/custom-preset-filters/${filter.id}/`
          )
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "preset_filters.read")
          return toPresetFilter(yield* visible(scope.organizationId, path.filter_id))
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, FILTER_WRITES)
          const caller = yield* CurrentCaller
          const filter = yield* visible(scope.organizationId, path.filter_id)
          const body = yield* RequestBody.decode(request, PresetFilterUpdate)
          const refusal = refuseChange(caller, scope.role, ownerOf(filter), body.visibility)
          if (refusal !== undefined) return yield* refused(refusal)
          yield* checkReferences(filters, scope.organizationId, body.criteria)
          const updated = yield* filters.update(scope.organizationId, filter.id, {
            name: body.name,
            criteria: body.criteria,
            visibility: body.visibility,
            position: body.position,
            displayCount: body.display_count,
            groupByPriority: body.group_by_priority
          })
          return toPresetFilter(updated)
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, FILTER_WRITES)
          const caller = yield* CurrentCaller
          const filter = yield* visible(scope.organizationId, path.filter_id)
          const refusal = refuseChange(caller, scope.role, ownerOf(filter))
          if (refusal !== undefined) return yield* refused(refusal)
          yield* filters.remove(scope.organizationId, filter.id)
          return noContent
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, PresetFilters.Default]))
