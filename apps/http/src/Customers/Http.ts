import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import type { CompanyNotFound } from "../Companies/CompanyErrors.js"
import { parseUuid } from "../Companies/CompanyId.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import { parseBooleanText } from "../Http/Fields.js"
import * as Pagination from "../Http/Pagination.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created } from "../Http/Responses.js"
import { Customer, CustomerCreate, CustomerUpdate } from "./Customer.js"
import type { CustomerEmailTaken, CustomerNotFound, ManagerWithoutCompany } from "./CustomerErrors.js"
import { CustomerOrdering, Customers } from "./Customers.js"

/** The wire error of a refused customer write. */
export const customerWriteError = (
  error: CustomerNotFound | CustomerEmailTaken | CompanyNotFound | ManagerWithoutCompany
): NotFound | ValidationError => {
  switch (error._tag) {
    case "CustomerNotFound":
      return new NotFound()
    case "CustomerEmailTaken":
      return ValidationError.field("email", "A customer with this email address already exists.")
    case "CompanyNotFound":
      return ValidationError.field("company_id", `Invalid pk "${error.id}" - object does not exist.`)
    case "ManagerWithoutCompany":
      return ValidationError.field(
        "is_company_manager",
        "A customer without a company cannot be its manager. Set company_id as well."
      )
  }
}

/** `company_id` and `is_spam` filters of a list, or a field error naming the bad one. */
export const parseCustomerFilters = (params: {
  readonly company_id?: string | undefined
  readonly is_spam?: string | undefined
}) =>
  Effect.gen(function* () {
    let companyId: string | undefined
    if (params.company_id !== undefined && params.company_id !== "") {
      companyId = parseUuid(params.company_id)
      if (companyId === undefined) return yield* ValidationError.field("company_id", "Must be a valid UUID.")
    }
    let isSpam: boolean | undefined
    if (params.is_spam !== undefined && params.is_spam !== "") {
      isSpam = parseBooleanText(params.is_spam)
      if (isSpam === undefined)
        return yield* ValidationError.field("is_spam", "Must be a valid boolean (true/false, 1/0 or yes/no).")
    }
    return { companyId, isSpam }
  })

/** Handlers of the `customers` group. */
export const CustomersLive = HttpApiBuilder.group(Api, "customers", (handlers) =>
  Effect.gen(function* () {
    const customers = yield* Customers
    const access = yield* OrganizationAccess

    const customerId = (pk: string) => {
      const id = parseIntegerId(pk)
      return id === undefined ? Effect.fail(new NotFound()) : Effect.succeed(id)
    }

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "customers.read")
          const filters = yield* parseCustomerFilters(urlParams)
          const ordering = yield* CustomerOrdering.parse(urlParams.ordering)
          const page = yield* Pagination.parse(urlParams)
          return yield* Pagination.paginate(
            request,
            page,
            customers.list(scope.organizationId, {
              search: urlParams.search ?? "",
              ...(filters.companyId === undefined ? {} : { companyId: filters.companyId }),
              ...(filters.isSpam === undefined ? {} : { isSpam: filters.isSpam }),
              ordering
            })
          )
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "customers.write")
          const input = yield* RequestBody.decode(request, CustomerCreate)
          const customer = yield* customers
            .create(scope.organizationId, input)
            .pipe(Effect.mapError(customerWriteError))
          return yield* created(
            request,
            Customer,
            customer,
            `/organizations/${scope.publicId}/customers/${customer.id}/`
          )
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "customers.read")
          const customer = yield* customers.findById(scope.organizationId, yield* customerId(path.pk))
          if (customer === undefined) return yield* new NotFound()
          return customer
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "customers.write")
          const id = yield* customerId(path.pk)
          if ((yield* customers.findById(scope.organizationId, id)) === undefined) return yield* new NotFound()
          const changes = yield* RequestBody.decode(request, CustomerUpdate)
          return yield* customers.update(scope.organizationId, id, changes).pipe(Effect.mapError(customerWriteError))
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Customers.Default]))
