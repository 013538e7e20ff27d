import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { customerWire } from "../Customers/Api.js"
import { CustomerOrdering, Customers } from "../Customers/Customers.js"
import { NotFound, ValidationError, writeRefusals } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import * as Resource from "../Http/Resource.js"
import { CompanyResource } from "./Api.js"
import { Companies } from "./Companies.js"
import type { AssigneeNotMember, CompanyNameTaken, CompanyNotFound, EmailDomainsTaken } from "./CompanyErrors.js"

/** The wire error of a refused company write. */
export const companyWriteError = writeRefusals<
  CompanyNotFound | CompanyNameTaken | EmailDomainsTaken | AssigneeNotMember
>()({
  CompanyNotFound: () => new NotFound(),
  CompanyNameTaken: () => ValidationError.field("name", "A company with this name already exists."),
  EmailDomainsTaken: ({ taken }) =>
    new ValidationError({
      errors: {
        email_domains: taken.map(({ domain, companyName }) => `The domain ${domain} already belongs to ${companyName}.`)
      }
    }),
  AssigneeNotMember: ({ userId }) =>
    ValidationError.field(
      "default_assignee_id",
      `Invalid pk "${userId}" - the user is not a member of this organization.`
    )
})

/** Handlers of the `companies` group. */
export const CompaniesLive = HttpApiBuilder.group(Api, "companies", (handlers) =>
  Effect.gen(function* () {
    const customers = yield* Customers
    const resource = yield* Resource.handlers(CompanyResource, {
      filters: Resource.searchFilter,
      writeError: companyWriteError,
      repository: Companies
    })

    return Resource.handleAll(handlers, resource).handle("suggestedMembers", ({ path, request, urlParams }) =>
      Effect.gen(function* () {
        const { scope, item: company } = yield* resource.scoped(path, "read")
        const ordering = yield* CustomerOrdering.parse(urlParams.ordering)
        const page = yield* Pagination.parse(urlParams)
        const result = yield* Pagination.paginate(
          request,
          page,
          customers.list(scope.organizationId, { suggestedFor: company.id, ordering })
        )
        return { ...result, results: result.results.map(customerWire) }
      })
    )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Companies.Default, Customers.Default]))
