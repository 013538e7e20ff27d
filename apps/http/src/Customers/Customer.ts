import { Schema } from "effect"
import { CompanyRef } from "../Companies/Company.js"
import { uuid } from "../Companies/CompanyId.js"
import * as Fields from "../Http/Fields.js"

/** Limits of a customer's fields (section 8 of the API description). */
export const LIMITS = { name: 255, email: 254 } as const

/** A customer (requester) as the API shows it, and as tickets embed it. */
export const Customer = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  email: Schema.String,
  is_spam: Schema.Boolean.annotations({ description: "When true, e-mails from this customer are marked as spam." }),
  company: Schema.NullOr(CompanyRef),
  is_company_manager: Schema.Boolean
}).annotations({ identifier: "Customer" })

/** A customer (requester) as the API shows it, and as tickets embed it. */
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
