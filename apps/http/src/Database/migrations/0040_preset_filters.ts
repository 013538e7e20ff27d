import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Custom preset filters: saved ticket searches. `created_by_id` is null for filters an integration token created
 * (those are always organization-shared); a personal filter whose creator is gone is seen by nobody.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE preset_filters (
      id uuid PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name text NOT NULL,
      criteria jsonb NOT NULL DEFAULT '{}'::jsonb,
      visibility text NOT NULL CHECK (visibility IN ('personal', 'organization')),
      created_by_id bigint REFERENCES users (id) ON DELETE SET NULL,
      position integer NOT NULL DEFAULT 0,
      display_count boolean NOT NULL DEFAULT false,
      group_by_priority boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX preset_filters_organization_idx ON preset_filters (organization_id, position, created_at)`
  yield* sql`CREATE INDEX preset_filters_creator_idx ON preset_filters (created_by_id)`
})
