import { randomBytes } from "node:crypto"
import type { OrganizationId } from "@helpdesk/domain"
import { DateTime, Effect } from "effect"
import type { MemberRole } from "../../src/Auth/CurrentCaller.js"
import { Tokens } from "../../src/Auth/Tokens.js"
import { type OrganizationWire, organizationWire } from "../../src/Organizations/Api.js"
import { Organizations } from "../../src/Organizations/Organizations.js"
import { Memberships } from "../../src/Users/Memberships.js"
import { Users } from "../../src/Users/Users.js"

/** A unique e-mail address, so tests sharing a database never collide. */
export const uniqueEmail = (label = "user") => `${label}-${randomBytes(4).toString("hex")}@example.com`

/** An organization with its owner and the owner's personal token. */
export interface OrgFixture {
  /** The organization as the API shows it. */
  readonly organization: OrganizationWire
  /** Its id, as the services below the API take it. */
  readonly organizationId: OrganizationId
  readonly ownerId: number
  readonly ownerEmail: string
  readonly ownerToken: string
  /** `/organizations/{public_id}/` */
  readonly path: string
}

/** Creates an organization owned by a new user, through the same services the CLI uses. */
export const organization = (name = `Org ${randomBytes(3).toString("hex")}`) =>
  Effect.gen(function* () {
    const users = yield* Users
    const organizations = yield* Organizations
    const tokens = yield* Tokens
    const ownerEmail = uniqueEmail("owner")
    const owner = yield* users.ensure(ownerEmail, "Owner")
    const organization = yield* organizations.create({ name, createdBy: owner.id })
    const token = yield* tokens.issuePersonal(owner.id)
    return {
      organization: organizationWire(organization, DateTime.toDate(yield* DateTime.now)),
      organizationId: organization.id,
      ownerId: owner.id,
      ownerEmail,
      ownerToken: token.token,
      path: `/organizations/${organization.publicId}/`
    } satisfies OrgFixture
  })

/** The id of a new organization (see {@link organization}), for tests of the services below the API. */
export const organizationId = (name?: string) => Effect.map(organization(name), (org) => org.organizationId)

/** A new user with a role in the organization, and their personal token. */
export const member = (org: OrgFixture, role: MemberRole) =>
  Effect.gen(function* () {
    const user = yield* (yield* Users).ensure(uniqueEmail(role))
    yield* (yield* Memberships).put(org.organizationId, user.id, role)
    const token = yield* (yield* Tokens).issuePersonal(user.id)
    return { userId: user.id, email: user.email, token: token.token }
  })

/** A member and an admin of the organization (each with a personal token), and an integration token of it. */
export const staff = (org: OrgFixture) =>
  Effect.all({ member: member(org, "member"), admin: member(org, "admin"), integration: integrationToken(org) })

/** An integration token of the organization. */
export const integrationToken = (org: OrgFixture) =>
  Effect.map(Tokens, (tokens) => tokens).pipe(
    Effect.flatMap((tokens) => tokens.issueIntegration(org.organizationId)),
    Effect.map((issued) => issued.token)
  )

/** A personal token of a user who belongs to no organization. */
export const outsider = Effect.gen(function* () {
  const user = yield* (yield* Users).ensure(uniqueEmail("outsider"))
  return (yield* (yield* Tokens).issuePersonal(user.id)).token
})
