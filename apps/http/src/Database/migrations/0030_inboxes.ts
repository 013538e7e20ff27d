import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Inboxes: an organization's mailboxes for routing tickets (docs/decisions/0551-inboxes.md).
 * Exactly one default per organization: the partial unique index allows at most one, and the service never
 * unsets the flag without setting it on another inbox in the same transaction. Inactivity periods are whole
 * days; NULL means "the organization's".
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE inboxes (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name text NOT NULL,
      email_prefix text NOT NULL,
      is_default boolean NOT NULL DEFAULT false,
      auto_reply_during_enabled boolean NOT NULL DEFAULT false,
      auto_reply_outside_enabled boolean NOT NULL DEFAULT false,
      auto_reply_during_template text NOT NULL DEFAULT '',
      auto_reply_outside_template text NOT NULL DEFAULT '',
      enable_inactivity_reminders boolean NOT NULL DEFAULT false,
      enable_auto_close_inactive_tickets boolean NOT NULL DEFAULT false,
      customer_max_inactivity_period integer CHECK (customer_max_inactivity_period >= 0),
      customer_inactivity_reminder_period integer CHECK (customer_inactivity_reminder_period >= 0),
      signature text NOT NULL DEFAULT '',
      email_from_name text NOT NULL DEFAULT '',
      customer_interaction_style text NOT NULL DEFAULT 'helpdesk',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX inboxes_email_prefix_idx ON inboxes (organization_id, email_prefix)`
  yield* sql`CREATE UNIQUE INDEX inboxes_default_idx ON inboxes (organization_id) WHERE is_default`
})
