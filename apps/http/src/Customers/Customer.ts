import { Schema } from "effect"
import { CompanyRef } from "../Companies/Company.js"
import { uuid } from "../Companies/CompanyId.js"
import * as Fields from "../Http/Fields.js"

/** Limits of a customer's fields (section 8 of the API description). */
export const LIMITS = { name: 255, email: 254 } as const

/** A customer's id. */
export const CustomerId = Schema.Int.pipe(Schema.brand("CustomerId"))

/** A customer's id. */
export type CustomerId = typeof CustomerId.Type

/**
 * A customer (requester) of an organization: e-mail address unique in it ignoring case, at most one company of
 * the same organization, whose manager they may be.
 */
export const Customer = Schema.Struct({
  id: CustomerId,
  name: Schema.String,
  email: Schema.String,
  isSpam: Schema.Boolean,
  company: Schema.NullOr(CompanyRef),
  isCompanyManager: Schema.Boolean
})

/** A customer (requester) of an organization. */
export type Customer = typeof Customer.Type

const companyId = Fields.nullable(uuid).annotations({
  description: "A company of the same organization; null for none."
})

/** Body of `POST /organizations/{organization_id}/customers/`: `email` is required, the rest optional. */
export const CustomerCreate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: LIMITS.name, allowBlank: true })),
  email: Fields.email({ maxLength: LIMITS.email }),
  is_spam: Fields.optional(Fields.boolean),
  company_id: Fields.optional(companyId),
  is_company_manager: Fields.optional(Fields.boolean)
}).annotations({ identifier: "CustomerCreate" })

/** A decoded create body. */
export type CustomerCreate = typeof CustomerCreate.Type

/** Body of `PATCH /organizations/{organization_id}/customers/{pk}/`: any writable field. */
export const CustomerUpdate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: LIMITS.name, allowBlank: true })),
  email: Fields.optional(Fields.email({ maxLength: LIMITS.email })),
  is_spam: Fields.optional(Fields.boolean),
  company_id: Fields.optional(companyId),
  is_company_manager: Fields.optional(Fields.boolean)
}).annotations({ identifier: "CustomerUpdate" })

/** A decoded update body. */
export type CustomerUpdate = typeof CustomerUpdate.Type
