import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Survey mails already handed over keep no usable survey link in `hd_outbox.payload`
 * (docs/decisions/0805-secrets-in-logs-and-at-rest.md); the worker does the same for every later one.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    UPDATE hd_outbox
    SET payload = regexp_replace(payload::text, 'hd_csat_[A-Za-z0-9_-]{43}', '[redacted]', 'g')::jsonb
    WHERE kind = 'csat_survey' AND outcome IS NOT NULL`
})
