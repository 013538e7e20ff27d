import { Schema } from "effect"

/** One problem in a business-hours input, under the resource's own field names (`["weekly_hours", "mon", "opens_at"]`). */
export const BusinessHoursIssue = Schema.Struct({
  path: Schema.Array(Schema.String),
  message: Schema.String
})

/** The schedule or exception given is not valid; `issues` lists every problem found. */
export class InvalidBusinessHours extends Schema.TaggedError<InvalidBusinessHours>()("InvalidBusinessHours", {
  issues: Schema.Array(BusinessHoursIssue)
}) {}

/** Exceptions belong to a saved schedule: none is saved yet for the organization. */
export class BusinessHoursNotSaved extends Schema.TaggedError<BusinessHoursNotSaved>()("BusinessHoursNotSaved", {}) {
  override get message() {
    return "Business hours must be saved before exceptions are added. Save them first with PUT /organizations/{organization_id}/business-hours/."
  }
}

/** No exception with this id in the organization. */
export class BusinessHoursExceptionNotFound extends Schema.TaggedError<BusinessHoursExceptionNotFound>()(
  "BusinessHoursExceptionNotFound",
  { id: Schema.Number }
) {}
