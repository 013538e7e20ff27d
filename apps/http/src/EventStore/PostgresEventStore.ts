import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import {
  type AppendResult,
  EventStore,
  type GlobalCheckpoint,
  GlobalCheckpointStart,
  type GlobalLogBatch,
  type OrganizationId,
  type RecordedEvent,
  type StreamAppend,
  StreamClosed,
  StreamVersionConflict,
  showExpectedVersion
} from "@helpdesk/domain"
import { Effect, Layer, Metric, Option } from "effect"
import { eventAppendDuration } from "../Observability/Metrics.js"
import { withSpan } from "../Observability/Spans.js"
import { checkpointFromRow, positionOf } from "./Checkpoint.js"
import { type EventRow, eventColumns, eventValueColumns, toRecordedEvent, valuesToRecordedEvent } from "./EventRows.js"
import { type AppendContext, eventsFor, InlineProjections } from "./InlineProjection.js"

/** What a reader of the global log narrows it to (every field optional: absent means no narrowing). */
export interface GlobalLogFilter {
  /** Only events of this organization's streams (`hd_events.organization_id`, migration 0096). */
  readonly organizationId?: OrganizationId
  /** Only events of these types. */
  readonly types?: ReadonlyArray<string>
}

/** What `hd_append_to_stream` answers for one stream. */
interface AppendRow {
  readonly outcome: "appended" | "conflict" | "closed"
  readonly version: string | null
  readonly globalPositions: ReadonlyArray<string>
  readonly transactionId: string | null
  readonly createdAt: Date | null
}

/** A stream's row: its version and whether it is closed for writes. */
export interface StreamState {
  readonly streamType: string
  readonly version: number
  readonly isClosed: boolean
}

const UNIQUE_VIOLATION = "23505"

const isUniqueViolation = (error: SqlError.SqlError): boolean =>
  (error.cause as { code?: unknown } | undefined)?.code === UNIQUE_VIOLATION

/** The last checkpoint of a batch, or `fallback` for an empty one. */
const checkpointAfter = (events: ReadonlyArray<RecordedEvent>, fallback: GlobalCheckpoint): GlobalCheckpoint =>
  events[events.length - 1]?.checkpoint ?? fallback

/** How {@link PostgresEventStore}'s `append` is made beyond its appends and context. */
export interface AppendOptions {
  /** The caller runs the append inside its own transaction, which is the unit that rolls back. */
  readonly inTransaction?: boolean
  /** For some streams, the id of the event the writer's fold ends with, which the append must find at its version. */
  readonly lastEventIds?: ReadonlyMap<string, string>
  /**
   * Rows the writer's append implies (e.g. outbox rows), as common table expressions made in the append's statement
   * like the projections' `writeWithAppend`: each must write nothing unless `appended` holds.
   */
  readonly alsoWrite?: (appended: Statement.Fragment) => ReadonlyArray<Statement.Fragment>
}

/**
 * The event store on PostgreSQL (docs/decisions/0300-event-store-append.md, 0301-global-log-by-transaction-id.md).
 *
 * - `append`: per stream, in stream-id order (so concurrent multi-stream appends cannot deadlock), one call of
 *   `hd_append_to_stream`, which compare-and-sets the stream row and then inserts every event in one statement;
 *   then the registered {@link InlineProjections}; all in one transaction. A single-stream append with no
 *   inline projection is one statement, hence one round trip.
 * - `readAll`: the global log in (transaction id, global position) order, limited to transactions that no
 *   running transaction can precede, so a reader never skips an event that commits late.
 *
 * Database failures are defects: the port's error channel holds only what a caller can act on.
 */
export class PostgresEventStore extends Effect.Service<PostgresEventStore>()(
  "@helpdesk/http/EventStore/PostgresEventStore",
  {
    // Its `InlineProjections` are chosen where it is built (the service: the ticket read models; tests: their own).
    dependencies: [],
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const projections = yield* InlineProjections
      /** The condition of the projections' writes made with an append: the append (the `appended` row) went through. */
      const APPENDED = sql.literal("EXISTS (SELECT 1 FROM appended WHERE outcome = 'appended')")

      const streamState = (streamId: string): Effect.Effect<Option.Option<StreamState>> =>
        sql<{ streamType: string; version: string; isClosed: boolean }>`
        SELECT stream_type, version, is_closed FROM hd_streams WHERE stream_id = ${streamId}`.pipe(
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row) => ({
              streamType: row.streamType,
              version: Number(row.version),
              isClosed: row.isClosed
            }))
          ),
          Effect.orDie,
          withSpan("PostgresEventStore.streamState")
        )

      const conflictOn = (append: StreamAppend) =>
        Effect.flatMap(streamState(append.streamId), (state) =>
          Effect.fail(
            new StreamVersionConflict({
              streamId: append.streamId,
              expected: showExpectedVersion(append.expected),
              actual: Option.match(state, { onNone: () => null, onSome: (s) => s.version })
            })
          )
        )

      /** A unique violation on an event id: blame the append holding an id that is stored (or repeated). */
      const duplicateEventConflict = (appends: ReadonlyArray<StreamAppend>) =>
        Effect.gen(function* () {
          const ids = appends.flatMap((a) => a.events.map((e) => e.eventId))
          const stored = yield* sql<{ eventId: string }>`
          SELECT event_id FROM hd_events WHERE event_id = ANY(${ids}::uuid[])`.pipe(Effect.orDie)
          const storedIds = new Set(stored.map((row) => row.eventId.toLowerCase()))
          const culprit =
            appends.find((a) => a.events.some((e) => storedIds.has(e.eventId.toLowerCase()))) ?? appends[0]!
          return yield* conflictOn(culprit)
        })

      /** An event id given twice within one append never reaches the database. */
      const repeatedEventId = (appends: ReadonlyArray<StreamAppend>): StreamAppend | undefined => {
        const seen = new Set<string>()
        for (const a of appends) {
          for (const e of a.events) {
            const id = e.eventId.toLowerCase()
            if (seen.has(id)) return a
            seen.add(id)
          }
        }
        return undefined
      }

      // A `jsonb[]` sent as one JSON array (decision 0318): as an array parameter, `pg` would escape every payload
      // into an array literal and PostgreSQL parse that literal before each payload.
      const jsonbArray = (values: ReadonlyArray<unknown>) =>
        sql`ARRAY(SELECT v FROM jsonb_array_elements(${JSON.stringify(values)}::jsonb) WITH ORDINALITY AS e(v, n) ORDER BY n)`

      /**
       * One stream's append; `reads` (the projections' {@link InlineProjection.readWithAppend}) come back with it as the
       * columns `read0`, `read1`, …, and `writes` (their {@link InlineProjection.writeWithAppend}) are made with it.
       */
      const appendToStream = (
        append: StreamAppend,
        reads: ReadonlyArray<Statement.Fragment>,
        writes: ReadonlyArray<Statement.Fragment>,
        lastEventId: string | undefined
      ) => {
        const expected = append.expected
        const events = append.events
        const version = expected._tag === "Exact" ? expected.version : null
        // A writer that decided on a fold it did not read under lock names the event the fold ends with: unless the
        // stream still holds it at the expected version, no version is expected (-1) and the append conflicts.
        const expectedVersion =
          lastEventId === undefined || version === null
            ? sql`${version}`
            : sql`(SELECT CASE WHEN EXISTS (SELECT 1 FROM hd_events WHERE stream_id = ${append.streamId}
                AND stream_position = ${version} AND event_id = ${lastEventId}::uuid) THEN ${version}::bigint ELSE -1 END)`
        const named = (i: number) => sql(`read${i}`)
        const readsAs = sql.join("", false)(reads.map((read, i) => sql`, ${read} AS ${named(i)}`))
        const call = sql`
          SELECT outcome, version, global_positions, transaction_id, created_at${readsAs} FROM hd_append_to_stream(
            ${append.streamId}, ${append.streamType}, ${expected._tag},
            ${expectedVersion}, ${append.close === true},
            ${events.map((e) => e.eventId)}::uuid[],
            ${events.map((e) => e.type)}::text[],
            ${events.map((e) => e.schemaVersion)}::integer[],
            ${jsonbArray(events.map((e) => e.data))},
            ${jsonbArray(events.map((e) => e.metadata ?? {}))}
          )`
        const readNames = sql.join("", false)(reads.map((_, i) => sql`, ${named(i)}`))
        const statement =
          writes.length === 0
            ? call
            : sql`
          WITH appended AS (${call}), ${sql.join(", ", false)(writes)}
          SELECT outcome, version, global_positions, transaction_id, created_at${readNames} FROM appended`
        return sql<AppendRow & Record<`read${number}`, unknown>>`${statement}`.pipe(Effect.map((rows) => rows[0]!))
      }

      const appendInOrder = (
        appends: ReadonlyArray<StreamAppend>,
        context: AppendContext | undefined,
        lastEventIds: ReadonlyMap<string, string> | undefined,
        alsoWrite: AppendOptions["alsoWrite"]
      ) =>
        Effect.gen(function* () {
          // Stable sort: parts of the same stream keep their order; rows are locked in one global order.
          const order = appends.map((_, i) => i).sort((a, b) => compareIds(appends[a]!.streamId, appends[b]!.streamId))
          const results: Array<AppendResult> = new Array(appends.length)
          const recorded: Array<RecordedEvent> = []
          // The projections' reads go with the last stream's append (one statement, whatever the number of streams).
          const streamIds = appends.map((a) => a.streamId)
          const readers: Array<{ readonly name: string; readonly read: Statement.Fragment }> = []
          for (const projection of projections) {
            const read = projection.readWithAppend?.(sql, streamIds, context)
            if (read !== undefined) readers.push({ name: projection.name, read })
          }
          // And the projections' writes that need nothing the append answers, made only if it goes through.
          const writers = new Map<string, ReadonlySet<string>>()
          const writes: Array<Statement.Fragment> = []
          for (const projection of projections) {
            const written = projection.writeWithAppend?.(sql, appends, context, APPENDED)
            if (written === undefined || written.streamIds.size === 0) continue
            writers.set(projection.name, written.streamIds)
            writes.push(...written.expressions)
          }
          if (alsoWrite !== undefined) writes.push(...alsoWrite(APPENDED))
          const reads = new Map<string, unknown>()
          for (const i of order) {
            const append = appends[i]!
            const isLast = i === order[order.length - 1]
            const row = yield* appendToStream(
              append,
              isLast ? readers.map((r) => r.read) : [],
              isLast ? writes : [],
              lastEventIds?.get(append.streamId)
            )
            if (isLast) for (const [k, reader] of readers.entries()) reads.set(reader.name, row[`read${k}`])
            if (row.outcome === "closed") return yield* new StreamClosed({ streamId: append.streamId })
            if (row.outcome === "conflict") {
              return yield* new StreamVersionConflict({
                streamId: append.streamId,
                expected: showExpectedVersion(append.expected),
                actual: row.version === null ? null : Number(row.version)
              })
            }
            const version = Number(row.version)
            const positions = row.globalPositions
            const first = version - append.events.length
            append.events.forEach((event, k) => {
              recorded.push({
                eventId: event.eventId,
                type: event.type,
                schemaVersion: event.schemaVersion,
                data: event.data,
                metadata: event.metadata ?? {},
                streamId: append.streamId,
                streamPosition: first + k + 1,
                globalPosition: BigInt(positions[k]!),
                checkpoint: checkpointFromRow(row.transactionId!, positions[k]!),
                createdAt: row.createdAt!
              })
            })
            const last = positions[positions.length - 1]
            results[i] = {
              streamId: append.streamId,
              version,
              lastGlobalPosition: last === undefined ? 0n : BigInt(last)
            }
          }
          const withReads: AppendContext = { folds: context?.folds ?? new Map(), reads }
          for (const projection of projections) {
            const written = writers.get(projection.name)
            const events = eventsFor(projection, recorded).filter((e) => written?.has(e.streamId) !== true)
            if (events.length > 0)
              yield* projection.apply(events, withReads).pipe(Effect.provideService(SqlClient.SqlClient, sql))
          }
          return results as ReadonlyArray<AppendResult>
        })

      /**
       * Appends atomically (see the class); `context` hands the inline projections what the writer folded.
       * `inTransaction`: the caller runs this inside its own transaction, which is the unit that rolls back (no
       * savepoint of its own, two round trips fewer; a failed statement then aborts the caller's transaction).
       * `lastEventIds`: for some streams, the id of the event the writer's fold ends with (a fold not read under the
       * stream's lock); such a stream's append goes through only if its event at the expected version is that one, and
       * otherwise fails as a {@link StreamVersionConflict}. `alsoWrite`: the writer's own rows, made with the append.
       */
      const append = (
        appends: ReadonlyArray<StreamAppend>,
        context?: AppendContext,
        options: AppendOptions = {}
      ): Effect.Effect<ReadonlyArray<AppendResult>, StreamVersionConflict | StreamClosed> => {
        if (appends.length === 0) return Effect.succeed([])
        const repeated = repeatedEventId(appends)
        if (repeated !== undefined) return conflictOn(repeated)
        // One statement is atomic on its own; anything more needs the transaction.
        const atomic =
          options.inTransaction === true || (appends.length === 1 && projections.length === 0)
            ? appendInOrder(appends, context, options.lastEventIds, options.alsoWrite)
            : sql.withTransaction(appendInOrder(appends, context, options.lastEventIds, options.alsoWrite))
        return atomic.pipe(
          Effect.catchTag("SqlError", (error) =>
            isUniqueViolation(error) ? duplicateEventConflict(appends) : Effect.die(error)
          ),
          Metric.trackDuration(eventAppendDuration),
          withSpan("PostgresEventStore.append", { attributes: { streams: appends.length } })
        )
      }

      const readStream = (streamId: string, fromPosition = 0): Effect.Effect<ReadonlyArray<RecordedEvent>> =>
        sql<EventRow>`
        SELECT ${eventColumns(sql)} FROM hd_events
        WHERE stream_id = ${streamId} AND stream_position > ${fromPosition}
        ORDER BY stream_position`.pipe(
          Effect.map((rows) => rows.map(toRecordedEvent)),
          Effect.orDie,
          withSpan("PostgresEventStore.readStream")
        )

      /**
       * The global log after `checkpoint` (see the class); `filter` narrows it to one organization's events
       * (`hd_events_organization_log_idx`) and to some event types, with the same rule, so a narrowed reader never
       * skips a late commit either.
       */
      const readAll = (
        checkpoint: GlobalCheckpoint,
        limit: number,
        filter: GlobalLogFilter = {}
      ): Effect.Effect<GlobalLogBatch> => {
        if (limit <= 0) return Effect.succeed({ events: [], checkpoint })
        const from = positionOf(checkpoint)
        // Rows as arrays of values: no object per row, no renaming of columns (a feed reads thousands a second).
        return sql`
        SELECT ${eventValueColumns(sql)} FROM hd_events
        WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
          AND (transaction_id, global_position) > (${from.transactionId}::xid8, ${from.globalPosition}::bigint)${
            filter.organizationId === undefined ? sql`` : sql` AND organization_id = ${filter.organizationId}`
          }${filter.types === undefined ? sql`` : sql` AND event_type = ANY(${filter.types}::text[])`}
        ORDER BY transaction_id, global_position
        LIMIT ${limit}`.values.pipe(
          Effect.map((rows) => {
            const events = rows.map(valuesToRecordedEvent)
            return { events, checkpoint: checkpointAfter(events, checkpoint) }
          }),
          Effect.orDie,
          withSpan("PostgresEventStore.readAll")
        )
      }

      /**
       * Where the global log (narrowed to one organization's events) ends now: the checkpoint of its last event
       * that no running transaction can precede, or the start. Every event that shows later sorts after it.
       */
      const head = (filter: { readonly organizationId?: OrganizationId } = {}): Effect.Effect<GlobalCheckpoint> =>
        sql<{ transactionId: string; globalPosition: string }>`
        SELECT transaction_id, global_position FROM hd_events
        WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())${
          filter.organizationId === undefined ? sql`` : sql` AND organization_id = ${filter.organizationId}`
        }
        ORDER BY transaction_id DESC, global_position DESC LIMIT 1`.pipe(
          Effect.map((rows) =>
            rows[0] === undefined
              ? GlobalCheckpointStart
              : checkpointFromRow(rows[0].transactionId, rows[0].globalPosition)
          ),
          Effect.orDie,
          withSpan("PostgresEventStore.head")
        )

      return { append, readStream, readAll, head, streamState } as const
    })
  }
) {}

// Code-point order, the same in every process and independent of locale, so every writer locks alike.
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** The domain's {@link EventStore} port, served by {@link PostgresEventStore} (which it also provides). */
export const PostgresEventStoreLive: Layer.Layer<EventStore | PostgresEventStore, never, SqlClient.SqlClient> =
  Layer.effect(
    EventStore,
    Effect.map(PostgresEventStore, (store) =>
      EventStore.of({
        append: (appends) => store.append(appends),
        readStream: store.readStream,
        readAll: (checkpoint, limit) => store.readAll(checkpoint, limit)
      })
    )
  ).pipe(Layer.provideMerge(PostgresEventStore.Default))
