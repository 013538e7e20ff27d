import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What the mail worker keeps on an outbox row (docs/decisions/0750-mail-delivery.md):
 *
 * - a third kind, `csat_survey` (same payload; no delivery tracking);
 * - `rfc_message_id`: the row's stable `Message-ID`, fixed at its first claim, reused by every attempt;
 * - `lease_token`: who holds a `sending` row; for such a row `next_attempt_at` is when the lease expires, after
 *   which any worker may reclaim it (crash recovery). Claims are `FOR UPDATE SKIP LOCKED`;
 * - `outcome` (`sent` | `failed`), `outcome_at`, `failure_reason`: committed right after the SMTP server's answer
 *   (or the `.eml` file's rename), before the delivery events. A row with an outcome is never sent again: a
 *   reclaim only records the events. `status` becomes `sent`/`failed` once the events are recorded;
 * - `last_error`: the last transient failure, for operators; `read_at`: when the read pixel was first fetched.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE hd_outbox
      DROP CONSTRAINT hd_outbox_kind_check,
      ADD CONSTRAINT hd_outbox_kind_check CHECK (kind IN ('ticket_created', 'message', 'csat_survey')),
      ADD COLUMN rfc_message_id text,
      ADD COLUMN lease_token uuid,
      ADD COLUMN outcome text CHECK (outcome IN ('sent', 'failed')),
      ADD COLUMN outcome_at timestamptz,
      ADD COLUMN failure_reason text NOT NULL DEFAULT '',
      ADD COLUMN last_error text NOT NULL DEFAULT '',
      ADD COLUMN recorded_at timestamptz,
      ADD COLUMN read_at timestamptz`
  yield* sql`DROP INDEX hd_outbox_due_idx`
  yield* sql`CREATE INDEX hd_outbox_claim_idx ON hd_outbox (next_attempt_at) WHERE status IN ('pending', 'sending')`
  yield* sql`CREATE UNIQUE INDEX hd_outbox_rfc_message_id_idx ON hd_outbox (rfc_message_id)`
})
