import { HttpApiGroup } from "@effect/platform"
import { PersonalTokenOrdering, type TokenRecord } from "../Auth/Tokens.js"
import { Wire } from "../Http/Errors.js"
import { integerIdParam } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { fromModel } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import { Member, MemberCreate, MemberUpdate } from "./Member.js"
import { MemberOrdering, type Member as StoredMember } from "./Memberships.js"
import { IssuedPersonalToken, PersonalToken, PersonalTokenCreate } from "./PersonalToken.js"

/** A stored member as the API shows it. */
export const memberToWire: (member: StoredMember) => Member = fromModel(Member)

/** A stored personal token as the API shows it (never its secret). */
export const tokenToWire = (token: TokenRecord): PersonalToken => ({
  id: token.id,
  name: token.name,
  prefix: token.displayPrefix,
  created_at: token.createdAt,
  revoked_at: token.revokedAt
})

/** Members as a directory resource: `/organizations/{organization_id}/members/{user_id}/`. */
export const MemberResource = Resource.make({
  path: { segment: "members", id: integerIdParam("user_id") },
  noun: "a member",
  wire: { item: Member, toWire: memberToWire, create: MemberCreate, update: MemberUpdate },
  filters: Query.search("name and e-mail, ignoring case"),
  ordering: MemberOrdering,
  docs: {
    list: "Every role. `id` is the user id that `assignee_id` takes.",
    create: {
      summary: "Add a member",
      description:
        "Owners and admins (only owners add owners). Adds the user with this `email` (created when new, with `name`) with `role` (default `member`); no e-mail is sent: they get access with a personal token. A user who is already a member → 409 (change their role with `PATCH`). Answers 201 with a `Location` header."
    },
    update: {
      summary: "Change a member's role",
      description:
        "Owners and admins; only owners change an owner or make one. Demoting the last owner → 409. Applies to the member's next request."
    },
    delete: {
      summary: "Remove a member",
      description:
        "Owners and admins; only owners remove an owner. Removing the last owner → 409. Answers 204; the person's next request to this organization is 404 (their user and personal tokens stay, for their other organizations)."
    }
  }
})

/** `/organizations/{organization_id}/members/`: the people of an organization and their roles. */
export class MembersApi extends Resource.group("members", Resource.endpoints(MemberResource), "Members").addError(
  Wire.Conflict
) {}

/** The calling person's personal tokens: `/organizations/{organization_id}/personal-tokens/{token_id}/`. */
export const PersonalTokenResource = Resource.make({
  path: { segment: "personal-tokens", id: integerIdParam("token_id") },
  noun: { one: "a personal token", many: "my personal tokens" },
  wire: {
    item: PersonalToken,
    toWire: tokenToWire,
    create: PersonalTokenCreate,
    created: {
      schema: IssuedPersonalToken,
      toWire: (issued: TokenRecord & { readonly token: string }) => ({ ...tokenToWire(issued), token: issued.token })
    }
  },
  ordering: PersonalTokenOrdering,
  docs: {
    list: "The caller's own personal tokens, revoked ones included, never their secrets. A personal token acts as its person in each of their organizations. Integration tokens → 403.",
    create:
      "A new token acting as the caller; `token` holds its secret, shown in this answer only. Answers 201 with a `Location` header.",
    get: { summary: "Read one of my personal tokens" },
    delete: {
      summary: "Revoke one of my personal tokens",
      description:
        "Answers 204 (again when already revoked); the token is refused (401) from the next request on, in every organization. It stays listed with `revoked_at`. Another person's token → 404."
    }
  }
})

const tokens = Resource.endpoints(PersonalTokenResource)

/** `/organizations/{organization_id}/personal-tokens/`: the calling person's own API tokens (no update). */
export class PersonalTokensApi extends Resource.guarded(
  HttpApiGroup.make("personalTokens").add(tokens.list).add(tokens.create).add(tokens.get).add(tokens.delete),
  "Personal tokens"
) {}
