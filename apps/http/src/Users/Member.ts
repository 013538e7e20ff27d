import { Schema } from "effect"
import { MEMBER_ROLES } from "../Auth/CurrentCaller.js"
import * as Fields from "../Http/Fields.js"
import { Timestamp } from "../Http/Representation.js"

/** Longest user name accepted when a member is added. */
export const MAX_USER_NAME_LENGTH = 255

/**
 * A member of an organization as the API shows it: the person (`id` is the user id that `assignee_id` takes, as
 * in `<user_ref>`) and their role in the organization.
 */
export const Member = Schema.Struct({
  id: Schema.Int.annotations({ description: "The user's id: what `assignee_id` and `{user_id}` take." }),
  email: Schema.String,
  name: Schema.String,
  profile_picture_url: Schema.String,
  role: Schema.Literal(...MEMBER_ROLES),
  joined_at: Timestamp
}).annotations({ identifier: "Member" })

/** A member as the API shows it. */
export type Member = typeof Member.Type

/** Body of `POST /organizations/{organization_id}/members/`. */
export const MemberCreate = Schema.Struct({
  email: Fields.email(),
  name: Fields.optional(Fields.text({ maxLength: MAX_USER_NAME_LENGTH, allowBlank: true })),
  role: Fields.optional(Fields.choice(MEMBER_ROLES))
}).annotations({ identifier: "MemberCreate" })

/** A decoded add-member body. */
export type MemberCreate = typeof MemberCreate.Type

/** Body of `PATCH /organizations/{organization_id}/members/{user_id}/`. */
export const MemberUpdate = Schema.Struct({
  role: Fields.optional(Fields.choice(MEMBER_ROLES))
}).annotations({ identifier: "MemberUpdate" })

/** A decoded member update. */
export type MemberUpdate = typeof MemberUpdate.Type
