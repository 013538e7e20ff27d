import { SqlClient, type SqlError } from "@effect/sql"
import { OrganizationId, type SlaTarget } from "@helpdesk/domain"
import { ALWAYS_OPEN, type Schedule } from "@helpdesk/schedule"
import { Effect, Schema } from "effect"
import { compileStored, type StoredException, type WeeklyHours } from "../BusinessHours/Validation.js"
import { type ClockPolicy, dueTimes, nextBreach, type SlaFacts } from "./SlaClock.js"
import { matches, StoredSlaPolicy } from "./SlaPolicy.js"

/*
 * The SLA state rows of tickets (`hd_ticket_sla`) and the SLA part of their stored view, written from their facts
 * with the organization's policies and schedule. Used inside the append transaction (the `sla` projection) and by
 * recomputes after a policy or business-hours change; needs only the `SqlClient`.
 */

/** A policy as the clocks and the matching need it. */
export interface StatePolicy extends ClockPolicy {
  readonly name: string
  readonly priorities: ReadonlyArray<string>
  readonly inboxIds: ReadonlyArray<number>
  readonly tagIds: ReadonlyArray<number>
}

const json = <A>(value: A | string): A => (typeof value === "string" ? (JSON.parse(value) as A) : value)

/**
 * `hd_ticket_sla.facts` keeps the organization id as a JSON number (its form before `OrganizationId`); the stored
 * form is read and written here only, so stored rows keep their shape.
 */
type StoredFacts = Omit<SlaFacts, "organizationId"> & { readonly organizationId: number | string }

/** Facts as a `hd_ticket_sla.facts` column holds them (parsed by the driver, or its text). */
export const factsOfStored = (stored: StoredFacts | string): SlaFacts => {
  const facts = json(stored)
  return { ...facts, organizationId: OrganizationId.make(String(facts.organizationId)) }
}

/** The `hd_ticket_sla.facts` JSON of `facts`. */
const storedFacts = (facts: SlaFacts): string =>
  JSON.stringify({ ...facts, organizationId: Number(facts.organizationId) } satisfies StoredFacts)

const StatePolicyRow = StoredSlaPolicy.pipe(
  Schema.pick(
    "id",
    "name",
    "priorities",
    "inboxIds",
    "tagIds",
    "firstReplyMinutes",
    "nextReplyMinutes",
    "resolutionMinutes",
    "businessHours",
    "pauseWhenWaitingOnCustomer",
    "pauseWhenSnoozed"
  )
)

/** Compiled schedules by organization, under the version every business-hours change bumps. */
const schedules = new Map<OrganizationId, { readonly version: number; readonly schedule: Schedule }>()
const SCHEDULES_KEPT = 1000

interface StoredHours {
  readonly time_zone: string
  readonly weekly_hours: WeeklyHours | string
  readonly version: number
}

/** The organization's compiled business hours from its stored row (`ALWAYS_OPEN` when none), cached by version. */
const compiledSchedule = (organizationId: OrganizationId, hours: StoredHours | null) =>
  Effect.gen(function* () {
    if (hours === null) return ALWAYS_OPEN
    const version = Number(hours.version)
    const cached = schedules.get(organizationId)
    if (cached !== undefined && cached.version === version) return cached.schedule
    const sql = yield* SqlClient.SqlClient
    const exceptions = yield* sql<{
      id: string
      date: string
      name: string
      repeatsYearly: boolean
      opensAt: string | null
      closesAt: string | null
    }>`
      SELECT id, to_char(date, 'YYYY-MM-DD') AS date, name, repeats_yearly, opens_at::text AS opens_at,
        closes_at::text AS closes_at
      FROM business_hours_exceptions WHERE organization_id = ${organizationId} ORDER BY date, id`
    const schedule = compileStored(
      hours.time_zone,
      json(hours.weekly_hours),
      exceptions.map(
        (e): StoredException => ({
          id: Number(e.id),
          date: e.date,
          name: e.name,
          repeats_yearly: e.repeatsYearly,
          opens_at: e.opensAt,
          closes_at: e.closesAt
        })
      )
    )
    schedules.delete(organizationId)
    if (schedules.size >= SCHEDULES_KEPT) schedules.delete(schedules.keys().next().value!)
    schedules.set(organizationId, { version, schedule })
    return schedule
  })

const decodePolicies = Schema.decodeUnknown(Schema.Array(StatePolicyRow))

/** What a ticket's SLA state is computed under: the organization's policies and compiled business hours. */
export interface SlaRules {
  readonly policies: ReadonlyArray<StatePolicy>
  readonly schedule: Schedule
}

/** The select-list columns `policies` and `hours` of the organization, for {@link rulesOfRow}. */
const rulesColumns = (sql: SqlClient.SqlClient, organizationId: OrganizationId) => sql`
  (SELECT coalesce(json_agg(json_build_object(
      'id', id, 'name', name, 'priorities', priorities, 'inboxIds', inbox_ids, 'tagIds', tag_ids,
      'firstReplyMinutes', first_reply_minutes, 'nextReplyMinutes', next_reply_minutes,
      'resolutionMinutes', resolution_minutes, 'businessHours', business_hours,
      'pauseWhenWaitingOnCustomer', pause_when_waiting_on_customer, 'pauseWhenSnoozed', pause_when_snoozed
    ) ORDER BY position, id), '[]'::json)
   FROM hd_sla_policies WHERE organization_id = ${organizationId}) AS policies,
  (SELECT json_build_object('time_zone', time_zone, 'weekly_hours', weekly_hours, 'version', version)
   FROM business_hours WHERE organization_id = ${organizationId}) AS hours`

/**
 * The rules from a row of {@link rulesColumns} (the exceptions read only when the hours changed since they were
 * compiled). A stored policy that does not decode is a defect, as a failing statement would be for the caller.
 */
const rulesOfRow = (
  organizationId: OrganizationId,
  row: { readonly policies: unknown; readonly hours: StoredHours | string | null }
): Effect.Effect<SlaRules, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const policies: ReadonlyArray<StatePolicy> = yield* decodePolicies(json(row.policies)).pipe(
      Effect.catchTag("ParseError", Effect.die)
    )
    const schedule = yield* compiledSchedule(organizationId, row.hours === null ? null : json(row.hours))
    return { policies, schedule }
  })

/** The organization's policies in the order they are tried (position, then id) and its compiled business hours. */
export const rulesOf = (organizationId: OrganizationId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ policies: unknown; hours: StoredHours | string | null }>`
      SELECT ${rulesColumns(sql, organizationId)}`
    return yield* rulesOfRow(organizationId, rows[0]!)
  })

/** A ticket's SLA facts as `hd_ticket_sla` holds them, at the stream version they were folded to. */
export interface StoredSlaFacts {
  readonly version: number
  readonly facts: SlaFacts
}

/** The stored facts of tickets, by stream id. */
export const storedFactsOf = (streamIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ streamId: string; version: string; facts: StoredFacts | string }>`
      SELECT stream_id, version, facts FROM hd_ticket_sla WHERE stream_id = ANY(${streamIds}::text[])`
    return new Map<string, StoredSlaFacts>(
      rows.map((row) => [row.streamId, { version: Number(row.version), facts: factsOfStored(row.facts) }])
    )
  })

/** What {@link factsWithRulesRead} reads: the stored facts of some tickets, and their organization's rules. */
interface FactsWithRulesRow {
  readonly stored: ReadonlyArray<{ streamId: string; version: number; facts: StoredFacts }> | string
  readonly policies: unknown
  readonly hours: StoredHours | string | null
}

/**
 * The stored facts of tickets (by stream id) and the rules of the organization they belong to, as one SQL expression
 * (a JSON object; read back with {@link factsWithRulesOf}): what the `sla` projection reads before it writes a
 * writer's tickets, sent with the append's own statement.
 */
export const factsWithRulesRead = (
  sql: SqlClient.SqlClient,
  streamIds: ReadonlyArray<string>,
  organizationId: OrganizationId
) => sql`
  (SELECT json_build_object('stored', r.stored, 'policies', r.policies, 'hours', r.hours) FROM (SELECT
    (SELECT coalesce(json_agg(json_build_object('streamId', stream_id, 'version', version, 'facts', facts)),
       '[]'::json)
     FROM hd_ticket_sla WHERE stream_id = ANY(${streamIds}::text[])) AS stored,
    ${rulesColumns(sql, organizationId)}) AS r)`

/** The stored facts (by stream id) and the rules of what {@link factsWithRulesRead} read (an object, or its text). */
export const factsWithRulesOf = (organizationId: OrganizationId, value: unknown) =>
  Effect.gen(function* () {
    const row = json(value as FactsWithRulesRow | string)
    const stored = new Map<string, StoredSlaFacts>(
      json(row.stored).map((s) => [s.streamId, { version: Number(s.version), facts: factsOfStored(s.facts) }])
    )
    return { stored, rules: yield* rulesOfRow(organizationId, row) }
  })

/** {@link factsWithRulesRead} as a statement of its own. */
export const storedFactsWithRules = (streamIds: ReadonlyArray<string>, organizationId: OrganizationId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ read: unknown }>`SELECT ${factsWithRulesRead(sql, streamIds, organizationId)} AS read`
    return yield* factsWithRulesOf(organizationId, rows[0]!.read)
  })

/** The SLA part of a ticket's stored view (`view.sla`): ISO-8601 text, `null` for none. */
export interface StoredSlaView {
  readonly policyId: number | null
  readonly policyName: string | null
  readonly firstReplyDueAt: string | null
  readonly nextReplyDueAt: string | null
  readonly resolutionDueAt: string | null
  readonly breached: boolean
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())
const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms))

/** What a ticket's SLA state is under `policies` (the first that matches) and `schedule`. */
export const stateOf = (facts: SlaFacts, policies: ReadonlyArray<StatePolicy>, schedule: Schedule) => {
  const policy = policies.find((p) => matches(p, facts))
  const due =
    policy === undefined ? { firstReply: null, nextReply: null, resolution: null } : dueTimes(facts, policy, schedule)
  const next = policy === undefined ? null : nextBreach(facts, due)
  const view: StoredSlaView = {
    policyId: policy?.id ?? null,
    policyName: policy?.name ?? null,
    firstReplyDueAt: iso(due.firstReply),
    nextReplyDueAt: iso(due.nextReply),
    resolutionDueAt: iso(due.resolution),
    breached: facts.breaches.length > 0
  }
  return { policy, due, next, view }
}

/**
 * Writes the SLA state of tickets of one organization from their facts at stream `version`: the `hd_ticket_sla`
 * row and the `sla` key of the ticket's stored view (the ticket projection wrote the view earlier in the same
 * transaction), under `rules` when the caller has read them, else under the organization's rules read here.
 * Answers the `sla` views written, by stream id.
 */
export const writeStates = (
  organizationId: OrganizationId,
  tickets: ReadonlyArray<{ readonly streamId: string; readonly version: number; readonly facts: SlaFacts }>,
  rules?: SlaRules
): Effect.Effect<ReadonlyMap<string, StoredSlaView>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const written = new Map<string, StoredSlaView>()
    if (tickets.length === 0) return written
    const sql = yield* SqlClient.SqlClient
    const { policies, schedule } = rules ?? (yield* rulesOf(organizationId))
    for (const { streamId, version, facts } of tickets) {
      const { due, next, view } = stateOf(facts, policies, schedule)
      const row = {
        ticketId: facts.ticketId,
        streamId,
        organizationId,
        version,
        facts: storedFacts(facts),
        policyId: view.policyId,
        firstReplyDueAt: date(due.firstReply),
        nextReplyDueAt: date(due.nextReply),
        resolutionDueAt: date(due.resolution),
        breached: view.breached,
        nextBreachAt: date(next?.dueAt ?? null),
        nextBreachTarget: (next?.target ?? null) satisfies SlaTarget | null
      }
      // One round trip: the view first, then the SLA row (the SELECT waits for the UPDATE's row), the order a
      // writer's projections lock them in.
      yield* sql`
        WITH viewed AS (
          UPDATE hd_tickets SET view = view || jsonb_build_object('sla', ${JSON.stringify(view)}::jsonb)
          WHERE ticket_id = ${facts.ticketId}
          RETURNING 1
        )
        INSERT INTO hd_ticket_sla (ticket_id, stream_id, organization_id, version, facts, policy_id,
          first_reply_due_at, next_reply_due_at, resolution_due_at, breached, next_breach_at, next_breach_target)
        SELECT ${row.ticketId}::bigint, ${row.streamId}::text, ${row.organizationId}::bigint, ${row.version}::bigint,
          ${row.facts}::jsonb, ${row.policyId}::bigint, ${row.firstReplyDueAt}::timestamptz,
          ${row.nextReplyDueAt}::timestamptz, ${row.resolutionDueAt}::timestamptz, ${row.breached}::boolean,
          ${row.nextBreachAt}::timestamptz, ${row.nextBreachTarget}::text
        FROM (SELECT count(*) FROM viewed) AS written
        ON CONFLICT (ticket_id) DO UPDATE SET version = EXCLUDED.version, facts = EXCLUDED.facts,
          policy_id = EXCLUDED.policy_id, first_reply_due_at = EXCLUDED.first_reply_due_at,
          next_reply_due_at = EXCLUDED.next_reply_due_at, resolution_due_at = EXCLUDED.resolution_due_at,
          breached = EXCLUDED.breached, next_breach_at = EXCLUDED.next_breach_at,
          next_breach_target = EXCLUDED.next_breach_target`
      written.set(streamId, view)
    }
    return written
  })

/**
 * Recomputes every ticket of the organization from its stored facts (after a change of its policies, business
 * hours or exceptions), in the caller's transaction. Rows are locked in ticket order, as the breach timer's claim
 * and writers lock them one ticket at a time.
 */
export const recomputeOrganization = (organizationId: OrganizationId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ streamId: string; version: string; facts: StoredFacts | string }>`
      SELECT stream_id, version, facts FROM hd_ticket_sla WHERE organization_id = ${organizationId}
      ORDER BY ticket_id`
    yield* writeStates(
      organizationId,
      rows.map((row) => ({ streamId: row.streamId, version: Number(row.version), facts: factsOfStored(row.facts) }))
    )
    return rows.length
  })

/**
 * The SLA part of a ticket's stored view as the last write left it (`undefined`: none), for the answer of a write
 * that decided nothing (a write that did answers the view its transaction wrote, decision 0813).
 */
export const storedSlaOf = (ticketId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ sla: StoredSlaView | string | null }>`
      SELECT view -> 'sla' AS sla FROM hd_tickets WHERE ticket_id = ${ticketId}`
  ).pipe(
    Effect.map((rows) => {
      const sla = rows[0]?.sla
      return sla === undefined || sla === null ? undefined : json<StoredSlaView>(sla)
    }),
    Effect.orDie
  )
