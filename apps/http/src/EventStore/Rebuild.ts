import { SqlClient, type SqlError } from "@effect/sql"
import type { RecordedEvent } from "@helpdesk/domain"
import { Effect, Fiber, Schema } from "effect"
import { withSpan } from "../Observability/Spans.js"
import { eventValueColumns, valuesToRecordedEvent } from "./EventRows.js"
import { eventsFor, type InlineProjection } from "./InlineProjection.js"

/** Another process is rebuilding one of these projections. */
export class RebuildInProgress extends Schema.TaggedError<RebuildInProgress>()("RebuildInProgress", {
  projection: Schema.String
}) {
  override get message() {
    return `projection ${this.projection} is already being rebuilt`
  }
}

/** What a rebuild did. */
export interface RebuildResult {
  readonly events: number
  readonly batches: number
}

/**
 * Rebuilds projections from the whole log (docs/decisions/0303-projection-rebuild.md): resets them, then replays
 * every stored event in global-position order, `batchSize` events (default 5000) per transaction, so the cost
 * of a commit is paid once per batch rather than once per event. A projection with a `Replayer` has the next batch
 * prepared (folded) while the previous batch's transaction is written; transactions run one at a time, in order,
 * and a failing batch rolls back only itself and ends the rebuild.
 *
 * Only one rebuild of a projection runs at a time (a session advisory lock per projection, held on a connection
 * reserved for the rebuild). Appends may continue meanwhile: their inline projections run after the reset and,
 * being idempotent by stream position and able to fold a stream from its start, agree with the replay. Readers
 * of the read model see it incomplete until the rebuild ends.
 *
 * The replay reads by global position, not through the transaction-id filter of consumers: every event committed
 * before the reset is visible to every batch, and an event committed after it was projected by its own append.
 */
export const rebuildProjections = (
  projections: ReadonlyArray<InlineProjection>,
  options: { readonly batchSize?: number } = {}
): Effect.Effect<RebuildResult, RebuildInProgress, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const batchSize = options.batchSize ?? 5000
    yield* lockForRebuild(projections.map((p) => p.name))
    yield* sql.withTransaction(Effect.forEach(projections, (p) => p.reset, { discard: true }))

    // Events of every type when any projection reads them all; otherwise only the types some projection reads.
    const types = projections.some((p) => p.eventTypes === undefined)
      ? null
      : [...new Set(projections.flatMap((p) => p.eventTypes ?? []))]

    const readAfter = (after: bigint) =>
      sql`
        SELECT ${eventValueColumns(sql)} FROM hd_events
        WHERE global_position > ${after}
          ${types === null ? sql`` : sql`AND event_type = ANY(${types}::text[])`}
        ORDER BY global_position
        LIMIT ${batchSize}`.values.pipe(Effect.map((rows) => rows.map(valuesToRecordedEvent)))

    const replayers = projections.map((projection) => projection.replayer?.())
    /** A batch's writes: a replayer prepares them now (outside any transaction); `apply` runs in the transaction. */
    const prepare = (batch: ReadonlyArray<RecordedEvent>) =>
      Effect.forEach(projections, (projection, i) => {
        const mine = eventsFor(projection, batch)
        if (mine.length === 0) return Effect.succeed(Effect.void)
        const replayer = replayers[i]
        return replayer === undefined ? Effect.succeed(projection.apply(mine)) : replayer.prepare(mine)
      })

    let events = 0
    let batches = 0
    // Three stages overlap: the next batch is read and the current one prepared (folded) while the previous
    // batch's transaction is written. Transactions still run one at a time, in order.
    let next = yield* Effect.fork(readAfter(0n))
    let writing: Fiber.Fiber<void, SqlError.SqlError> | undefined
    while (true) {
      const batch = yield* Fiber.join(next)
      if (batch.length === 0) break
      const full = batch.length === batchSize
      if (full) next = yield* Effect.fork(readAfter(batch[batch.length - 1]!.globalPosition))
      // A batch that cannot be prepared ends the rebuild, but the previous batch's transaction finishes first.
      const writes = yield* prepare(batch).pipe(
        Effect.tapErrorCause(() => (writing === undefined ? Effect.void : Fiber.await(writing)))
      )
      if (writing !== undefined) yield* Fiber.join(writing)
      writing = yield* Effect.fork(sql.withTransaction(Effect.all(writes, { discard: true })))
      events += batch.length
      batches += 1
      if (!full) break
    }
    if (writing !== undefined) yield* Fiber.join(writing)
    return { events, batches }
  }).pipe(
    Effect.scoped,
    Effect.catchTag("SqlError", Effect.die),
    withSpan("EventStore.rebuildProjections", { attributes: { projections: projections.map((p) => p.name) } })
  )

/**
 * Takes each projection's rebuild lock (in name order) for the current scope, or fails if one is held. The lock
 * holds a reserved connection, so a rebuild needs a pool of at least two.
 */
const lockForRebuild = (names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const connection = yield* sql.reserve
    for (const name of [...names].sort()) {
      const key = `hd_rebuild:${name}`
      const rows = yield* connection.executeValues("SELECT pg_try_advisory_lock(hashtext($1))", [key])
      if (rows[0]?.[0] !== true) return yield* new RebuildInProgress({ projection: name })
      yield* Effect.addFinalizer(() =>
        connection.executeValues("SELECT pg_advisory_unlock(hashtext($1))", [key]).pipe(Effect.ignore)
      )
    }
  })
