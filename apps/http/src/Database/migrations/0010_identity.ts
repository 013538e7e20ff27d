import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Users, organizations, memberships and API tokens: who may call the service and in which organization.
 * Periods are whole days; subscription and deletion-plan columns are read-only through the API.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE users (
      id bigserial PRIMARY KEY,
      email text NOT NULL UNIQUE,
      name text NOT NULL DEFAULT '',
      profile_picture_url text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE organizations (
      id bigserial PRIMARY KEY,
      public_id text NOT NULL UNIQUE,
      name text NOT NULL,
      search_name text NOT NULL,
      created_by_id bigint REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      support_email text NOT NULL DEFAULT '',
      site_url text NOT NULL DEFAULT '',
      description text NOT NULL DEFAULT '',
      email_from_name text NOT NULL DEFAULT '',
      email_subject_prefix text NOT NULL DEFAULT '',
      customer_max_inactivity_period integer NOT NULL DEFAULT 0,
      customer_inactivity_reminder_period integer NOT NULL DEFAULT 0,
      enable_csat boolean NOT NULL DEFAULT false,
      enable_auto_tagging boolean NOT NULL DEFAULT false,
      enable_cc_email_routing boolean NOT NULL DEFAULT false,
      enable_self_service boolean NOT NULL DEFAULT false,
      enable_associate_signatures boolean NOT NULL DEFAULT false,
      enable_auto_stt boolean NOT NULL DEFAULT false,
      ticket_public_id_mode text NOT NULL DEFAULT 'auto_numeric',
      working_language text NOT NULL DEFAULT 'en',
      subscription_status text NOT NULL DEFAULT 'active',
      subscription_plan_name text NOT NULL DEFAULT 'Self-hosted',
      subscription_plan_metric text NOT NULL DEFAULT 'unlimited',
      subscription_renews_at timestamptz,
      subscription_ends_at timestamptz,
      subscription_trial_ends_at timestamptz,
      deletion_status text NOT NULL DEFAULT 'none',
      deletion_inactivity_detected_at timestamptz,
      deletion_at timestamptz
    )`
  yield* sql`CREATE INDEX organizations_search_name_idx ON organizations (search_name)`
  yield* sql`
    CREATE TABLE memberships (
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (organization_id, user_id)
    )`
  yield* sql`CREATE INDEX memberships_user_idx ON memberships (user_id)`
  yield* sql`
    CREATE TABLE api_tokens (
      id bigserial PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('personal', 'integration')),
      user_id bigint REFERENCES users (id) ON DELETE CASCADE,
      organization_id bigint REFERENCES organizations (id) ON DELETE CASCADE,
      token_hash bytea NOT NULL UNIQUE,
      display_prefix text NOT NULL,
      name text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz,
      CHECK ((kind = 'personal' AND user_id IS NOT NULL AND organization_id IS NULL)
          OR (kind = 'integration' AND organization_id IS NOT NULL AND user_id IS NULL))
    )`
})
