import { SqlClient, SqlError } from "@effect/sql"
import {
  type EventDecodeError,
  evolveAll,
  fromRecordedEvents,
  type LoadedTicket,
  type RecordedEvent,
  streamAppendOf,
  TICKET_STATE_VERSION,
  type TicketEvent,
  TicketStore,
  type TicketWrite,
  ticketStreamId,
  type WriteOptions
} from "@helpdesk/domain"
import { type DateTime, Effect, Either, Layer } from "effect"
import { waitingSinceAfter } from "../Timers/WaitingSince.js"
import { PostgresEventStore } from "./PostgresEventStore.js"
import { decodeSnapshot, emptyFold, snapshotVersionAfter, type TicketFold } from "./TicketSnapshot.js"

/** Where a load found the ticket's state before reading the events after it. */
export type FoldSource = "cache" | "snapshot" | "stream" | "none"

/** A ticket as {@link PostgresTicketStore} loads it: the domain's loaded ticket plus the projection's fold. */
export interface LoadedFold extends LoadedTicket, TicketFold {
  /** Where the fold started from, and how many events were read and folded after it (for tests and traces). */
  readonly source: FoldSource
  readonly eventsRead: number
}

/** A fold kept in memory, with the id of its last event (what proves it is still the stream's prefix). */
interface CachedFold extends TicketFold {
  readonly lastEventId: string
}

/** Folds kept in memory at most (least recently used dropped first). */
export const FOLD_CACHE_SIZE = 1000

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

const isFold = (loaded: LoadedTicket): loaded is LoadedFold => "snapshotVersion" in loaded && "waitingSince" in loaded

/**
 * The service's {@link TicketStore} (docs/decisions/0305-one-command-pipeline.md): the storage side of the one
 * command pipeline every ticket write goes through.
 *
 * - `load` runs inside the write's transaction. It first locks the stream row (`SELECT … FOR UPDATE`), so writers of
 *   one ticket queue instead of conflicting, and then folds only what it has not folded yet: a fold kept in memory
 *   (trusted only while the stream still holds its last event at its version: a rolled-back write, or a write of
 *   another replica, is noticed), else the stream's snapshot row (ignored when made by another
 *   `TICKET_STATE_VERSION`), else nothing; plus the events after it.
 * - `append` appends through {@link PostgresEventStore}, handing each stream's fold to the inline projections, which
 *   evolve it with the new events (and write a snapshot when one is due) without reading the stream.
 */
export class PostgresTicketStore extends Effect.Service<PostgresTicketStore>()("@helpdesk/http/PostgresTicketStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const events = yield* PostgresEventStore
    const cache = new Map<string, CachedFold>()

    const remember = (streamId: string, fold: CachedFold) => {
      cache.delete(streamId)
      cache.set(streamId, fold)
      if (cache.size > FOLD_CACHE_SIZE) cache.delete(cache.keys().next().value!)
    }

    /** Events of the stream from `fromPosition` (inclusive). */
    const readFrom = (streamId: string, fromPosition: number) => events.readStream(streamId, fromPosition - 1)

    const load = (ticketId: number): Effect.Effect<LoadedFold, EventDecodeError> =>
      Effect.gen(function* () {
        const streamId = ticketStreamId(ticketId)
        const cached = cache.get(streamId)
        // The lock, the stream's version, and whether the cached fold's last event is still the stream's: one query.
        const rows = yield* sql<{ version: string; eventId: string | null }>`
          SELECT s.version, e.event_id FROM hd_streams s
          LEFT JOIN hd_events e ON e.stream_id = s.stream_id AND e.stream_position = ${cached?.version ?? 0}
          WHERE s.stream_id = ${streamId}
          FOR UPDATE OF s`
        const row = rows[0]
        if (row === undefined) {
          cache.delete(streamId)
          return { ...emptyFold, source: "none", eventsRead: 0 } satisfies LoadedFold
        }
        const version = Number(row.version)
        if (cached !== undefined && cached.version <= version && row.eventId === cached.lastEventId) {
          const tail = cached.version === version ? [] : yield* readFrom(streamId, cached.version + 1)
          const fold = yield* foldOnto(cached, tail)
          if (tail.length > 0) remember(streamId, { ...fold, lastEventId: tail[tail.length - 1]!.eventId })
          return { ...fold, source: "cache", eventsRead: tail.length } satisfies LoadedFold
        }
        const snapshots = yield* sql<{ version: string; schemaVersion: number; state: string }>`
          SELECT version, schema_version, state::text AS state FROM hd_ticket_snapshots WHERE stream_id = ${streamId}`
        const snapshot = snapshots[0]
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
        const read = yield* readFrom(streamId, Math.max(base.version, 1))
        const tail = base.version === 0 ? read : read.slice(1)
        const fold = yield* foldOnto(base, tail)
        const last = read[read.length - 1]
        if (last !== undefined) remember(streamId, { ...fold, lastEventId: last.eventId })
        return { ...fold, source: usable ? "snapshot" : "stream", eventsRead: tail.length } satisfies LoadedFold
      }).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("PostgresTicketStore.load", { attributes: { ticketId } })
      )

    const append = (writes: ReadonlyArray<TicketWrite>, options: WriteOptions) =>
      Effect.gen(function* () {
        const appends = writes.map((write) => streamAppendOf(write, options))
        const folds = new Map<string, TicketFold>()
        for (const write of writes) if (isFold(write.before)) folds.set(ticketStreamId(write.ticketId), write.before)
        // Always inside `transaction` (the pipeline's unit of work): no savepoint of the event store's own.
        const results = yield* events.append(appends, { folds }, { inTransaction: true })
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
            snapshotVersion: snapshotVersionAfter(write.before.snapshotVersion, version),
            lastEventId: last.eventId
          })
        })
        return results
      }).pipe(Effect.withSpan("PostgresTicketStore.append"))

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

    return { load, append, transaction, forget } as const
  })
}) {}

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
    TicketStore.of({ load: store.load, append: store.append, transaction: store.transaction })
  )
).pipe(Layer.provideMerge(PostgresTicketStore.Default))
