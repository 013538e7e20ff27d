import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Auth/CurrentCaller.js"
import { OrganizationAccess, type OrganizationScope } from "../Auth/OrganizationAccess.js"
import { PermissionDenied, ValidationError } from "../Http/Errors.js"
import * as Resource from "../Http/Resource.js"
import { PresetFilterResource } from "./Api.js"
import type { Criteria } from "./Criteria.js"
import { defaultVisibility, type Refusal, refuseChange, refuseCreate } from "./Permissions.js"
import type { PresetFilterCreate, PresetFilterUpdate } from "./PresetFilter.js"
import { PresetFilters, type StoredPresetFilter } from "./PresetFilters.js"

const refused = (refusal: Refusal | undefined): Effect.Effect<void, PermissionDenied | ValidationError> =>
  refusal === undefined
    ? Effect.void
    : refusal._tag === "Forbidden"
      ? Effect.fail(new PermissionDenied({ detail: refusal.detail }))
      : Effect.fail(ValidationError.field("visibility", refusal.message))

const ownerOf = (filter: StoredPresetFilter) => ({
  visibility: filter.visibility,
  createdById: filter.createdBy?.id ?? null
})

/** Handlers of the `presetFilters` group: the resource's five, scoped to what the caller sees and may change. */
export const PresetFiltersLive = HttpApiBuilder.group(Api, "presetFilters", (handlers) =>
  Effect.gen(function* () {
    const filters = yield* PresetFilters

    // Criteria name inboxes and members like any other reference: unknown or another organization's → 400.
    const checkReferences = (scope: OrganizationScope, criteria: Criteria | undefined) =>
      criteria === undefined
        ? Effect.void
        : Effect.flatMap(filters.unknownReferences(scope.organizationId, criteria), (errors) =>
            Object.keys(errors).length === 0
              ? Effect.void
              : Effect.fail(new ValidationError({ errors: { criteria: errors } }))
          )

    const resource = yield* Resource.handlers(PresetFilterResource, {
      filters: () => Effect.map(CurrentCaller, (viewer) => ({ viewer })),
      writeError: (error: never) => error,
      checks: {
        create: (scope, body) =>
          Effect.flatMap(CurrentCaller, (caller) =>
            refused(refuseCreate(caller, scope.role, body.visibility ?? defaultVisibility(caller)))
          ).pipe(Effect.zipRight(checkReferences(scope, body.criteria))),
        update: (scope, filter, body) =>
          Effect.flatMap(CurrentCaller, (caller) =>
            refused(refuseChange(caller, scope.role, ownerOf(filter), body.visibility))
          ).pipe(Effect.zipRight(checkReferences(scope, body.criteria))),
        delete: (scope, filter) =>
          Effect.flatMap(CurrentCaller, (caller) => refused(refuseChange(caller, scope.role, ownerOf(filter))))
      },
      repository: {
        // Filters another caller may not see do not exist for this one.
        findById: (organizationId, id) =>
          Effect.flatMap(CurrentCaller, (viewer) => filters.findVisible(organizationId, viewer, id)).pipe(
            Effect.catchTag("PresetFilterNotFound", () => Effect.succeed(undefined))
          ),
        list: (organizationId, { ordering, viewer }) => filters.list({ organizationId, viewer, ordering }),
        create: (organizationId, body: PresetFilterCreate) =>
          Effect.flatMap(CurrentCaller, (caller) =>
            filters.create(organizationId, {
              name: body.name,
              criteria: body.criteria,
              visibility: body.visibility ?? defaultVisibility(caller),
              position: body.position,
              displayCount: body.display_count,
              groupByPriority: body.group_by_priority,
              createdById: caller._tag === "Person" ? caller.userId : null
            })
          ),
        update: (organizationId, id, body: PresetFilterUpdate) =>
          filters.update(organizationId, id, {
            name: body.name,
            criteria: body.criteria,
            visibility: body.visibility,
            position: body.position,
            displayCount: body.display_count,
            groupByPriority: body.group_by_priority
          }),
        remove: filters.remove
      }
    })
    return Resource.handleAll(handlers, resource)
  })
).pipe(Layer.provide([OrganizationAccess.Default, PresetFilters.Default]))
