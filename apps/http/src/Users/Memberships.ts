import { SqlClient, SqlError, SqlSchema } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Option, Schema } from "effect"
import { AuthCache } from "../Auth/AuthCache.js"
import { MEMBER_ROLES, type MemberRole } from "../Auth/CurrentCaller.js"
import { BigInt8, Timestamptz } from "../Database/Columns.js"
import * as Repository from "../Database/Repository.js"
import { dieUndecodable } from "../Database/Rows.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { lowerCaseTerms } from "../Search/SearchText.js"
import { AlreadyMember, LastOwner, MemberNotFound } from "./MembershipErrors.js"

/** A member of an organization: the person (`id` is the user's) and their role in it. */
export const Member = Schema.Struct({
  id: Schema.Int,
  email: Schema.String,
  name: Schema.String,
  profilePictureUrl: Schema.String,
  role: Schema.Literal(...MEMBER_ROLES),
  joinedAt: Timestamptz
})

/** A member of an organization: the person and their role in it. */
export type Member = typeof Member.Type

/** A row of the member select (`u.id, u.email, u.name, u.profile_picture_url, m.role, joined_at`): a {@link Member}. */
const MemberRow = Schema.Struct({ ...Member.fields, id: BigInt8 })

const OrganizationUser = Schema.Struct({ organizationId: OrganizationId, userId: Schema.Number })

const isSqlError = (error: unknown): error is SqlError.SqlError => error instanceof SqlError.SqlError

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

    const findRole = SqlSchema.findOne({
      Request: OrganizationUser,
      Result: Schema.Struct({ role: Member.fields.role }),
      execute: ({ organizationId, userId }) =>
        sql`SELECT role FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`
    })

    /** The user's role in the organization, if a member. */
    const roleOf = (organizationId: OrganizationId, userId: number): Effect.Effect<MemberRole | undefined> =>
      findRole({ organizationId, userId }).pipe(
        Effect.map(Option.match({ onNone: () => undefined, onSome: ({ role }) => role })),
        dieUndecodable("memberships"),
        Effect.orDie
      )

    const select = sql`SELECT u.id, u.email, u.name, u.profile_picture_url, m.role, m.created_at AS joined_at
      FROM memberships m JOIN users u ON u.id = m.user_id`

    /** The member with this user id, or undefined. */
    const findOne = Repository.findOne({
      table: "memberships",
      span: "Memberships.find",
      Request: OrganizationUser,
      Result: MemberRow,
      execute: ({ organizationId, userId }) =>
        sql`${select} WHERE m.organization_id = ${organizationId} AND m.user_id = ${userId}`
    })
    const find = (organizationId: OrganizationId, userId: number): Effect.Effect<Member | undefined> =>
      findOne({ organizationId, userId })

    /** Adds a user who is not yet a member. */
    const add = (
      organizationId: OrganizationId,
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
      }).pipe(Effect.catchTag("SqlError", Effect.die), withSpan("Memberships.add"))

    const countOwners = SqlSchema.single({
      Request: OrganizationId,
      Result: Schema.Struct({ count: BigInt8 }),
      execute: (organizationId) =>
        sql`SELECT count(*) AS count FROM memberships WHERE organization_id = ${organizationId} AND role = 'owner'`
    })

    // The last owner stays owner: a change that leaves them `next` (another role, or none when removed) fails.
    const keepLastOwner = (
      organizationId: OrganizationId,
      userId: number,
      current: MemberRole | undefined,
      next: MemberRole | undefined
    ) =>
      current !== "owner" || next === "owner"
        ? Effect.void
        : countOwners(organizationId).pipe(
            dieUndecodable("memberships"),
            Effect.orDie,
            Effect.flatMap(({ count }) =>
              count <= 1 ? new LastOwner({ userId, change: next === undefined ? "remove" : "demote" }) : Effect.void
            )
          )

    /**
     * Runs a change of the user's membership in one transaction holding the organization's row, so two changes
     * to its owners cannot each leave the other owner; the person's cached memberships are forgotten after commit.
     */
    const changeMembership = <A, E>(
      organizationId: OrganizationId,
      userId: number,
      change: (current: MemberRole | undefined) => Effect.Effect<A, E | SqlError.SqlError>
    ) =>
      Effect.gen(function* () {
        yield* sql`SELECT id FROM organizations WHERE id = ${organizationId} FOR UPDATE`
        return yield* change(yield* roleOf(organizationId, userId))
      }).pipe(
        sql.withTransaction,
        // A change made here applies to this process's next request (others hear the table's trigger).
        Effect.tap(() => forget(userId)),
        Effect.catchIf(isSqlError, Effect.die)
      )

    /**
     * Adds the user to the organization, or changes their role when already a member (the CLI's `user add`); the
     * last owner stays owner.
     */
    const put = (organizationId: OrganizationId, userId: number, role: MemberRole): Effect.Effect<void, LastOwner> =>
      changeMembership(organizationId, userId, (current) =>
        Effect.zipRight(
          keepLastOwner(organizationId, userId, current, role),
          sql`
            INSERT INTO memberships ${sql.insert({ organizationId, userId, role })}
            ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`
        )
      ).pipe(Effect.asVoid, withSpan("Memberships.put"))

    /** Changes a member's role; the last owner stays owner. */
    const changeRole = (
      organizationId: OrganizationId,
      userId: number,
      role: MemberRole
    ): Effect.Effect<Member, MemberNotFound | LastOwner> =>
      changeMembership(organizationId, userId, (current) =>
        Effect.gen(function* () {
          if (current === undefined) return yield* new MemberNotFound({ userId })
          yield* keepLastOwner(organizationId, userId, current, role)
          if (current !== role)
            yield* sql`UPDATE memberships SET role = ${role}
              WHERE organization_id = ${organizationId} AND user_id = ${userId}`
        })
      ).pipe(
        Effect.zipRight(Effect.suspend(() => find(organizationId, userId))),
        Effect.map((member) => member!),
        withSpan("Memberships.changeRole")
      )

    /** Removes a member (their user and personal tokens stay: they may belong elsewhere); never the last owner. */
    const remove = (organizationId: OrganizationId, userId: number): Effect.Effect<void, MemberNotFound | LastOwner> =>
      changeMembership(organizationId, userId, (current) =>
        Effect.gen(function* () {
          if (current === undefined) return yield* new MemberNotFound({ userId })
          yield* keepLastOwner(organizationId, userId, current, undefined)
          yield* sql`DELETE FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`
        })
      ).pipe(withSpan("Memberships.remove"))

    /** The organization's members whose name or e-mail contains every search term, one page in order. */
    const list = (organizationId: OrganizationId, options: Repository.Search) => {
      const where = Repository.everyTerm(
        sql,
        sql`m.organization_id = ${organizationId}`,
        lowerCaseTerms(options.search),
        (pattern) => sql`(u.email LIKE ${pattern} OR lower(u.name) LIKE ${pattern})`
      )
      return Pagination.page(sql, {
        from: sql`memberships m JOIN users u ON u.id = m.user_id`,
        select,
        where,
        ordering: options.ordering,
        rows: { table: "memberships", schema: MemberRow }
      })
    }

    return { put, roleOf, find, add, changeRole, remove, list } as const
  })
}) {}
