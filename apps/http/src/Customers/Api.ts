import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { IntegerId, OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { Customer, CustomerCreate, CustomerUpdate } from "./Customer.js"
import { CustomerOrdering } from "./Customers.js"

const CustomerPath = Schema.Struct({ organization_id: OrganizationId, pk: IntegerId })

/** Query parameters of the customer list. */
export const CustomerListParams = Schema.Struct({
  search: Query.param(
    "Keyword filter on name and e-mail address: case- and accent-insensitive; every word must match."
  ),
  company_id: Query.param("Only members of this company (a UUID)."),
  is_spam: Query.param("Only spam (`true`) or only non-spam (`false`) customers."),
  ...CustomerOrdering.params,
  ...Pagination.params
})

/** `/organizations/{organization_id}/customers/`: requesters of an organization. */
export class CustomersApi extends HttpApiGroup.make("customers")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/customers/")
      .setPath(OrganizationPath)
      .setUrlParams(CustomerListParams)
      .addSuccess(Pagination.Envelope(Customer))
      .annotate(OpenApi.Summary, "List customers")
      .annotate(OpenApi.Description, "Every role may read. Default ordering: newest first (`-id`).")
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/customers/")
      .setPath(OrganizationPath)
      .setPayload(CustomerCreate)
      .addSuccess(Customer, { status: 201 })
      .annotate(OpenApi.Summary, "Create a customer")
      .annotate(
        OpenApi.Description,
        "Every role, members included. `email` is required and unique in the organization ignoring case; `name` (default empty), `is_spam`, `company_id` (a company of the same organization, or null) and `is_company_manager` (needs a company) are optional. Answers 201 with a `Location` header."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/customers/:pk/")
      .setPath(CustomerPath)
      .addSuccess(Customer)
      .annotate(OpenApi.Summary, "Read a customer")
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/customers/:pk/")
      .setPath(CustomerPath)
      .setPayload(CustomerUpdate)
      .addSuccess(Customer)
      .annotate(OpenApi.Summary, "Change a customer")
      .annotate(
        OpenApi.Description,
        "Every role, members included. Moving the customer to another company, or out of any (`company_id: null`), ends their being a manager unless `is_company_manager` says otherwise."
      )
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Customers") {}
