import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import type { CompanyNotFound } from "../Companies/CompanyErrors.js"
import { parseUuid } from "../Companies/CompanyId.js"
import { NotFound, ValidationError, writeRefusals } from "../Http/Errors.js"
import { parseBooleanText } from "../Http/Fields.js"
import * as Resource from "../Http/Resource.js"
import { CustomerResource } from "./Api.js"
import type { CustomerEmailTaken, CustomerNotFound, ManagerWithoutCompany } from "./CustomerErrors.js"
import { Customers } from "./Customers.js"

/** The wire error of a refused customer write. */
export const customerWriteError = writeRefusals<
  CustomerNotFound | CustomerEmailTaken | CompanyNotFound | ManagerWithoutCompany
>()({
  CustomerNotFound: () => new NotFound(),
  CustomerEmailTaken: () => ValidationError.field("email", "A customer with this email address already exists."),
  CompanyNotFound: ({ id }) => ValidationError.field("company_id", `Invalid pk "${id}" - object does not exist.`),
  ManagerWithoutCompany: () =>
    ValidationError.field(
      "is_company_manager",
      "A customer without a company cannot be its manager. Set company_id as well."
    )
})

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
  Resource.serve(
    handlers,
    Resource.handlers(CustomerResource, {
      filters: (urlParams) =>
        Effect.map(parseCustomerFilters(urlParams), (filters) => ({
          search: urlParams.search ?? "",
          ...(filters.companyId === undefined ? {} : { companyId: filters.companyId }),
          ...(filters.isSpam === undefined ? {} : { isSpam: filters.isSpam })
        })),
      writeError: customerWriteError,
      repository: Customers
    })
  )
).pipe(Layer.provide([OrganizationAccess.Default, Customers.Default]))
