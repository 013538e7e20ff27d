import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Auth/CurrentCaller.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { allows, deniedDetail } from "../Auth/Permissions.js"
import { PersonalTokenOrdering, type TokenRecord, Tokens } from "../Auth/Tokens.js"
import { Conflict, NotFound, PermissionDenied } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { parseIntegerId } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { created, noContent } from "../Http/Responses.js"
import { Member, MemberCreate, MemberUpdate } from "./Member.js"
import type { LastOwner } from "./MembershipErrors.js"
import { MemberOrdering, Memberships, type Member as StoredMember } from "./Memberships.js"
import { IssuedPersonalToken, type PersonalToken, PersonalTokenCreate } from "./PersonalToken.js"
import { Users } from "./Users.js"

const toWire = (member: StoredMember): Member => ({
  id: member.id,
  email: member.email,
  name: member.name,
  profile_picture_url: member.profilePictureUrl,
  role: member.role,
  joined_at: member.joinedAt
})

const toToken = (token: TokenRecord): PersonalToken => ({
  id: token.id,
  name: token.name,
  prefix: token.displayPrefix,
  created_at: token.createdAt,
  revoked_at: token.revokedAt
})

// Owners are made, changed and removed by owners only (decision 0413).
const ownersOnly = () => new PermissionDenied({ detail: deniedDetail("members.owners")! })

const lastOwner = (error: LastOwner) => new Conflict({ detail: error.message })

const gone = () => Effect.fail(new NotFound())

/** Handlers of the `members` group: the service the CLI's `user add` uses, with the API's rules. */
export const MembersLive = HttpApiBuilder.group(Api, "members", (handlers) =>
  Effect.gen(function* () {
    const memberships = yield* Memberships
    const users = yield* Users
    const access = yield* OrganizationAccess

    const existing = (organizationId: number, segment: string) =>
      Effect.gen(function* () {
        const id = parseIntegerId(segment)
        const member = id === undefined ? undefined : yield* memberships.find(organizationId, id)
        if (member === undefined) return yield* new NotFound()
        return member
      })

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "members.read")
          const ordering = yield* MemberOrdering.parse(urlParams.ordering)
          const page = yield* Pagination.parse(urlParams)
          const result = yield* Pagination.paginate(
            request,
            page,
            memberships.list(scope.organizationId, { search: urlParams.search ?? "", ordering })
          )
          return { ...result, results: result.results.map(toWire) }
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "members.write")
          const input = yield* RequestBody.decode(request, MemberCreate)
          const role = input.role ?? "member"
          if (role === "owner" && !allows("members.owners", scope.role)) return yield* ownersOnly()
          const user = yield* users.ensure(input.email, input.name ?? "")
          const member = yield* memberships.add(scope.organizationId, user.id, role).pipe(
            Effect.catchTag("AlreadyMember", (error) =>
              Effect.fail(
                new Conflict({
                  detail: `${user.email} is already a member (${error.role}): change their role with PATCH members/${user.id}/.`
                })
              )
            )
          )
          return yield* created(
            request,
            Member,
            toWire(member),
            `/organizations/${scope.publicId}/members/${member.id}/`
          )
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "members.read")
          return toWire(yield* existing(scope.organizationId, path.user_id))
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "members.write")
          const member = yield* existing(scope.organizationId, path.user_id)
          const { role } = yield* RequestBody.decode(request, MemberUpdate)
          if (role === undefined || role === member.role) return toWire(member)
          if ((member.role === "owner" || role === "owner") && !allows("members.owners", scope.role))
            return yield* ownersOnly()
          const changed = yield* memberships
            .changeRole(scope.organizationId, member.id, role)
            .pipe(Effect.catchTags({ MemberNotFound: gone, LastOwner: (error) => Effect.fail(lastOwner(error)) }))
          return toWire(changed)
        })
      )
      .handleRaw("delete", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "members.write")
          const member = yield* existing(scope.organizationId, path.user_id)
          if (member.role === "owner" && !allows("members.owners", scope.role)) return yield* ownersOnly()
          yield* memberships
            .remove(scope.organizationId, member.id)
            .pipe(Effect.catchTags({ MemberNotFound: gone, LastOwner: (error) => Effect.fail(lastOwner(error)) }))
          return noContent
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Memberships.Default, Users.Default, Tokens.Default]))

/** Handlers of the `personalTokens` group: the calling person's own tokens, through the CLI's `Tokens` service. */
export const PersonalTokensLive = HttpApiBuilder.group(Api, "personalTokens", (handlers) =>
  Effect.gen(function* () {
    const tokens = yield* Tokens
    const access = yield* OrganizationAccess

    // The roles table lets only people through; a person's id is then the caller's.
    const person = (organizationId: string) =>
      Effect.gen(function* () {
        const scope = yield* access.require(organizationId, "personal_tokens.manage")
        const caller = yield* CurrentCaller
        if (caller._tag !== "Person")
          return yield* new PermissionDenied({ detail: deniedDetail("personal_tokens.manage")! })
        return { scope, userId: caller.userId }
      })

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const { userId } = yield* person(path.organization_id)
          const ordering = yield* PersonalTokenOrdering.parse(urlParams.ordering)
          const page = yield* Pagination.parse(urlParams)
          const result = yield* Pagination.paginate(request, page, tokens.listPersonal(userId, ordering))
          return { ...result, results: result.results.map(toToken) }
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const { scope, userId } = yield* person(path.organization_id)
          const input = yield* RequestBody.decode(request, PersonalTokenCreate)
          const issued = yield* tokens.issuePersonal(userId, input.name ?? "")
          return yield* created(
            request,
            IssuedPersonalToken,
            { ...toToken(issued), token: issued.token },
            `/organizations/${scope.publicId}/personal-tokens/${issued.id}/`
          )
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const { userId } = yield* person(path.organization_id)
          const id = parseIntegerId(path.token_id)
          const token = id === undefined ? undefined : yield* tokens.findPersonal(userId, id)
          if (token === undefined) return yield* new NotFound()
          return toToken(token)
        })
      )
      .handleRaw("delete", ({ path }) =>
        Effect.gen(function* () {
          const { userId } = yield* person(path.organization_id)
          const id = parseIntegerId(path.token_id)
          if (id === undefined) return yield* new NotFound()
          yield* tokens.revokePersonal(userId, id).pipe(Effect.catchTag("TokenNotFound", gone))
          return noContent
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, Memberships.Default, Users.Default, Tokens.Default]))
