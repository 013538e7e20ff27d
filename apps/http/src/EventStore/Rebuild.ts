import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { type EventRow, eventColumns, toRecordedEvent } from "./EventRows.js"
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
 * every stored event in global-position order, `batchSize` events (default 1000) per transaction, so the cost
 * of a commit is paid once per batch rather than once per event.
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
    const batchSize = options.batchSize ?? 1000
    yield* lockForRebuild(projections.map((p) => p.name))
    yield* sql.withTransaction(Effect.forEach(projections, (p) => p.reset, { discard: true }))

    // Events of every type when any projection reads them all; otherwise only the types some projection reads.
    const types = projections.some((p) => p.eventTypes === undefined)
      ? null
      : [...new Set(projections.flatMap((p) => p.eventTypes ?? []))]

    let after = 0n
    let events = 0
    let batches = 0
    while (true) {
      const read = yield* sql.withTransaction(
        Effect.gen(function* () {
          const rows = yield* sql<EventRow>`
            SELECT ${eventColumns(sql)} FROM hd_events
            WHERE global_position > ${after}
              ${types === null ? sql`` : sql`AND event_type = ANY(${types}::text[])`}
            ORDER BY global_position
            LIMIT ${batchSize}`
          const batch = rows.map(toRecordedEvent)
          for (const projection of projections) {
            const mine = eventsFor(projection, batch)
            if (mine.length > 0) yield* projection.apply(mine)
          }
          return batch
        })
      )
      if (read.length === 0) break
      events += read.length
      batches += 1
      after = read[read.length - 1]!.globalPosition
      if (read.length < batchSize) break
    }
    return { events, batches }
  }).pipe(
    Effect.scoped,
    Effect.catchTag("SqlError", Effect.die),
    Effect.withSpan("EventStore.rebuildProjections", { attributes: { projections: projections.map((p) => p.name) } })
  )

/** Takes each projection's rebuild lock (in name order) for the current scope, or fails if one is held. */
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
