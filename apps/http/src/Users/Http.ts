import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, Match } from "effect"
import { Api } from "../Api.js"
import type { MemberRole } from "../Auth/CurrentCaller.js"
import { CurrentCaller } from "../Auth/CurrentCaller.js"
import { OrganizationAccess, type OrganizationScope } from "../Auth/OrganizationAccess.js"
import { allows, deniedDetail } from "../Auth/Permissions.js"
import { Tokens } from "../Auth/Tokens.js"
import { Conflict, NotFound, PermissionDenied } from "../Http/Errors.js"
import * as Resource from "../Http/Resource.js"
import { MemberResource, PersonalTokenResource } from "./Api.js"
import { type AlreadyMember, type LastOwner, MemberNotFound } from "./MembershipErrors.js"
import { Memberships } from "./Memberships.js"
import { Users } from "./Users.js"

// Owners are made, changed and removed by owners only (decision 0413).
const ownersOnly = (scope: OrganizationScope, ...roles: ReadonlyArray<MemberRole | undefined>) =>
  roles.includes("owner") && !allows("members.owners", scope.role)
    ? Effect.fail(new PermissionDenied({ detail: deniedDetail("members.owners")! }))
    : Effect.void

/** The wire error of a refused member write. */
const memberWriteError = Match.typeTags<AlreadyMember | MemberNotFound | LastOwner, Conflict | NotFound>()({
  AlreadyMember: ({ email, role, userId }) =>
    new Conflict({
      detail: `${email} is already a member (${role}): change their role with PATCH members/${userId}/.`
    }),
  MemberNotFound: () => new NotFound(),
  LastOwner: ({ message }) => new Conflict({ detail: message })
})

/** Handlers of the `members` group: the service the CLI's `user add` uses, with the API's rules. */
export const MembersLive = HttpApiBuilder.group(Api, "members", (handlers) =>
  Effect.gen(function* () {
    const memberships = yield* Memberships
    const users = yield* Users
    const resource = yield* Resource.handlers(MemberResource, {
      filters: Resource.searchFilter,
      writeError: memberWriteError,
      checks: {
        create: (scope, input) => ownersOnly(scope, input.role),
        // An unchanged role needs no owner's say.
        update: (scope, member, { role }) =>
          role === undefined || role === member.role ? Effect.void : ownersOnly(scope, member.role, role),
        delete: (scope, member) => ownersOnly(scope, member.role)
      },
      repository: {
        findById: memberships.find,
        list: memberships.list,
        create: (organizationId, input) =>
          Effect.flatMap(users.ensure(input.email, input.name ?? ""), (user) =>
            memberships.add(organizationId, user, input.role ?? "member")
          ),
        update: (organizationId, userId, { role }) =>
          role === undefined
            ? Effect.flatMap(memberships.find(organizationId, userId), (member) =>
                member === undefined ? Effect.fail(new MemberNotFound({ userId })) : Effect.succeed(member)
              )
            : memberships.changeRole(organizationId, userId, role),
        remove: memberships.remove
      }
    })
    return Resource.handleAll(handlers, resource)
  })
).pipe(Layer.provide([OrganizationAccess.Default, Memberships.Default, Users.Default, Tokens.Default]))

// The roles table lets only people through (`personal_tokens.manage`); a person's id is then the caller's.
const person = Effect.flatMap(CurrentCaller, (caller) =>
  caller._tag === "Person" ? Effect.succeed(caller.userId) : Effect.dieMessage("personal tokens are people's only")
)

/** Handlers of the `personalTokens` group: the calling person's own tokens, through the CLI's `Tokens` service. */
export const PersonalTokensLive = HttpApiBuilder.group(Api, "personalTokens", (handlers) =>
  Effect.gen(function* () {
    const tokens = yield* Tokens
    const resource = yield* Resource.handlers(PersonalTokenResource, {
      filters: Resource.noFilters,
      writeError: () => new NotFound(),
      repository: {
        findById: (_organizationId, id) => Effect.flatMap(person, (userId) => tokens.findPersonal(userId, id)),
        list: (_organizationId, { ordering }) => ({
          count: Effect.flatMap(person, (userId) => tokens.listPersonal(userId, ordering).count),
          fetch: (window) => Effect.flatMap(person, (userId) => tokens.listPersonal(userId, ordering).fetch(window))
        }),
        create: (_organizationId, input) =>
          Effect.flatMap(person, (userId) => tokens.issuePersonal(userId, input.name ?? "")),
        // Revoking twice answers 204 again; another person's token is not theirs to find (404).
        remove: (_organizationId, id) =>
          Effect.asVoid(Effect.flatMap(person, (userId) => tokens.revokePersonal(userId, id)))
      }
    })
    return Resource.handleAll(handlers, resource)
  })
).pipe(Layer.provide([OrganizationAccess.Default, Memberships.Default, Users.Default, Tokens.Default]))
