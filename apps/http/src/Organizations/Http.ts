import { HttpApiBuilder } from "@effect/platform"
import { DateTime, Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Auth/CurrentCaller.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { PermissionDenied } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created } from "../Http/Responses.js"
import { OrganizationWire, organizationWire } from "./Api.js"
import { type Organization, OrganizationCreate, OrganizationUpdate } from "./Organization.js"
import { OrganizationOrdering, Organizations } from "./Organizations.js"

// The wire form reads the clock: a trial's remaining days are counted from now.
const toWire = (organization: Organization) =>
  Effect.map(DateTime.now, (now) => organizationWire(organization, DateTime.toDate(now)))

/** Handlers of the `organizations` group. */
export const OrganizationsLive = HttpApiBuilder.group(Api, "organizations", (handlers) =>
  Effect.gen(function* () {
    const organizations = yield* Organizations
    const access = yield* OrganizationAccess
    return handlers
      .handle("list", ({ request, urlParams }) =>
        Effect.gen(function* () {
          const caller = yield* CurrentCaller
          const page = yield* Pagination.parse(urlParams)
          const ordering = yield* OrganizationOrdering.parse(urlParams.ordering)
          const result = yield* Pagination.paginate(
            request,
            page,
            organizations.list({ caller, search: urlParams.search ?? "", ordering })
          )
          // One instant for the page, so every item counts its trial's remaining days alike.
          const now = DateTime.toDate(yield* DateTime.now)
          return { ...result, results: result.results.map((organization) => organizationWire(organization, now)) }
        })
      )
      .handleRaw("create", ({ request }) =>
        Effect.gen(function* () {
          const caller = yield* CurrentCaller
          if (caller._tag !== "Person")
            return yield* new PermissionDenied({ detail: "Integration tokens cannot create organizations." })
          const { name, ...settings } = yield* RequestBody.decode(request, OrganizationCreate)
          const organization = yield* organizations.create({ name, createdBy: caller.userId, settings })
          const location = `/organizations/${organization.publicId}/`
          return yield* created(request, OrganizationWire, yield* toWire(organization), location)
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "organization.read")
          return yield* toWire(yield* organizations.get(scope.organizationId))
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "organization.settings")
          const changes = yield* RequestBody.decode(request, OrganizationUpdate)
          return yield* toWire(yield* organizations.update(scope.organizationId, changes))
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Organizations.Default]))
