import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * SLA policies and the SLA state of tickets (docs/decisions/0503-sla-policies.md):
 *
 * - `hd_sla_policies`: an organization's policies, tried in `position` order (the first whose conditions match a
 *   ticket applies); conditions are lists (empty: any), targets are minutes with their unit, `null` for none;
 * - `hd_ticket_sla`: per ticket, the facts the clocks need (`facts`, folded from the ticket's events by the `sla`
 *   inline projection, independent of any schedule or policy), the policy that applies and the due instants
 *   computed from them, and `next_breach_at`: the earliest due instant whose breach is not recorded yet, which the
 *   breach timer claims with `SKIP LOCKED` (partial index).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE hd_sla_policies (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name text NOT NULL,
      position integer NOT NULL,
      priorities jsonb NOT NULL DEFAULT '[]',
      inbox_ids jsonb NOT NULL DEFAULT '[]',
      tag_ids jsonb NOT NULL DEFAULT '[]',
      first_reply_minutes integer,
      next_reply_minutes integer,
      resolution_minutes integer,
      business_hours boolean NOT NULL DEFAULT true,
      pause_when_waiting_on_customer boolean NOT NULL DEFAULT true,
      pause_when_snoozed boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX hd_sla_policies_organization_idx ON hd_sla_policies (organization_id, position, id)`
  yield* sql`
    CREATE TABLE hd_ticket_sla (
      ticket_id bigint PRIMARY KEY,
      stream_id text NOT NULL UNIQUE,
      organization_id bigint NOT NULL,
      version bigint NOT NULL,
      facts jsonb NOT NULL,
      policy_id bigint,
      first_reply_due_at timestamptz,
      next_reply_due_at timestamptz,
      resolution_due_at timestamptz,
      breached boolean NOT NULL DEFAULT false,
      next_breach_at timestamptz,
      next_breach_target text
    )`
  yield* sql`CREATE INDEX hd_ticket_sla_organization_idx ON hd_ticket_sla (organization_id)`
  yield* sql`CREATE INDEX hd_ticket_sla_next_breach_idx ON hd_ticket_sla (next_breach_at) WHERE next_breach_at IS NOT NULL`
})
