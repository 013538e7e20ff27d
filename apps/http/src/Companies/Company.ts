import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { Timestamp, UserRef } from "../Http/Representation.js"
import { emailDomains } from "./EmailDomain.js"

/** Longest company name. */
export const MAX_COMPANY_NAME_LENGTH = 255

/** A company as the API shows it. */
export const Company = Schema.Struct({
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

/** A company as the API shows it. */
export type Company = typeof Company.Type

/** The short form a customer embeds as its `company`. */
export const CompanyRef = Schema.Struct({ id: Schema.UUID, name: Schema.String }).annotations({
  identifier: "CompanyRef"
})

/** The short form a customer embeds as its `company`. */
export type CompanyRef = typeof CompanyRef.Type

const defaultAssigneeId = Fields.nullable(
  Fields.id.annotations({ description: "Id of a user of the organization; null for none." })
)

/** Body of `POST /organizations/{organization_id}/companies/`. */
export const CompanyCreate = Schema.Struct({
  name: Fields.text({ maxLength: MAX_COMPANY_NAME_LENGTH }),
  default_assignee_id: Fields.optional(defaultAssigneeId),
  email_domains: Fields.optional(emailDomains)
}).annotations({ identifier: "CompanyCreate" })

/** A decoded create body. */
export type CompanyCreate = typeof CompanyCreate.Type

/** Body of `PATCH /organizations/{organization_id}/companies/{id}/`; `email_domains` replaces the list. */
export const CompanyUpdate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: MAX_COMPANY_NAME_LENGTH })),
  default_assignee_id: Fields.optional(defaultAssigneeId),
  email_domains: Fields.optional(emailDomains)
}).annotations({ identifier: "CompanyUpdate" })

/** A decoded update body. */
export type CompanyUpdate = typeof CompanyUpdate.Type
