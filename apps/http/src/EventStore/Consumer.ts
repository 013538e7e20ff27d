import { SqlClient } from "@effect/sql"
import { type GlobalCheckpoint, GlobalCheckpointStart, type RecordedEvent } from "@helpdesk/domain"
import { type Duration, Effect, Schema } from "effect"
import { withSpan } from "../Observability/Spans.js"
import { checkpointFromRow, positionOf } from "./Checkpoint.js"
import { type GlobalLogFilter, PostgresEventStore } from "./PostgresEventStore.js"

/** Another instance of the consumer stored a checkpoint first; this batch's work was rolled back. */
export class CheckpointConflict extends Schema.TaggedError<CheckpointConflict>()("CheckpointConflict", {
  consumerId: Schema.String
}) {
  override get message() {
    return `consumer ${this.consumerId}: checkpoint moved while a batch was processed`
  }
}

/** A consumer of the global log: a durable name and what it does with each batch. */
export interface Consumer<E, R> {
  /** Stable id under which its checkpoint is stored in `hd_checkpoints`. */
  readonly consumerId: string
  /** Events per batch (default 100). */
  readonly batchSize?: number
  /**
   * Reads only these events of the log (one organization's, some types); the checkpoint moves to the last event
   * read, so a narrowed consumer never skips a late commit either.
   */
  readonly filter?: GlobalLogFilter
  /**
   * Handles a batch, inside the transaction that stores the checkpoint after it: its SQL writes commit with the
   * checkpoint or not at all (exactly-once effects on this database; anything external must be idempotent).
   */
  readonly handle: (events: ReadonlyArray<RecordedEvent>) => Effect.Effect<void, E, R>
}

/** The result of one batch. */
export interface ProcessedBatch {
  readonly events: number
  readonly checkpoint: GlobalCheckpoint
}

/**
 * Reads a consumer's checkpoint (the start of the log when it has none).
 */
export const loadCheckpoint = (consumerId: string): Effect.Effect<GlobalCheckpoint, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ lastTx: string; lastPosition: string }>`
      SELECT last_tx, last_position FROM hd_checkpoints WHERE consumer_id = ${consumerId}`.pipe(Effect.orDie)
    const row = rows[0]
    return row === undefined ? GlobalCheckpointStart : checkpointFromRow(row.lastTx, row.lastPosition)
  })

/**
 * Moves a consumer's checkpoint from `expected` to `next`, or fails with {@link CheckpointConflict} when it is
 * no longer at `expected` (another instance got there first). Run it in the transaction of the batch's writes.
 */
export const storeCheckpoint = (
  consumerId: string,
  expected: GlobalCheckpoint,
  next: GlobalCheckpoint
): Effect.Effect<void, CheckpointConflict, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { transactionId: expectedTx, globalPosition: expectedPosition } = positionOf(expected)
    const { transactionId: nextTx, globalPosition: nextPosition } = positionOf(next)
    // A missing row counts as the start of the log; a concurrent first insert makes the loser's
    // ON CONFLICT branch compare against the winner's row and update nothing.
    const rows = yield* sql`
      INSERT INTO hd_checkpoints AS c (consumer_id, last_tx, last_position)
      SELECT ${consumerId}, ${nextTx}::xid8, ${nextPosition}::bigint
      WHERE (${expectedTx}::xid8, ${expectedPosition}::bigint) = ('0'::xid8, 0::bigint)
         OR EXISTS (SELECT 1 FROM hd_checkpoints WHERE consumer_id = ${consumerId})
      ON CONFLICT (consumer_id) DO UPDATE
        SET last_tx = excluded.last_tx, last_position = excluded.last_position, updated_at = now()
        WHERE c.last_tx = ${expectedTx}::xid8 AND c.last_position = ${expectedPosition}::bigint
      RETURNING 1 AS stored`.pipe(Effect.orDie)
    if (rows.length === 0) return yield* new CheckpointConflict({ consumerId })
  })

/**
 * Locks a consumer's checkpoint row for this transaction (creating it at the start of the log if missing) and
 * answers it; fails with {@link CheckpointConflict} when another instance holds it, instead of queueing behind it.
 */
const lockCheckpoint = (consumerId: string): Effect.Effect<GlobalCheckpoint, CheckpointConflict, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const lock = sql<{ lastTx: string; lastPosition: string }>`
      SELECT last_tx, last_position FROM hd_checkpoints WHERE consumer_id = ${consumerId}
      FOR UPDATE SKIP LOCKED`
    let rows = yield* lock
    if (rows.length === 0) {
      const created = yield* sql`
        INSERT INTO hd_checkpoints (consumer_id, last_tx, last_position) VALUES (${consumerId}, '0', 0)
        ON CONFLICT (consumer_id) DO NOTHING
        RETURNING 1 AS created`
      rows = created.length === 0 ? yield* lock : [{ lastTx: "0", lastPosition: "0" }]
    }
    const row = rows[0]
    if (row === undefined) return yield* new CheckpointConflict({ consumerId })
    return checkpointFromRow(row.lastTx, row.lastPosition)
  }).pipe(Effect.catchTag("SqlError", Effect.die))

/**
 * Processes the consumer's next batch of the global log, if any: in one transaction, locks its checkpoint
 * (failing with {@link CheckpointConflict} while another instance processes one), reads the events after it
 * (never past a transaction still in flight), runs `handle`, and stores the new checkpoint with a
 * compare-and-set. A failure of `handle` rolls everything back and leaves the checkpoint where it was.
 */
export const processNextBatch = <E, R>(
  consumer: Consumer<E, R>
): Effect.Effect<ProcessedBatch, E | CheckpointConflict, R | PostgresEventStore | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* PostgresEventStore
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const from = yield* lockCheckpoint(consumer.consumerId)
        const batch = yield* store.readAll(from, consumer.batchSize ?? 100, consumer.filter)
        if (batch.events.length === 0) return { events: 0, checkpoint: from }
        yield* consumer.handle(batch.events)
        yield* storeCheckpoint(consumer.consumerId, from, batch.checkpoint)
        return { events: batch.events.length, checkpoint: batch.checkpoint }
      })
    )
  }).pipe(
    Effect.catchTag("SqlError", Effect.die),
    withSpan("EventStore.processNextBatch", { attributes: { consumerId: consumer.consumerId } })
  )

/**
 * Processes batches until the consumer has read everything visible now (or another instance is processing);
 * answers how many events it handled. Tests use it to wait for a consumer instead of sleeping.
 */
export const catchUp = <E, R>(
  consumer: Consumer<E, R>
): Effect.Effect<number, E, R | PostgresEventStore | SqlClient.SqlClient> =>
  Effect.iterate(
    { total: 0, done: false },
    {
      while: (state) => !state.done,
      body: (state) =>
        processNextBatch(consumer).pipe(
          Effect.map((batch) => ({ total: state.total + batch.events, done: batch.events === 0 })),
          Effect.catchTag("CheckpointConflict", () => Effect.succeed({ total: state.total, done: true }))
        )
    }
  ).pipe(Effect.map((state) => state.total))

/**
 * Runs a consumer forever: batch after batch, polling every `pollInterval` (default 50 ms) once caught up.
 * Several replicas may run the same consumer: one at a time holds the checkpoint row, the others skip the round.
 */
export const runConsumer = <E, R>(
  consumer: Consumer<E, R> & { readonly pollInterval?: Duration.DurationInput }
): Effect.Effect<never, E, R | PostgresEventStore | SqlClient.SqlClient> =>
  processNextBatch(consumer).pipe(
    Effect.flatMap((batch) => (batch.events === 0 ? Effect.sleep(consumer.pollInterval ?? "50 millis") : Effect.void)),
    Effect.catchTag("CheckpointConflict", () => Effect.sleep(consumer.pollInterval ?? "50 millis")),
    Effect.forever
  )
