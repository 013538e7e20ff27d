import { Schema } from "effect"

/** The user is not a member of the organization. */
export class MemberNotFound extends Schema.TaggedError<MemberNotFound>()("MemberNotFound", {
  userId: Schema.Number
}) {}

/** The user already belongs to the organization (a role is changed, not added twice). */
export class AlreadyMember extends Schema.TaggedError<AlreadyMember>()("AlreadyMember", {
  userId: Schema.Number,
  email: Schema.String,
  role: Schema.String
}) {}

/** The change would leave the organization without an owner. */
export class LastOwner extends Schema.TaggedError<LastOwner>()("LastOwner", {
  userId: Schema.Number,
  change: Schema.Literal("demote", "remove")
}) {
  override get message() {
    return this.change === "remove"
      ? "This is the organization's last owner and cannot be removed: make another member owner first."
      : "This is the organization's last owner and must stay owner: make another member owner first."
  }
}
