import { Schema } from "effect"

/** A timestamp on the wire: ISO-8601 UTC with milliseconds and `Z` (`2026-11-22T09:30:00.000Z`). */
export const Timestamp = Schema.Date.annotations({
  identifier: "Timestamp",
  jsonSchema: { type: "string", format: "date-time", examples: ["2026-11-22T09:30:00.000Z"] }
})

/** A timestamp or `null` where unset. */
export const NullableTimestamp = Schema.NullOr(Timestamp)

/** `<user_ref>`: a user as other resources show them. */
export class UserRef extends Schema.Class<UserRef>("UserRef")({
  id: Schema.Int,
  email: Schema.String,
  profile_picture_url: Schema.String,
  name: Schema.String
}) {}
