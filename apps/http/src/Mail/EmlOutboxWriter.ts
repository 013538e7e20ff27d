import * as os from "node:os"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Schedule, Schema } from "effect"

/**
 * Another process on this database writes the `.eml` outbox into a directory of its own: mail would be split
 * between machines (docs/decisions/0702-eml-outbox-one-machine.md).
 */
export class EmlOutboxTaken extends Schema.TaggedError<EmlOutboxTaken>()("EmlOutboxTaken", {
  writer: Schema.String,
  directory: Schema.String
}) {
  override get message() {
    return `The .eml outbox (used when SMTP_URL is not set) writes mail into ${this.directory} on this machine, but another process on this database already writes it to ${this.writer}. .eml files are for one machine only: set SMTP_URL on every replica, or run the mail worker on one machine.`
  }
}

/** How often the writer says it is alive, and after how long without a word another may take over. */
export interface EmlOutboxWriterTiming {
  readonly heartbeat: Duration.Duration
  readonly staleAfter: Duration.Duration
}

const DEFAULT_TIMING: EmlOutboxWriterTiming = { heartbeat: Duration.seconds(10), staleAfter: Duration.seconds(30) }

/**
 * Makes this process the one `.eml` outbox writer of the database for the scope, or fails with
 * {@link EmlOutboxTaken} while another writer (another host, or another directory) has been seen within
 * `staleAfter`. Processes of one host writing one directory share it. Released when the scope closes.
 */
export const claimEmlOutbox = (directory: string, timing: EmlOutboxWriterTiming = DEFAULT_TIMING) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const writer = `${os.hostname()}:${directory}`
    const staleSeconds = Duration.toSeconds(timing.staleAfter)
    const claim = sql<{ writer: string }>`
      INSERT INTO hd_eml_outbox_writer (only_one, writer, seen_at) VALUES (true, ${writer}, now())
      ON CONFLICT (only_one) DO UPDATE SET writer = EXCLUDED.writer, seen_at = now()
      WHERE hd_eml_outbox_writer.writer = EXCLUDED.writer
         OR hd_eml_outbox_writer.seen_at < now() - ${staleSeconds} * interval '1 second'
      RETURNING writer`.pipe(Effect.orDie)
    if ((yield* claim).length === 0) {
      const holder = yield* sql<{ writer: string }>`SELECT writer FROM hd_eml_outbox_writer`.pipe(Effect.orDie)
      return yield* new EmlOutboxTaken({ writer: holder[0]?.writer ?? "another machine", directory })
    }
    yield* Effect.addFinalizer(() => sql`DELETE FROM hd_eml_outbox_writer WHERE writer = ${writer}`.pipe(Effect.ignore))
    const heartbeat = Effect.flatMap(claim, (rows) =>
      rows.length > 0
        ? Effect.void
        : Effect.logError(`Another process took the .eml outbox over while ${writer} was silent; stop one of them.`)
    ).pipe(Effect.catchAllCause((cause) => Effect.logWarning("The .eml outbox heartbeat failed", cause)))
    yield* Effect.forkScoped(Effect.repeat(heartbeat, Schedule.spaced(timing.heartbeat)))
  })
