import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Signed webhooks (docs/decisions/0309-webhook-delivery.md):
 *
 * - `hd_webhooks`: an organization's endpoints. `event_types` empty = every type. `secret` is kept as is (it signs
 *   every delivery, so it cannot be a hash); `previous_secret` also signs until `previous_secret_expires_at` after a
 *   rotation. `disabled_reason` says why the service turned `active` off (empty when it did not).
 *   Each webhook's reader of the global log keeps its checkpoint in `hd_checkpoints` as `webhook-{id}`.
 * - `hd_webhook_deliveries`: one row per (webhook, event) to send. `ordering_key` is the event's stream (one
 *   ticket): only the oldest pending row of a key is claimable, so a ticket's events arrive in order. A row being
 *   sent holds `lease_token`, and its `next_attempt_at` is then when the lease expires.
 * - `hd_webhook_attempts`: the delivery log, one row per attempt (status, latency, error).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE hd_webhooks (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      url text NOT NULL,
      event_types text[] NOT NULL DEFAULT '{}',
      secret text NOT NULL,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      secret_rotated_at timestamptz,
      active boolean NOT NULL DEFAULT true,
      disabled_reason text NOT NULL DEFAULT '',
      disabled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX hd_webhooks_organization_id_idx ON hd_webhooks (organization_id, id)`
  yield* sql`
    CREATE TABLE hd_webhook_deliveries (
      id bigserial PRIMARY KEY,
      webhook_id bigint NOT NULL REFERENCES hd_webhooks (id) ON DELETE CASCADE,
      event_id uuid NOT NULL,
      event_type text NOT NULL,
      ordering_key text NOT NULL,
      body text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'abandoned')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      lease_token uuid,
      first_failed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      UNIQUE (webhook_id, event_id)
    )`
  yield* sql`
    CREATE INDEX hd_webhook_deliveries_due_idx ON hd_webhook_deliveries (next_attempt_at) WHERE status = 'pending'`
  yield* sql`
    CREATE INDEX hd_webhook_deliveries_order_idx ON hd_webhook_deliveries (webhook_id, ordering_key, id)
    WHERE status = 'pending'`
  yield* sql`
    CREATE INDEX hd_webhook_deliveries_finished_idx ON hd_webhook_deliveries (finished_at)
    WHERE status <> 'pending'`
  yield* sql`
    CREATE TABLE hd_webhook_attempts (
      id bigserial PRIMARY KEY,
      webhook_id bigint NOT NULL REFERENCES hd_webhooks (id) ON DELETE CASCADE,
      delivery_id bigint NOT NULL REFERENCES hd_webhook_deliveries (id) ON DELETE CASCADE,
      event_id uuid NOT NULL,
      event_type text NOT NULL,
      attempt integer NOT NULL,
      attempted_at timestamptz NOT NULL,
      status_code integer,
      latency_ms integer NOT NULL,
      succeeded boolean NOT NULL,
      error text NOT NULL DEFAULT ''
    )`
  yield* sql`CREATE INDEX hd_webhook_attempts_webhook_idx ON hd_webhook_attempts (webhook_id, id)`
  yield* sql`CREATE INDEX hd_webhook_attempts_delivery_idx ON hd_webhook_attempts (delivery_id)`
})
