import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Snapshots of ticket streams (docs/decisions/0305-one-command-pipeline.md): the domain's folded `TicketState` at
 * stream `version`, written by the `tickets` inline projection in the append transaction. A write loads the
 * snapshot and only the events after it. `schema_version` is the code's `TICKET_STATE_VERSION` when it was
 * written: a snapshot of another version is ignored (the stream is folded from its start) and replaced.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE hd_ticket_snapshots (
      stream_id text PRIMARY KEY,
      version bigint NOT NULL CHECK (version >= 1),
      schema_version integer NOT NULL,
      state jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
})
