import { Schema } from "effect"
import { integerIdParam } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { fromModel } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import { type Customer, CustomerCreate, CustomerId, CustomerUpdate } from "./Customer.js"
import { CustomerOrdering } from "./Customers.js"

/** The short form a customer shows as its `company`. */
export const CompanyRefWire = Schema.Struct({ id: Schema.UUID, name: Schema.String }).annotations({
  identifier: "CompanyRef"
})

/** A customer (requester) as the API shows it. */
export const CustomerWire = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  email: Schema.String,
  is_spam: Schema.Boolean.annotations({ description: "When true, e-mails from this customer are marked as spam." }),
  company: Schema.NullOr(CompanyRefWire),
  is_company_manager: Schema.Boolean
}).annotations({ identifier: "Customer" })

/** A customer on the wire. */
export const customerWire: (customer: Customer) => typeof CustomerWire.Type = fromModel(CustomerWire)

/** Customers as a directory resource: `/organizations/{organization_id}/customers/{pk}/` (never deleted). */
export const CustomerResource = Resource.make({
  path: { segment: "customers", id: integerIdParam("pk", CustomerId.make) },
  noun: "a customer",
  wire: { item: CustomerWire, toWire: customerWire, create: CustomerCreate, update: CustomerUpdate },
  filters: {
    ...Query.search("name and e-mail address: case- and accent-insensitive"),
    company_id: Query.param("Only members of this company (a UUID)."),
    is_spam: Query.param("Only spam (`true`) or only non-spam (`false`) customers.")
  },
  ordering: CustomerOrdering,
  docs: {
    list: "Every role may read. Default ordering: newest first (`-id`).",
    create:
      "Every role, members included. `email` is required and unique in the organization ignoring case; `name` (default empty), `is_spam`, `company_id` (a company of the same organization, or null) and `is_company_manager` (needs a company) are optional. Answers 201 with a `Location` header.",
    update:
      "Every role, members included. Moving the customer to another company, or out of any (`company_id: null`), ends their being a manager unless `is_company_manager` says otherwise."
  }
})

/** `/organizations/{organization_id}/customers/`: requesters of an organization. */
export class CustomersApi extends Resource.group("customers", Resource.endpoints(CustomerResource), "Customers", {
  delete: false
}) {}
