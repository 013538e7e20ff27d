import { UserRef } from "@helpdesk/domain"
import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { CompanyId } from "./CompanyId.js"
import { emailDomains } from "./EmailDomain.js"

/** Longest company name. */
export const MAX_COMPANY_NAME_LENGTH = 255

/**
 * A company of an organization: its default assignee (null when unset or no longer a member), its e-mail domains
 * (lower-case, sorted, unique in the organization).
 */
export const Company = Schema.Struct({
  id: CompanyId,
  name: Schema.String,
  defaultAssignee: Schema.NullOr(UserRef),
  emailDomains: Schema.Array(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})

/** A company of an organization. */
export type Company = typeof Company.Type

/** The short form a customer carries as its `company`. */
export const CompanyRef = Schema.Struct({ id: CompanyId, name: Schema.String })

/** The short form a customer carries as its `company`. */
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
