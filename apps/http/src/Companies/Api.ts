import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Customer } from "../Customers/Customer.js"
import { CustomerOrdering } from "../Customers/Customers.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { CompanyOrdering } from "./Companies.js"
import { Company, CompanyCreate, CompanyUpdate } from "./Company.js"

const CompanyPath = Schema.Struct({
  organization_id: OrganizationId,
  company_id: Schema.String.annotations({ jsonSchema: { type: "string", format: "uuid" } })
})

/** `/organizations/{organization_id}/companies/`: groupings of customers. */
export class CompaniesApi extends HttpApiGroup.make("companies")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/companies/")
      .setPath(OrganizationPath)
      .setUrlParams(
        Schema.Struct({
          search: Query.param("Keyword filter on name: case- and accent-insensitive; every word must match."),
          ...CompanyOrdering.params,
          ...Pagination.params
        })
      )
      .addSuccess(Pagination.Envelope(Company))
      .annotate(OpenApi.Summary, "List companies")
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/companies/")
      .setPath(OrganizationPath)
      .setPayload(CompanyCreate)
      .addSuccess(Company, { status: 201 })
      .annotate(OpenApi.Summary, "Create a company")
      .annotate(
        OpenApi.Description,
        "Every role, members included. `name` is required and unique in the organization ignoring case; `default_assignee_id` must be a user of the organization; `email_domains` are unique in the organization. Answers 201 with a `Location` header."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/companies/:company_id/")
      .setPath(CompanyPath)
      .addSuccess(Company)
      .annotate(OpenApi.Summary, "Read a company")
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/companies/:company_id/")
      .setPath(CompanyPath)
      .setPayload(CompanyUpdate)
      .addSuccess(Company)
      .annotate(OpenApi.Summary, "Change a company")
      .annotate(OpenApi.Description, "`email_domains` replaces the whole list; `default_assignee_id: null` clears it.")
  )
  .add(
    HttpApiEndpoint.get("suggestedMembers", "/organizations/:organization_id/companies/:company_id/suggested-members/")
      .setPath(CompanyPath)
      .setUrlParams(Schema.Struct({ ...CustomerOrdering.params, ...Pagination.params }))
      .addSuccess(Pagination.Envelope(Customer))
      .annotate(OpenApi.Summary, "Suggested members of a company")
      .annotate(
        OpenApi.Description,
        "Customers without a company whose e-mail address is at one of the company's `email_domains` (compared ignoring case). Add one with `PATCH /customers/{pk}/` and `company_id`."
      )
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Companies") {}
