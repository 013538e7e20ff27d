import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CustomerWire } from "../Customers/Api.js"
import { CustomerOrdering } from "../Customers/Customers.js"
import * as Pagination from "../Http/Pagination.js"
import { OrganizationPublicId, UuidId, uuidIdParam } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { Timestamp, UserRef, userRefWire } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import { CompanyOrdering } from "./Companies.js"
import { type Company, CompanyCreate, CompanyUpdate } from "./Company.js"
import { parseCompanyId } from "./CompanyId.js"

/** A company as the API shows it. */
export const CompanyWire = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  default_assignee: Schema.NullOr(UserRef).annotations({
    description:
      "The member new tickets of this company's customers are meant for; null when unset or no longer a member."
  }),
  email_domains: Schema.Array(Schema.String).annotations({
    description:
      "Lower-case domains, sorted; unique in the organization. Customers with an address at one of them and no company are suggested as members."
  }),
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "Company" })

/** A company on the wire. */
export const companyWire = (company: Company): typeof CompanyWire.Type => ({
  id: company.id,
  name: company.name,
  default_assignee: userRefWire(company.defaultAssignee),
  email_domains: company.emailDomains,
  created_at: company.createdAt,
  updated_at: company.updatedAt
})

const CompanyPath = Schema.Struct({ organization_id: OrganizationPublicId, company_id: UuidId })

/** Companies as a directory resource: `/organizations/{organization_id}/companies/{company_id}/` (never deleted). */
export const CompanyResource = Resource.make({
  path: { segment: "companies", id: uuidIdParam("company_id", parseCompanyId) },
  noun: "a company",
  wire: { item: CompanyWire, toWire: companyWire, create: CompanyCreate, update: CompanyUpdate },
  filters: Query.search("name: case- and accent-insensitive"),
  ordering: CompanyOrdering,
  docs: {
    create:
      "Every role, members included. `name` is required and unique in the organization ignoring case; `default_assignee_id` must be a user of the organization; `email_domains` are unique in the organization. Answers 201 with a `Location` header.",
    update: "`email_domains` replaces the whole list; `default_assignee_id: null` clears it."
  }
})

/** `/organizations/{organization_id}/companies/`: groupings of customers. */
export class CompaniesApi extends Resource.group("companies", Resource.endpoints(CompanyResource), "Companies", {
  delete: false
}).add(
  HttpApiEndpoint.get("suggestedMembers", "/organizations/:organization_id/companies/:company_id/suggested-members/")
    .setPath(CompanyPath)
    .setUrlParams(Schema.Struct({ ...CustomerOrdering.params, ...Pagination.params }))
    .addSuccess(Pagination.Envelope(CustomerWire))
    .annotate(OpenApi.Summary, "Suggested members of a company")
    .annotate(
      OpenApi.Description,
      "Customers without a company whose e-mail address is at one of the company's `email_domains` (compared ignoring case). Add one with `PATCH /customers/{pk}/` and `company_id`."
    )
) {}
