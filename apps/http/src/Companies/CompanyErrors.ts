import { Schema } from "effect"

/** No company with this id in the organization. */
export class CompanyNotFound extends Schema.TaggedError<CompanyNotFound>()("CompanyNotFound", {
  id: Schema.String
}) {}

/** Another company of the organization already has this name (compared ignoring case). */
export class CompanyNameTaken extends Schema.TaggedError<CompanyNameTaken>()("CompanyNameTaken", {
  name: Schema.String
}) {}

/** E-mail domains that already belong to another company of the organization. */
export class EmailDomainsTaken extends Schema.TaggedError<EmailDomainsTaken>()("EmailDomainsTaken", {
  taken: Schema.Array(Schema.Struct({ domain: Schema.String, companyName: Schema.String }))
}) {}

/** The would-be default assignee is not a user of the organization. */
export class AssigneeNotMember extends Schema.TaggedError<AssigneeNotMember>()("AssigneeNotMember", {
  userId: Schema.Number
}) {}
