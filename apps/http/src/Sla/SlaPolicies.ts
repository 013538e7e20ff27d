import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import * as Repository from "../Database/Repository.js"
import * as Ordering from "../Http/Ordering.js"
import { withSpan } from "../Observability/Spans.js"
import { type SlaPolicyCreate, SlaPolicyNotFound, type SlaPolicyUpdate, StoredSlaPolicy } from "./SlaPolicy.js"
import { recomputeOrganization } from "./SlaState.js"

/** Orderings of the policy list: by default the order they are tried in. */
export const SlaPolicyOrdering = Ordering.make({
  columns: { position: "position", id: "id", name: "name", created_at: "created_at" },
  defaults: ["position", "id"]
})

/**
 * SLA policies of organizations (docs/decisions/0503-sla-policies.md). Every change recomputes the SLA state of the
 * organization's tickets in the change's transaction, so a read after the write shows the new due times.
 */
export class SlaPolicies extends Effect.Service<SlaPolicies>()("@helpdesk/http/Sla/SlaPolicies", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const policyRows = Repository.table("hd_sla_policies", StoredSlaPolicy)
    const columns = sql`id, name, position, priorities, inbox_ids, tag_ids, first_reply_minutes, next_reply_minutes,
      resolution_minutes, business_hours, pause_when_waiting_on_customer, pause_when_snoozed, created_at, updated_at`

    const recomputeIn = (organizationId: OrganizationId) =>
      recomputeOrganization(organizationId).pipe(Effect.provideService(SqlClient.SqlClient, sql))

    /** The policy with this id in the organization, or undefined. */
    const findById = policyRows.findById(
      "SlaPolicies.findById",
      (organizationId, id: number) =>
        sql`SELECT ${columns} FROM hd_sla_policies WHERE organization_id = ${organizationId} AND id = ${id}`
    )

    const listColumns = (input: SlaPolicyCreate | SlaPolicyUpdate) => {
      const c: Record<string, unknown> = {}
      if (input.name !== undefined) c.name = input.name
      if (input.position !== undefined) c.position = input.position
      if (input.priorities !== undefined) c.priorities = JSON.stringify(input.priorities)
      if (input.inbox_ids !== undefined) c.inboxIds = JSON.stringify([...new Set(input.inbox_ids)])
      if (input.tag_ids !== undefined) c.tagIds = JSON.stringify([...new Set(input.tag_ids)])
      if (input.first_reply_minutes !== undefined) c.firstReplyMinutes = input.first_reply_minutes
      if (input.next_reply_minutes !== undefined) c.nextReplyMinutes = input.next_reply_minutes
      if (input.resolution_minutes !== undefined) c.resolutionMinutes = input.resolution_minutes
      if (input.business_hours !== undefined) c.businessHours = input.business_hours
      if (input.pause_when_waiting_on_customer !== undefined)
        c.pauseWhenWaitingOnCustomer = input.pause_when_waiting_on_customer
      if (input.pause_when_snoozed !== undefined) c.pauseWhenSnoozed = input.pause_when_snoozed
      return c
    }

    /** Creates a policy (at the end of the order unless `position` is given). */
    const create = (organizationId: OrganizationId, input: SlaPolicyCreate): Effect.Effect<StoredSlaPolicy> =>
      Effect.gen(function* () {
        const position =
          input.position ??
          Number(
            (yield* sql<{ next: string }>`
              SELECT COALESCE(max(position) + 1, 0) AS next FROM hd_sla_policies
              WHERE organization_id = ${organizationId}`)[0]!.next
          )
        const at = yield* Repository.now
        const policy = yield* sql`
          INSERT INTO hd_sla_policies ${sql.insert({
            organizationId,
            ...listColumns(input),
            position,
            createdAt: at,
            updatedAt: at
          })}
          RETURNING ${columns}`.pipe(policyRows.written)
        yield* recomputeIn(organizationId)
        return policy
      }).pipe(sql.withTransaction, Effect.orDie, withSpan("SlaPolicies.create"))

    /** Changes a policy. */
    const update = (
      organizationId: OrganizationId,
      id: number,
      changes: SlaPolicyUpdate
    ): Effect.Effect<StoredSlaPolicy, SlaPolicyNotFound> =>
      Effect.gen(function* () {
        const set = listColumns(changes)
        const policy = yield* (
          Object.keys(set).length === 0
            ? sql`SELECT ${columns} FROM hd_sla_policies WHERE organization_id = ${organizationId} AND id = ${id}`
            : sql`UPDATE hd_sla_policies SET ${sql.update({ ...set, updatedAt: yield* Repository.now })}
                WHERE organization_id = ${organizationId} AND id = ${id}
                RETURNING ${columns}`
        ).pipe(
          policyRows.returning,
          Repository.orNotFound(() => new SlaPolicyNotFound({ id }))
        )
        if (Object.keys(set).length > 0) yield* recomputeIn(organizationId)
        return policy
      }).pipe(Repository.write("SlaPolicies.update", { transaction: sql }))

    /** Deletes a policy; its tickets fall to the next policy that matches them, or none. */
    const remove = (organizationId: OrganizationId, id: number): Effect.Effect<void, SlaPolicyNotFound> =>
      Effect.gen(function* () {
        yield* Repository.deleteById(sql, "hd_sla_policies", organizationId, id, () => new SlaPolicyNotFound({ id }))
        yield* recomputeIn(organizationId)
      }).pipe(Repository.write("SlaPolicies.remove", { transaction: sql }))

    /** One page of the organization's policies in the requested order. */
    const list = (organizationId: OrganizationId, options: { readonly ordering: Ordering.Ordering<string> }) =>
      policyRows.page(sql, { columns, where: sql`organization_id = ${organizationId}`, ordering: options.ordering })

    return { findById, create, update, remove, list } as const
  })
}) {}
