import type { OrganizationId } from "@helpdesk/domain"
import { Context } from "effect"

/** A member's role in an organization; integration tokens act with the role `token`. */
export type Role = "owner" | "admin" | "member" | "token"

/** Roles a person can hold through a membership. */
export const MEMBER_ROLES = ["owner", "admin", "member"] as const

/** A role a person can hold through a membership. */
export type MemberRole = (typeof MEMBER_ROLES)[number]

/** Who is calling: a person through a personal token, or an integration token of one organization. */
export type Caller =
  | { readonly _tag: "Person"; readonly userId: number; readonly tokenId: number }
  | { readonly _tag: "Integration"; readonly organizationId: OrganizationId; readonly tokenId: number }

/** The authenticated caller of the current request, provided by the `ServiceAuth` middleware. */
export class CurrentCaller extends Context.Tag("@helpdesk/http/Auth/CurrentCaller")<CurrentCaller, Caller>() {}
