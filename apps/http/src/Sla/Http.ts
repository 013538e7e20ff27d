import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created, noContent } from "../Http/Responses.js"
import { SlaPolicies, SlaPolicyOrdering } from "./SlaPolicies.js"
import { SlaPolicy, SlaPolicyCreate, SlaPolicyUpdate } from "./SlaPolicy.js"

/** Handlers of the `slaPolicies` group. */
export const SlaPoliciesLive = HttpApiBuilder.group(Api, "slaPolicies", (handlers) =>
  Effect.gen(function* () {
    const policies = yield* SlaPolicies
    const access = yield* OrganizationAccess

    const existing = (organizationId: number, pk: string) =>
      Effect.gen(function* () {
        const id = parseIntegerId(pk)
        const policy = id === undefined ? undefined : yield* policies.findById(organizationId, id)
        if (policy === undefined) return yield* new NotFound()
        return policy
      })

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "sla_policies.read")
          const ordering = yield* SlaPolicyOrdering.parse(urlParams.ordering)
          const page = yield* Pagination.parse(urlParams)
          return yield* Pagination.paginate(request, page, policies.list(scope.organizationId, ordering))
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "sla_policies.write")
          const input = yield* RequestBody.decode(request, SlaPolicyCreate)
          const policy = yield* policies.create(scope.organizationId, input)
          return yield* created(
            request,
            SlaPolicy,
            policy,
            `/organizations/${scope.publicId}/sla-policies/${policy.id}/`
          )
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "sla_policies.read")
          return yield* existing(scope.organizationId, path.pk)
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "sla_policies.write")
          const policy = yield* existing(scope.organizationId, path.pk)
          const changes = yield* RequestBody.decode(request, SlaPolicyUpdate)
          return yield* policies
            .update(scope.organizationId, policy.id, changes)
            .pipe(Effect.mapError(() => new NotFound()))
        })
      )
      .handleRaw("delete", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "sla_policies.write")
          const policy = yield* existing(scope.organizationId, path.pk)
          yield* policies.remove(scope.organizationId, policy.id).pipe(Effect.mapError(() => new NotFound()))
          return noContent
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, SlaPolicies.Default]))
