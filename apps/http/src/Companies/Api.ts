import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Customer } from "../Customers/Customer.js"
import { CustomerOrdering } from "../Customers/Customers.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { OrganizationId } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import * as Resource from "../Http/Resource.js"
import { CompanyOrdering } from "./Companies.js"
import { Company, CompanyCreate, CompanyUpdate } from "./Company.js"

const CompanyId = Schema.String.annotations({ jsonSchema: { type: "string", format: "uuid" } })

const CompanyPath = Schema.Struct({ organization_id: OrganizationId, company_id: CompanyId })

/** Companies as a directory resource: `/organizations/{organization_id}/companies/{company_id}/` (never deleted). */
export const CompanyResource = Resource.make({
  segment: "companies",
  idParam: "company_id",
  idSchema: CompanyId,
  item: Company,
  create: CompanyCreate,
  update: CompanyUpdate,
  filters: { search: Query.param("Keyword filter on name: case- and accent-insensitive; every word must match.") },
  ordering: CompanyOrdering,
  docs: {
    list: { summary: "List companies" },
    create: {
      summary: "Create a company",
      description:
        "Every role, members included. `name` is required and unique in the organization ignoring case; `default_assignee_id` must be a user of the organization; `email_domains` are unique in the organization. Answers 201 with a `Location` header."
    },
    get: { summary: "Read a company" },
    update: {
      summary: "Change a company",
      description: "`email_domains` replaces the whole list; `default_assignee_id: null` clears it."
    }
  }
})

/** `/organizations/{organization_id}/companies/`: groupings of customers. */
export class CompaniesApi extends Resource.group("companies", CompanyResource)
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
