import { SqlClient, SqlError } from "@effect/sql"
import {
  type EventDecodeError,
  evolveAll,
  fromRecordedEvents,
  type LoadedTicket,
  type RecordedEvent,
  StreamVersionConflict,
  streamAppendOf,
  TICKET_STATE_VERSION,
  type TicketEvent,
  TicketStore,
  type TicketWrite,
  ticketStreamId,
  type WriteOptions
} from "@helpdesk/domain"
import { type DateTime, Effect, Either, Layer } from "effect"
import { type EventRow, eventColumns, toRecordedEvent } from "../../EventStore/EventRows.js"
import { PostgresEventStore, PostgresEventStoreLive } from "../../EventStore/PostgresEventStore.js"
import { withSpan } from "../../Observability/Spans.js"
import { waitingSinceAfter } from "../ReadModel/WaitingSince.js"
import { TicketAppendRowsRegistered } from "./TicketAppendRows.js"
import {
  decodeSnapshot,
  emptyFold,
  snapshotVersionAfter,
  type TicketFold,
  type TicketHandover
} from "./TicketSnapshot.js"

/**
 * Where a load found the ticket's state before reading the events after it: `memory` is the fold kept in memory,
 * taken without any statement (its append proves it); `cache` is that fold checked under the stream's lock.
 */
export type FoldSource = "memory" | "cache" | "snapshot" | "stream" | "none"

/** A ticket as {@link PostgresTicketStore} loads it: the domain's loaded ticket plus the projection's fold. */
export interface LoadedFold extends LoadedTicket, TicketFold {
  readonly streamId: string
  /** Where the fold started from, and how many events were read and folded after it (for tests and traces). */
  readonly source: FoldSource
  readonly eventsRead: number
  /**
   * For a fold taken from memory unchecked (`memory`), the id of the event it ends with: its append goes through only
   * if the stream still ends with that event. `null` when the load checked the fold under the stream's lock.
   */
  readonly lastEventIdToCheck: string | null
}

/** A fold kept in memory, with the id of its last event (what proves it is still the stream's prefix). */
interface CachedFold extends TicketFold {
  readonly lastEventId: string
}

/** Folds kept in memory at most (least recently used dropped first). */
export const FOLD_CACHE_SIZE = 1000

/** How long after a lost race the writes of a stream lock it rather than decide on the fold in memory. */
export const CONTENDED_FOR_MS = 1000

const waitingSinceOf = (since: DateTime.Utc | null, events: ReadonlyArray<TicketEvent>): DateTime.Utc | null => {
  let at = since
  for (const event of events) at = waitingSinceAfter(at, event)
  return at
}

/** `base` evolved with the stream's next events (decoded, upcast as needed). */
const foldOnto = (
  base: TicketFold,
  recorded: ReadonlyArray<RecordedEvent>
): Either.Either<TicketFold, EventDecodeError> =>
  recorded.length === 0
    ? Either.right(base)
    : Either.map(fromRecordedEvents(recorded), (events) => ({
        state: evolveAll(events, base.state),
        version: recorded[recorded.length - 1]!.streamPosition,
        waitingSince: waitingSinceOf(base.waitingSince, events),
        snapshotVersion: base.snapshotVersion
      }))

const isFold = (loaded: LoadedTicket): loaded is LoadedFold =>
  "snapshotVersion" in loaded && "waitingSince" in loaded && "lastEventIdToCheck" in loaded

/**
 * The service's {@link TicketStore} (docs/decisions/0305-one-command-pipeline.md): the storage side of the one
 * command pipeline every ticket write goes through.
 *
 * - `load` runs inside the write's transaction (docs/decisions/0815-optimistic-writes-from-memory.md). A ticket whose
 *   fold this process keeps in memory is answered from it, with no statement, and its append proves the fold: it goes
 *   through only if the stream still ends with the fold's last event at the fold's version (a rolled-back write, or a
 *   write of another replica, makes it a version conflict, and the pipeline tries again). After such a lost race, and
 *   for a ticket not in memory, `load` is `loadMany`'s.
 * - `loadMany` locks the stream rows (`SELECT … FOR UPDATE`), so writers of one ticket queue instead of conflicting,
 *   and then folds only what it has not folded yet: the fold kept in memory (trusted only while the stream still holds
 *   its last event at its version), else the stream's snapshot row (ignored when made by another
 *   `TICKET_STATE_VERSION`), else nothing; plus the events after it.
 * - `append` appends through {@link PostgresEventStore}, handing each stream's fold to the inline projections, which
 *   evolve it with the new events (and write a snapshot when one is due) without reading the stream.
 */
export class PostgresTicketStore extends Effect.Service<PostgresTicketStore>()(
  "@helpdesk/http/Tickets/Store/PostgresTicketStore",
  {
    // The port and the store beside it; their inline projections are chosen where this is built.
    dependencies: [PostgresEventStoreLive],
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const events = yield* PostgresEventStore
      const appendRows = yield* TicketAppendRowsRegistered
      const cache = new Map<string, CachedFold>()

      const remember = (streamId: string, fold: CachedFold) => {
        cache.delete(streamId)
        cache.set(streamId, fold)
        if (cache.size > FOLD_CACHE_SIZE) cache.delete(cache.keys().next().value!)
      }

      // Streams that lost a race lately, with the time until which their writes lock rather than trust memory: one
      // lost race per concurrent writer, then they queue on the row instead of losing again to each other.
      const contendedUntil = new Map<string, number>()
      const isContended = (streamId: string) => {
        const until = contendedUntil.get(streamId)
        if (until === undefined) return false
        if (until > Date.now()) return true
        contendedUntil.delete(streamId)
        return false
      }
      const markContended = (streamId: string) => {
        contendedUntil.delete(streamId)
        contendedUntil.set(streamId, Date.now() + CONTENDED_FOR_MS)
        if (contendedUntil.size > FOLD_CACHE_SIZE) contendedUntil.delete(contendedUntil.keys().next().value!)
      }

      /** Events of each stream from its position (inclusive), by stream, in stream order: one query. */
      const readFrom = (from: ReadonlyArray<readonly [streamId: string, position: number]>) =>
        from.length === 0
          ? Effect.succeed(new Map<string, Array<RecordedEvent>>())
          : sql<EventRow>`
            SELECT ${eventColumns(sql)} FROM hd_events
            JOIN unnest(${from.map(([id]) => id)}::text[], ${from.map(([, p]) => p)}::bigint[]) AS f(sid, position)
              ON stream_id = f.sid AND stream_position >= f.position
            ORDER BY stream_id, stream_position`.pipe(
              Effect.map((rows) => {
                const streams = new Map<string, Array<RecordedEvent>>()
                for (const row of rows) {
                  const list = streams.get(row.streamId)
                  if (list === undefined) streams.set(row.streamId, [toRecordedEvent(row)])
                  else list.push(toRecordedEvent(row))
                }
                return streams
              })
            )

      /** Where a stream's fold starts: the cached fold, the snapshot, or nothing; and the position to read from. */
      interface Start {
        readonly base: TicketFold
        readonly source: FoldSource
        readonly from: number
        readonly lastEventId: string | null
      }

      const loadMany = (
        ticketIds: ReadonlyArray<number>
      ): Effect.Effect<ReadonlyArray<Either.Either<LoadedFold, EventDecodeError>>> =>
        Effect.gen(function* () {
          const streamIds = ticketIds.map(ticketStreamId)
          // The folds as they were when the query was sent: another fiber of this process may replace them while this
          // load waits for a lock, and the query checks these.
          const cachedFolds = new Map(streamIds.map((id) => [id, cache.get(id)]))
          const cachedVersions = streamIds.map((id) => cachedFolds.get(id)?.version ?? 0)
          // The locks (in stream-id order), each stream's version, and whether a cached fold's last event is still
          // the stream's: one query.
          // One stream (every write but a merge) by its key: a plan PostgreSQL keeps, where the array's unknown length
          // has it plan the general form again on every execution.
          const rows = yield* streamIds.length === 1
            ? sql<{ streamId: string; version: string; eventId: string | null }>`
          SELECT s.stream_id, s.version, e.event_id
          FROM hd_streams s
          LEFT JOIN hd_events e ON e.stream_id = s.stream_id AND e.stream_position = ${cachedVersions[0]!}
          WHERE s.stream_id = ${streamIds[0]!}
          FOR UPDATE OF s`
            : sql<{ streamId: string; version: string; eventId: string | null }>`
          SELECT s.stream_id, s.version, e.event_id
          FROM unnest(${streamIds}::text[], ${cachedVersions}::bigint[]) AS c(sid, cached)
          JOIN hd_streams s ON s.stream_id = c.sid
          LEFT JOIN hd_events e ON e.stream_id = c.sid AND e.stream_position = c.cached
          ORDER BY s.stream_id
          FOR UPDATE OF s`
          const found = new Map(rows.map((row) => [row.streamId, row]))
          const starts = new Map<string, Start>()
          const cold: Array<string> = []
          for (const streamId of streamIds) {
            const row = found.get(streamId)
            const cached = cachedFolds.get(streamId)
            if (row === undefined) cache.delete(streamId)
            else if (
              cached !== undefined &&
              cached.version <= Number(row.version) &&
              row.eventId === cached.lastEventId
            )
              starts.set(streamId, {
                base: cached,
                source: "cache",
                from: cached.version + 1,
                lastEventId: cached.lastEventId
              })
            else cold.push(streamId)
          }
          if (cold.length > 0) {
            const snapshots = yield* sql<{ streamId: string; version: string; schemaVersion: number; state: string }>`
            SELECT stream_id, version, schema_version, state::text AS state FROM hd_ticket_snapshots
            WHERE stream_id = ANY(${cold}::text[])`
            const byStream = new Map(snapshots.map((snapshot) => [snapshot.streamId, snapshot]))
            for (const streamId of cold) {
              const snapshot = byStream.get(streamId)
              const version = Number(found.get(streamId)!.version)
              const usable =
                snapshot !== undefined &&
                snapshot.schemaVersion === TICKET_STATE_VERSION &&
                Number(snapshot.version) <= version
              const base: TicketFold = usable
                ? {
                    ...decodeSnapshot(snapshot.state),
                    version: Number(snapshot.version),
                    snapshotVersion: Number(snapshot.version)
                  }
                : emptyFold
              // From the snapshot's own event on, for the id of the last event folded.
              starts.set(streamId, {
                base,
                source: usable ? "snapshot" : "stream",
                from: Math.max(base.version, 1),
                lastEventId: null
              })
            }
          }
          const toRead: Array<readonly [string, number]> = []
          for (const [streamId, start] of starts) {
            if (start.from <= Number(found.get(streamId)!.version)) toRead.push([streamId, start.from])
          }
          const read = yield* readFrom(toRead)
          return streamIds.map((streamId): Either.Either<LoadedFold, EventDecodeError> => {
            const start = starts.get(streamId)
            if (start === undefined)
              return Either.right({ ...emptyFold, streamId, source: "none", eventsRead: 0, lastEventIdToCheck: null })
            const events = read.get(streamId) ?? []
            const tail = events.filter((e) => e.streamPosition > start.base.version)
            return Either.map(foldOnto(start.base, tail), (fold) => {
              const lastEventId = events[events.length - 1]?.eventId ?? start.lastEventId
              if (lastEventId !== null && (tail.length > 0 || start.source !== "cache"))
                remember(streamId, { ...fold, lastEventId })
              return { ...fold, streamId, source: start.source, eventsRead: tail.length, lastEventIdToCheck: null }
            })
          })
        }).pipe(
          Effect.catchTag("SqlError", Effect.die),
          withSpan("PostgresTicketStore.loadMany", { attributes: { tickets: ticketIds.length } })
        )

      const load = (ticketId: number): Effect.Effect<LoadedFold, EventDecodeError> => {
        const streamId = ticketStreamId(ticketId)
        const cached = cache.get(streamId)
        if (cached === undefined || isContended(streamId)) {
          // Writers that keep coming keep the stream contended: they queue on its lock until it quietens.
          if (cached !== undefined) markContended(streamId)
          return Effect.flatMap(loadMany([ticketId]), (loaded) => loaded[0]!)
        }
        const { lastEventId, ...fold } = cached
        return Effect.succeed({ ...fold, streamId, source: "memory", eventsRead: 0, lastEventIdToCheck: lastEventId })
      }

      /** A fold taken from memory is still the stream's: it ends with the stream's last event (one statement). */
      const confirm = (loaded: LoadedTicket): Effect.Effect<void, StreamVersionConflict> => {
        if (!isFold(loaded) || loaded.lastEventIdToCheck === null) return Effect.void
        const { streamId } = loaded
        return sql<{ version: string; eventId: string | null }>`
          SELECT s.version, e.event_id FROM hd_streams s
          LEFT JOIN hd_events e ON e.stream_id = s.stream_id AND e.stream_position = s.version
          WHERE s.stream_id = ${streamId}`.pipe(
          Effect.orDie,
          Effect.flatMap(([row]) => {
            if (
              row !== undefined &&
              Number(row.version) === loaded.version &&
              row.eventId === loaded.lastEventIdToCheck
            )
              return Effect.void
            markContended(streamId)
            return Effect.fail(
              new StreamVersionConflict({
                streamId,
                expected: String(loaded.version),
                actual: row === undefined ? null : Number(row.version)
              })
            )
          }),
          withSpan("PostgresTicketStore.confirm")
        )
      }

      const append = (writes: ReadonlyArray<TicketWrite>, options: WriteOptions) =>
        Effect.gen(function* () {
          const appends = writes.map((write) => streamAppendOf(write, options))
          const folds = new Map<string, TicketHandover>()
          const lastEventIds = new Map<string, string>()
          for (const write of writes) {
            if (!isFold(write.before)) continue
            const streamId = ticketStreamId(write.ticketId)
            folds.set(streamId, { before: write.before, events: write.events, after: write.after })
            if (write.before.lastEventIdToCheck !== null) lastEventIds.set(streamId, write.before.lastEventIdToCheck)
          }
          // Always inside `transaction` (the pipeline's unit of work): no savepoint of the event store's own.
          const results = yield* events
            .append(
              appends,
              { folds },
              {
                inTransaction: true,
                lastEventIds,
                ...(appendRows.length === 0
                  ? {}
                  : { alsoWrite: (appended) => appendRows.flatMap((implied) => implied.rows(sql, writes, appended)) })
              }
            )
            .pipe(
              Effect.tapErrorTag("StreamVersionConflict", (lost) => Effect.sync(() => markContended(lost.streamId))),
              // Closed by a merge this process did not see: the pipeline decides again on the state read afresh.
              Effect.tapErrorTag("StreamClosed", (closed) => Effect.sync(() => cache.delete(closed.streamId)))
            )
          writes.forEach((write, i) => {
            const appended = appends[i]!.events
            const last = appended[appended.length - 1]
            const streamId = ticketStreamId(write.ticketId)
            if (last === undefined || !isFold(write.before)) {
              cache.delete(streamId)
              return
            }
            const version = results[i]!.version
            // Trusted by the next load only if this transaction commits (its last event is then the stream's).
            remember(streamId, {
              state: write.after,
              version,
              waitingSince: waitingSinceOf(write.before.waitingSince, write.events),
              snapshotVersion: snapshotVersionAfter(write.before.snapshotVersion, version, write.after),
              lastEventId: last.eventId
            })
          })
          return results
        }).pipe(withSpan("PostgresTicketStore.append"))

      const transaction = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        sql
          .withTransaction(self)
          .pipe(
            Effect.catchIf(
              (error): error is Extract<E | SqlError.SqlError, SqlError.SqlError> => error instanceof SqlError.SqlError,
              Effect.die
            )
          ) as Effect.Effect<A, E, R>

      /** Forgets every fold kept in memory (tests; after restoring a database). */
      const forget = Effect.sync(() => cache.clear())

      return { load, loadMany, confirm, append, transaction, forget } as const
    })
  }
) {}

/**
 * The domain's {@link TicketStore}, served by {@link PostgresTicketStore} (which it also provides), on the
 * context's {@link PostgresEventStore} (whose inline projections the appends run).
 */
export const PostgresTicketStoreLive: Layer.Layer<
  TicketStore | PostgresTicketStore,
  never,
  SqlClient.SqlClient | PostgresEventStore
> = Layer.effect(
  TicketStore,
  Effect.map(PostgresTicketStore, (store) =>
    TicketStore.of({
      load: store.load,
      loadMany: store.loadMany,
      confirm: store.confirm,
      append: store.append,
      transaction: store.transaction
    })
  )
).pipe(Layer.provideMerge(PostgresTicketStore.Default))
