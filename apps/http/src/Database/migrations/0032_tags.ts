import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Ticket tags of an organization (docs/decisions/0554-tags.md): names unique per organization ignoring case
 * (`name_key`, lower-cased in TypeScript), an optional `#rrggbb` color ('' when unset).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE tags (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name text NOT NULL,
      name_key text NOT NULL,
      color text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT tags_name_unique UNIQUE (organization_id, name_key)
    )`
})
