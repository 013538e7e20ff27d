import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What tickets over HTTP need beside the event store and its read models (docs/decisions/0650-ticket-ids-and-public-ids.md):
 *
 * - `hd_ticket_id_seq`, `hd_ticket_message_id_seq`: the integer ids the app allocates for tickets and messages
 *   (global, so a merge can carry messages over without renumbering them);
 * - `hd_ticket_counters`: the last `public_id` handed out per organization. Creation increments it in the
 *   transaction that appends the ticket's events, so the row lock orders concurrent creations and a rolled-back
 *   creation gives its number back: users see 1, 2, 3 … without gaps;
 * - `hd_outbox`: e-mails to send (the create-email and associate replies), written in the append transaction;
 *   the mail worker claims due rows with `FOR UPDATE SKIP LOCKED`;
 * - listing columns of `hd_tickets` generated from its `view` (public id, subject, channel, customer, tag ids
 *   and lower-cased tag names), so list filters are plain indexed SQL and the projection needs no change.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`CREATE SEQUENCE hd_ticket_id_seq AS bigint`
  yield* sql`CREATE SEQUENCE hd_ticket_message_id_seq AS bigint`

  yield* sql`
    CREATE TABLE hd_ticket_counters (
      organization_id bigint PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
      last_public_id bigint NOT NULL CHECK (last_public_id >= 0)
    )`

  yield* sql`
    CREATE TABLE hd_outbox (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      ticket_id bigint NOT NULL,
      message_id bigint,
      kind text NOT NULL CHECK (kind IN ('ticket_created', 'message')),
      payload jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX hd_outbox_due_idx ON hd_outbox (next_attempt_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX hd_outbox_ticket_idx ON hd_outbox (ticket_id)`

  yield* sql`
    ALTER TABLE hd_tickets
      ADD COLUMN public_id text GENERATED ALWAYS AS (view ->> 'publicId') STORED,
      ADD COLUMN subject text GENERATED ALWAYS AS (view ->> 'subject') STORED,
      ADD COLUMN channel_type text GENERATED ALWAYS AS (view -> 'channel' ->> 'type') STORED,
      ADD COLUMN customer_id bigint GENERATED ALWAYS AS ((view -> 'customer' ->> 'id')::bigint) STORED,
      ADD COLUMN tag_ids jsonb GENERATED ALWAYS AS (jsonb_path_query_array(view, '$.tags[*].id')) STORED,
      ADD COLUMN tag_names jsonb GENERATED ALWAYS AS (lower(jsonb_path_query_array(view, '$.tags[*].name')::text)::jsonb) STORED`
  yield* sql`CREATE UNIQUE INDEX hd_tickets_organization_public_id_idx ON hd_tickets (organization_id, public_id)`
  yield* sql`CREATE INDEX hd_tickets_organization_created_idx ON hd_tickets (organization_id, created_at DESC, ticket_id DESC)`
  yield* sql`CREATE INDEX hd_tickets_organization_channel_idx ON hd_tickets (organization_id, channel_type)`
  yield* sql`CREATE INDEX hd_tickets_organization_customer_idx ON hd_tickets (organization_id, customer_id)`
  yield* sql`CREATE INDEX hd_tickets_tag_names_idx ON hd_tickets USING gin (tag_names)`
  yield* sql`CREATE INDEX hd_tickets_subject_idx ON hd_tickets USING gin (to_tsvector('simple', subject))`
  yield* sql`CREATE INDEX hd_ticket_messages_ticket_created_idx ON hd_ticket_messages (ticket_id, created_at, message_id)`
})
