import { Schema } from "effect"

/** No customer with this id in the organization. */
export class CustomerNotFound extends Schema.TaggedError<CustomerNotFound>()("CustomerNotFound", {
  id: Schema.Number
}) {}

/** Another customer of the organization has this e-mail address (compared ignoring case). */
export class CustomerEmailTaken extends Schema.TaggedError<CustomerEmailTaken>()("CustomerEmailTaken", {
  email: Schema.String
}) {}

/** `is_company_manager` for a customer who belongs to no company. */
export class ManagerWithoutCompany extends Schema.TaggedError<ManagerWithoutCompany>()("ManagerWithoutCompany", {}) {}
