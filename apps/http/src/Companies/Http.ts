import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { CustomerOrdering, Customers } from "../Customers/Customers.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created } from "../Http/Responses.js"
import { Companies, CompanyOrdering } from "./Companies.js"
import { Company, CompanyCreate, CompanyUpdate } from "./Company.js"
import type { AssigneeNotMember, CompanyNameTaken, CompanyNotFound, EmailDomainsTaken } from "./CompanyErrors.js"
import { parseUuid } from "./CompanyId.js"

/** The wire error of a refused company write. */
export const companyWriteError = (
  error: CompanyNotFound | CompanyNameTaken | EmailDomainsTaken | AssigneeNotMember
): NotFound | ValidationError => {
  switch (error._tag) {
    case "CompanyNotFound":
      return new NotFound()
    case "CompanyNameTaken":
      return ValidationError.field("name", "A company with this name already exists.")
    case "EmailDomainsTaken":
      return new ValidationError({
        errors: {
          email_domains: error.taken.map(
            ({ domain, companyName }) => `The domain ${domain} already belongs to ${companyName}.`
          )
        }
      })
    case "AssigneeNotMember":
      return ValidationError.field(
        "default_assignee_id",
        `Invalid pk "${error.userId}" - the user is not a member of this organization.`
      )
  }
}

/** Handlers of the `companies` group. */
export const CompaniesLive = HttpApiBuilder.group(Api, "companies", (handlers) =>
  Effect.gen(function* () {
    const companies = yield* Companies
    const customers = yield* Customers
    const access = yield* OrganizationAccess

    // A malformed id names no company: 404, as an unknown one.
    const existing = (organizationId: number, segment: string) =>
      Effect.gen(function* () {
        const id = parseUuid(segment)
        const company = id === undefined ? undefined : yield* companies.findById(organizationId, id)
        if (company === undefined) return yield* new NotFound()
        return company
      })

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "companies.read")
          const ordering = yield* CompanyOrdering.parse(urlParams.ordering)
          const page = yield* Pagination.parse(urlParams)
          return yield* Pagination.paginate(
            request,
            page,
            companies.list(scope.organizationId, { search: urlParams.search ?? "", ordering })
          )
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "companies.write")
          const input = yield* RequestBody.decode(request, CompanyCreate)
          const company = yield* companies.create(scope.organizationId, input).pipe(Effect.mapError(companyWriteError))
          return yield* created(request, Company, company, `/organizations/${scope.publicId}/companies/${company.id}/`)
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "companies.read")
          return yield* existing(scope.organizationId, path.company_id)
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "companies.write")
          const company = yield* existing(scope.organizationId, path.company_id)
          const changes = yield* RequestBody.decode(request, CompanyUpdate)
          return yield* companies
            .update(scope.organizationId, company.id, changes)
            .pipe(Effect.mapError(companyWriteError))
        })
      )
      .handle("suggestedMembers", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "companies.read")
          const company = yield* existing(scope.organizationId, path.company_id)
          const ordering = yield* CustomerOrdering.parse(urlParams.ordering)
          const page = yield* Pagination.parse(urlParams)
          return yield* Pagination.paginate(
            request,
            page,
            customers.list(scope.organizationId, { suggestedFor: company.id, ordering })
          )
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Companies.Default, Customers.Default]))
