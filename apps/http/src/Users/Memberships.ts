import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { AuthCache } from "../Auth/AuthCache.js"
import { MEMBER_ROLES, type MemberRole } from "../Auth/CurrentCaller.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { containsPattern } from "../Search/SearchText.js"
import { AlreadyMember, LastOwner, MemberNotFound } from "./MembershipErrors.js"

/** A member of an organization: the person (`id` is the user's) and their role in it, decoded from its row. */
export const Member = Schema.Struct({
  id: Schema.NumberFromString,
  email: Schema.String,
  name: Schema.String,
  profilePictureUrl: Schema.String,
  role: Schema.Literal(...MEMBER_ROLES),
  joinedAt: Schema.DateFromSelf
})

/** A member of an organization: the person and their role in it. */
export type Member = typeof Member.Type

const decodeMember = Schema.decodeUnknownSync(Member)

/** Orderings of the member list. */
export const MemberOrdering = Ordering.make({
  columns: { id: "u.id", email: "u.email", name: "lower(u.name)", role: "m.role", joined_at: "m.created_at" },
  defaults: ["email"],
  tieBreaker: "u.id"
})

/**
 * Who belongs to which organization, with which role. Every change forgets the person's cached memberships in
 * this process at once (other processes hear the table's trigger, decision 0658); an organization always keeps
 * an owner (decision 0413).
 */
export class Memberships extends Effect.Service<Memberships>()("@helpdesk/http/Users/Memberships", {
  dependencies: [AuthCache.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = yield* AuthCache

    // After the write committed: a lookup made before it may not keep what it read (AuthCache's generation).
    const forget = (userId: number) => cache.invalidate({ _tag: "User", userId })

    /** The user's role in the organization, if a member. */
    const roleOf = (organizationId: number, userId: number) =>
      sql<{ readonly role: MemberRole }>`
        SELECT role FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`.pipe(
        Effect.map((rows) => rows[0]?.role),
        Effect.orDie
      )

    const select = sql`SELECT u.id, u.email, u.name, u.profile_picture_url, m.role, m.created_at AS joined_at
      FROM memberships m JOIN users u ON u.id = m.user_id`

    const findOne = SqlSchema.findOne({
      Request: Schema.Struct({ organizationId: Schema.Number, userId: Schema.Number }),
      Result: Member,
      execute: ({ organizationId, userId }) =>
        sql`${select} WHERE m.organization_id = ${organizationId} AND m.user_id = ${userId}`
    })

    /** The member with this user id, or undefined. */
    const find = (organizationId: number, userId: number): Effect.Effect<Member | undefined> =>
      findOne({ organizationId, userId }).pipe(
        Effect.map(Option.getOrUndefined),
        Effect.orDie,
        Effect.withSpan("Memberships.find")
      )

    /** Adds a user who is not yet a member. */
    const add = (
      organizationId: number,
      user: { readonly id: number; readonly email: string },
      role: MemberRole
    ): Effect.Effect<Member, AlreadyMember> =>
      Effect.gen(function* () {
        const userId = user.id
        const rows = yield* sql`
          INSERT INTO memberships ${sql.insert({ organizationId, userId, role })}
          ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING user_id`
        if (rows.length === 0) {
          const existing = yield* roleOf(organizationId, userId)
          return yield* new AlreadyMember({ userId, email: user.email, role: existing ?? role })
        }
        return (yield* find(organizationId, userId))!
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Memberships.add"))

    // Serialises the changes to one organization's owners, so two demotions cannot each leave the other owner.
    const lockOwners = (organizationId: number) =>
      sql`SELECT id FROM organizations WHERE id = ${organizationId} FOR UPDATE`

    const ownerCount = (organizationId: number) =>
      sql<{ readonly count: string }>`
        SELECT count(*) AS count FROM memberships WHERE organization_id = ${organizationId} AND role = 'owner'`.pipe(
        Effect.map((rows) => Number(rows[0]!.count))
      )

    /**
     * Adds the user to the organization, or changes their role when already a member (the CLI's `user add`); the
     * last owner stays owner.
     */
    const put = (organizationId: number, userId: number, role: MemberRole): Effect.Effect<void, LastOwner> =>
      Effect.gen(function* () {
        yield* lockOwners(organizationId)
        const current = yield* roleOf(organizationId, userId)
        if (current === "owner" && role !== "owner" && (yield* ownerCount(organizationId)) <= 1)
          return yield* new LastOwner({ userId, change: "demote" })
        yield* sql`
          INSERT INTO memberships ${sql.insert({ organizationId, userId, role })}
          ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`
      }).pipe(
        sql.withTransaction,
        // A role changed here applies to this process's next request (others hear the table's trigger).
        Effect.tap(() => forget(userId)),
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("Memberships.put")
      )

    /** Changes a member's role; the last owner stays owner. */
    const changeRole = (
      organizationId: number,
      userId: number,
      role: MemberRole
    ): Effect.Effect<Member, MemberNotFound | LastOwner> =>
      Effect.gen(function* () {
        yield* lockOwners(organizationId)
        const current = yield* roleOf(organizationId, userId)
        if (current === undefined) return yield* new MemberNotFound({ userId })
        if (current === "owner" && role !== "owner" && (yield* ownerCount(organizationId)) <= 1)
          return yield* new LastOwner({ userId, change: "demote" })
        if (current !== role)
          yield* sql`UPDATE memberships SET role = ${role}
            WHERE organization_id = ${organizationId} AND user_id = ${userId}`
      }).pipe(
        sql.withTransaction,
        Effect.tap(() => forget(userId)),
        Effect.zipRight(Effect.suspend(() => find(organizationId, userId))),
        Effect.map((member) => member!),
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("Memberships.changeRole")
      )

    /** Removes a member (their user and personal tokens stay: they may belong elsewhere); never the last owner. */
    const remove = (organizationId: number, userId: number): Effect.Effect<void, MemberNotFound | LastOwner> =>
      Effect.gen(function* () {
        yield* lockOwners(organizationId)
        const current = yield* roleOf(organizationId, userId)
        if (current === undefined) return yield* new MemberNotFound({ userId })
        if (current === "owner" && (yield* ownerCount(organizationId)) <= 1)
          return yield* new LastOwner({ userId, change: "remove" })
        yield* sql`DELETE FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`
      }).pipe(
        sql.withTransaction,
        Effect.tap(() => forget(userId)),
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("Memberships.remove")
      )

    /** The organization's members whose name or e-mail contains every search term, one page in order. */
    const list = (
      organizationId: number,
      options: { readonly search: string; readonly ordering: Ordering.Ordering<string> }
    ) => {
      const where = sql.and([
        sql`m.organization_id = ${organizationId}`,
        ...options.search
          .toLowerCase()
          .split(/\s+/)
          .filter((term) => term !== "")
          .map((term) => sql`(u.email LIKE ${containsPattern(term)} OR lower(u.name) LIKE ${containsPattern(term)})`)
      ])
      return Pagination.page(sql, {
        from: sql`memberships m JOIN users u ON u.id = m.user_id`,
        select,
        where,
        ordering: options.ordering,
        decode: decodeMember
      })
    }

    return { put, roleOf, find, add, changeRole, remove, list } as const
  })
}) {}
