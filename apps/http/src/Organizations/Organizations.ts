import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { containsPattern, fold, terms } from "../Search/SearchText.js"
import type { Organization, OrganizationChanges } from "./Organization.js"
import * as PublicId from "./PublicId.js"

/** Orderings of the organization list. */
export const OrganizationOrdering = Ordering.make({
  columns: { name: "o.search_name", created_at: "o.created_at", updated_at: "o.updated_at", id: "o.id" },
  defaults: ["name"],
  tieBreaker: "o.id"
})

interface OrganizationRow {
  readonly id: string
  readonly publicId: string
  readonly name: string
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly supportEmail: string
  readonly siteUrl: string
  readonly description: string
  readonly emailFromName: string
  readonly emailSubjectPrefix: string
  readonly customerMaxInactivityPeriod: number
  readonly customerInactivityReminderPeriod: number
  readonly enableCsat: boolean
  readonly enableAutoTagging: boolean
  readonly enableCcEmailRouting: boolean
  readonly enableSelfService: boolean
  readonly enableAssociateSignatures: boolean
  readonly enableAutoStt: boolean
  readonly ticketPublicIdMode: Organization["ticket_public_id_mode"]
  readonly workingLanguage: string
  readonly subscriptionStatus: Organization["subscription"]["status"]
  readonly subscriptionPlanName: string
  readonly subscriptionPlanMetric: string
  readonly subscriptionRenewsAt: Date | null
  readonly subscriptionEndsAt: Date | null
  readonly subscriptionTrialEndsAt: Date | null
  readonly deletionStatus: Organization["deletion_plan"]["status"]
  readonly deletionInactivityDetectedAt: Date | null
  readonly deletionAt: Date | null
  readonly creatorId: string | null
  readonly creatorEmail: string | null
  readonly creatorName: string | null
  readonly creatorProfilePictureUrl: string | null
}

const DAY_MS = 24 * 60 * 60 * 1000

/** The wire representation of a row; `now` only feeds `trial_days_remaining`. */
export const toOrganization = (row: OrganizationRow, now: Date): Organization => ({
  id: Number(row.id),
  public_id: row.publicId,
  name: row.name,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  created_by:
    row.creatorId === null
      ? null
      : {
          id: Number(row.creatorId),
          email: row.creatorEmail ?? "",
          name: row.creatorName ?? "",
          profile_picture_url: row.creatorProfilePictureUrl ?? ""
        },
  support_email: row.supportEmail,
  deletion_plan: {
    status: row.deletionStatus,
    inactivity_detected_at: row.deletionInactivityDetectedAt,
    deletion_at: row.deletionAt
  },
  subscription: {
    status: row.subscriptionStatus,
    plan_name: row.subscriptionPlanName,
    plan_metric: row.subscriptionPlanMetric,
    renews_at: row.subscriptionRenewsAt,
    ends_at: row.subscriptionEndsAt,
    trial_ends_at: row.subscriptionTrialEndsAt,
    trial_days_remaining:
      row.subscriptionStatus === "trialing" && row.subscriptionTrialEndsAt !== null
        ? Math.max(0, Math.ceil((row.subscriptionTrialEndsAt.getTime() - now.getTime()) / DAY_MS))
        : 0,
    has_access_enabled: row.subscriptionStatus === "trialing" || row.subscriptionStatus === "active"
  },
  customer_max_inactivity_period: row.customerMaxInactivityPeriod,
  customer_inactivity_reminder_period: row.customerInactivityReminderPeriod,
  site_url: row.siteUrl,
  description: row.description,
  email_from_name: row.emailFromName,
  email_subject_prefix: row.emailSubjectPrefix,
  enable_csat: row.enableCsat,
  enable_auto_tagging: row.enableAutoTagging,
  enable_cc_email_routing: row.enableCcEmailRouting,
  enable_self_service: row.enableSelfService,
  enable_associate_signatures: row.enableAssociateSignatures,
  enable_auto_stt: row.enableAutoStt,
  ticket_public_id_mode: row.ticketPublicIdMode,
  working_language: row.workingLanguage
})

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
      SELECT o.*, u.id AS creator_id, u.email AS creator_email, u.name AS creator_name,
             u.profile_picture_url AS creator_profile_picture_url
      FROM organizations o LEFT JOIN users u ON u.id = o.created_by_id`

    const now = Effect.map(
      Effect.clockWith((clock) => clock.currentTimeMillis),
      (ms) => new Date(ms)
    )

    const visibleTo = (caller: Caller) =>
      caller._tag === "Person"
        ? sql`o.id IN (SELECT organization_id FROM memberships WHERE user_id = ${caller.userId})`
        : sql`o.id = ${caller.organizationId}`

    /** The caller's organizations matching every search term, one page in the requested order. */
    const list = (options: {
      readonly caller: Caller
      readonly search: string
      readonly ordering: Ordering.Ordering<string>
      readonly page: Pagination.PageRequest
    }) => {
      const where = sql.and([
        visibleTo(options.caller),
        ...terms(options.search).map((term) => sql`o.search_name LIKE ${containsPattern(term)}`)
      ])
      const query = Pagination.page(sql, {
        from: sql`organizations o`,
        select,
        where,
        ordering: options.ordering,
        decode: (row: OrganizationRow) => row
      })
      // The wire shape depends on the clock (trial state), so rows are turned into organizations after the fetch.
      return {
        count: query.count,
        fetch: (window: Pagination.Window) =>
          Effect.zipWith(query.fetch(window), now, (rows, at) => rows.map((row) => toOrganization(row, at)))
      }
    }

    /** One organization by its numeric id. */
    const get = (id: number) =>
      Effect.zipWith(sql<OrganizationRow>`${select} WHERE o.id = ${id}`, now, (rows, at) =>
        toOrganization(rows[0]!, at)
      ).pipe(Effect.orDie)

    /** Creates an organization; its creator becomes its owner. Retries the rare public-id collision. */
    const create = (options: {
      readonly name: string
      readonly createdBy: number
      readonly settings?: OrganizationChanges
    }) =>
      Effect.gen(function* () {
        // A fresh public id per attempt; a collision (unique violation) is skipped rather than failing the transaction.
        const insert = Effect.suspend(
          () => sql<{ readonly id: string }>`
            INSERT INTO organizations ${sql.insert({
              ...columnsOf(options.settings ?? {}),
              name: options.name,
              searchName: fold(options.name),
              publicId: PublicId.generate(options.name),
              createdById: options.createdBy
            })}
            ON CONFLICT (public_id) DO NOTHING
            RETURNING id`
        )
        let rows = yield* insert
        for (let attempt = 0; rows.length === 0 && attempt < 5; attempt++) rows = yield* insert
        const id = Number(rows[0]!.id)
        yield* sql`INSERT INTO memberships ${sql.insert({ organizationId: id, userId: options.createdBy, role: "owner" })}`
        return yield* get(id)
      }).pipe(sql.withTransaction, Effect.orDie, Effect.withSpan("Organizations.create"))

    /** Applies changes to the writable settings and bumps `updated_at`. */
    const update = (id: number, changes: OrganizationChanges) =>
      Effect.gen(function* () {
        const columns = columnsOf(changes)
        if (Object.keys(columns).length > 0)
          yield* sql`UPDATE organizations SET ${sql.update({ ...columns, updatedAt: yield* now })} WHERE id = ${id}`
        return yield* get(id)
      }).pipe(Effect.orDie, Effect.withSpan("Organizations.update"))

    /** Whether any organization exists (for the start-up hint). */
    const isEmpty = sql`SELECT 1 FROM organizations LIMIT 1`.pipe(
      Effect.map((rows) => rows.length === 0),
      Effect.orDie
    )

    return { list, get, create, update, isEmpty } as const
  })
}) {}
