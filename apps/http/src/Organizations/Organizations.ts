import { SqlClient, SqlSchema } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Option, Schema, Struct } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { OrganizationIdColumn, Timestamptz } from "../Database/Columns.js"
import * as Repository from "../Database/Repository.js"
import { dieUndecodable } from "../Database/Rows.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { containsPattern, fold, terms } from "../Search/SearchText.js"
import { JoinedUser, joinedUser } from "../Users/JoinedUser.js"
import { DeletionPlan, Organization, type OrganizationChanges, Subscription } from "./Organization.js"
import * as PublicId from "./PublicId.js"

/** Orderings of the organization list. */
export const OrganizationOrdering = Ordering.make({
  columns: { name: "o.search_name", created_at: "o.created_at", updated_at: "o.updated_at", id: "o.id" },
  defaults: ["name"],
  tieBreaker: "o.id"
})

const NullableTimestamptz = Schema.NullOr(Timestamptz)

/** A row of the organization select: the organization's columns and its creator's, flat. */
const FlatRow = Schema.Struct({
  ...Struct.omit(Organization.fields, "createdBy", "subscription", "deletionPlan"),
  id: OrganizationIdColumn,
  createdAt: Timestamptz,
  updatedAt: Timestamptz,
  subscriptionStatus: Subscription.fields.status,
  subscriptionPlanName: Schema.String,
  subscriptionPlanMetric: Schema.String,
  subscriptionRenewsAt: NullableTimestamptz,
  subscriptionEndsAt: NullableTimestamptz,
  subscriptionTrialEndsAt: NullableTimestamptz,
  deletionStatus: DeletionPlan.fields.status,
  deletionInactivityDetectedAt: NullableTimestamptz,
  deletionAt: NullableTimestamptz,
  createdBy: JoinedUser
})

/** A row of the organization select, decoded into an {@link Organization} (its subscription, plan and creator nested). */
const OrganizationRow = Schema.transform(FlatRow, Schema.typeSchema(Organization), {
  strict: true,
  decode: (row) => {
    const {
      subscriptionStatus,
      subscriptionPlanName,
      subscriptionPlanMetric,
      subscriptionRenewsAt,
      subscriptionEndsAt,
      subscriptionTrialEndsAt,
      deletionStatus,
      deletionInactivityDetectedAt,
      deletionAt,
      ...organization
    } = row
    return {
      ...organization,
      subscription: {
        status: subscriptionStatus,
        planName: subscriptionPlanName,
        planMetric: subscriptionPlanMetric,
        renewsAt: subscriptionRenewsAt,
        endsAt: subscriptionEndsAt,
        trialEndsAt: subscriptionTrialEndsAt
      },
      deletionPlan: { status: deletionStatus, inactivityDetectedAt: deletionInactivityDetectedAt, deletionAt }
    }
  },
  encode: ({ subscription, deletionPlan, ...organization }) => ({
    ...organization,
    subscriptionStatus: subscription.status,
    subscriptionPlanName: subscription.planName,
    subscriptionPlanMetric: subscription.planMetric,
    subscriptionRenewsAt: subscription.renewsAt,
    subscriptionEndsAt: subscription.endsAt,
    subscriptionTrialEndsAt: subscription.trialEndsAt,
    deletionStatus: deletionPlan.status,
    deletionInactivityDetectedAt: deletionPlan.inactivityDetectedAt,
    deletionAt: deletionPlan.deletionAt
  })
})

/** The id `INSERT … RETURNING id` gives back. */
const InsertedRow = Schema.Struct({ id: OrganizationIdColumn })

// Wire names of writable settings → their columns (camelCase; the client turns them into snake_case).
const columnsOf = (changes: OrganizationChanges): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue
    out[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = value
  }
  if (typeof changes.name === "string") out.searchName = fold(changes.name)
  return out
}

/** Organizations: stored settings and the lists a caller may see. */
export class Organizations extends Effect.Service<Organizations>()("@helpdesk/http/Organizations/Organizations", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const select = sql`
      SELECT o.id, o.public_id, o.name, o.created_at, o.updated_at, o.support_email, o.site_url, o.description,
             o.email_from_name, o.email_subject_prefix, o.customer_max_inactivity_period,
             o.customer_inactivity_reminder_period, o.enable_csat, o.enable_auto_tagging, o.enable_cc_email_routing,
             o.enable_self_service, o.enable_associate_signatures, o.enable_auto_stt, o.ticket_public_id_mode,
             o.working_language, o.subscription_status, o.subscription_plan_name, o.subscription_plan_metric,
             o.subscription_renews_at, o.subscription_ends_at, o.subscription_trial_ends_at, o.deletion_status,
             o.deletion_inactivity_detected_at, o.deletion_at, ${joinedUser(sql, "u")} AS created_by
      FROM organizations o LEFT JOIN users u ON u.id = o.created_by_id`

    const visibleTo = (caller: Caller) =>
      caller._tag === "Person"
        ? sql`o.id IN (SELECT organization_id FROM memberships WHERE user_id = ${caller.userId})`
        : sql`o.id = ${caller.organizationId}`

    /** The caller's organizations matching every search term, one page in the requested order. */
    const list = (options: {
      readonly caller: Caller
      readonly search: string
      readonly ordering: Ordering.Ordering<string>
    }): Pagination.PagedQuery<Organization> =>
      Pagination.page(sql, {
        from: sql`organizations o`,
        select,
        where: sql.and([
          visibleTo(options.caller),
          ...terms(options.search).map((term) => sql`o.search_name LIKE ${containsPattern(term)}`)
        ]),
        ordering: options.ordering,
        rows: { table: "organizations", schema: OrganizationRow }
      })

    const findOne = SqlSchema.single({
      Request: OrganizationId,
      Result: OrganizationRow,
      execute: (id) => sql`${select} WHERE o.id = ${id}`
    })

    /** One organization by its numeric id (an organization the caller's scope names, so it exists). */
    const get = (id: OrganizationId): Effect.Effect<Organization> =>
      findOne(id).pipe(dieUndecodable("organizations"), Effect.orDie, withSpan("Organizations.get"))

    /** Creates an organization; its creator becomes its owner. Retries the rare public-id collision. */
    const create = (options: {
      readonly name: string
      readonly createdBy: number
      readonly settings?: OrganizationChanges
    }) =>
      Effect.gen(function* () {
        // A fresh public id per attempt; a collision (unique violation) is skipped rather than failing the transaction.
        const insert = SqlSchema.findOne({
          Request: Schema.String,
          Result: InsertedRow,
          execute: (publicId) => sql`
            INSERT INTO organizations ${sql.insert({
              ...columnsOf(options.settings ?? {}),
              name: options.name,
              searchName: fold(options.name),
              publicId,
              createdById: options.createdBy
            })}
            ON CONFLICT (public_id) DO NOTHING
            RETURNING id`
        })
        let inserted = yield* insert(PublicId.generate(options.name))
        for (let attempt = 0; Option.isNone(inserted) && attempt < 5; attempt++)
          inserted = yield* insert(PublicId.generate(options.name))
        const id = Option.getOrThrow(inserted).id
        yield* sql`INSERT INTO memberships ${sql.insert({ organizationId: id, userId: options.createdBy, role: "owner" })}`
        return yield* get(id)
      }).pipe(sql.withTransaction, dieUndecodable("organizations"), Effect.orDie, withSpan("Organizations.create"))

    /** Applies changes to the writable settings and bumps `updated_at`. */
    const update = (id: OrganizationId, changes: OrganizationChanges) =>
      Effect.gen(function* () {
        const columns = columnsOf(changes)
        if (Object.keys(columns).length > 0)
          yield* sql`UPDATE organizations SET ${sql.update({ ...columns, updatedAt: yield* Repository.now })} WHERE id = ${id}`
        return yield* get(id)
      }).pipe(Effect.orDie, withSpan("Organizations.update"))

    /** Whether any organization exists (for the start-up hint). */
    const isEmpty = sql`SELECT 1 FROM organizations LIMIT 1`.pipe(
      Effect.map((rows) => rows.length === 0),
      Effect.orDie
    )

    return { list, get, create, update, isEmpty } as const
  })
}) {}
