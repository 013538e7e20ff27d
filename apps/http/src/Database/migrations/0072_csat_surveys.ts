import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * CSAT surveys (docs/decisions/0770-auto-replies-and-csat.md): at most one per ticket, reached through a random
 * token of which only the SHA-256 is kept; `answered_at` is set in the transaction that records the answer.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE hd_csat_surveys (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      ticket_id bigint NOT NULL UNIQUE,
      token_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      answered_at timestamptz
    )`
})
