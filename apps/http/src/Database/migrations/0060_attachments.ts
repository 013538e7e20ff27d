import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Uploaded files: pending until a ticket or message claims them, then attached to that ticket. The blob
 * itself lives in the BlobStore under `id`; `caller_key` is who uploaded it (`user:<id>` or `token:<id>`),
 * since only the uploader may claim it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE attachments (
      id uuid PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      caller_key text NOT NULL,
      name text NOT NULL,
      size bigint NOT NULL,
      content_type text NOT NULL,
      upload_ticket_id bigint,
      ticket_id bigint,
      claimed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX attachments_expiry_idx ON attachments (expires_at) WHERE claimed_at IS NULL`
  yield* sql`CREATE INDEX attachments_ticket_idx ON attachments (ticket_id) WHERE ticket_id IS NOT NULL`
  yield* sql`
    CREATE TABLE hd_secrets (
      name text PRIMARY KEY,
      value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
})
