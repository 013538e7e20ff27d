import type { SqlClient, SqlError, Statement } from "@effect/sql"
import type { RecordedEvent, StreamAppend } from "@helpdesk/domain"
import { Context, type Effect, Layer } from "effect"

/**
 * What the writer of an append already knows: for some of its streams, the stream folded up to the version the
 * append expected (in the form the stream's projection defines, e.g. `TicketFold`), so a projection can evolve it
 * with only the new events instead of reading the stream (docs/decisions/0305-one-command-pipeline.md).
 */
export interface AppendContext {
  readonly folds: ReadonlyMap<string, unknown>
  /**
   * What each projection's {@link InlineProjection.readWithAppend} read in the append's statement, by projection name
   * (absent when it asked for nothing, or the append was made some other way).
   */
  readonly reads?: ReadonlyMap<string, unknown>
}

/**
 * A read model kept up to date inside the append transaction: after the events of an append are stored,
 * `apply` receives them (every stream of the append, in stream order) and writes its rows with the same
 * SQL client, so a read after a write sees it and a failed projection rolls the append back.
 *
 * `apply` must be idempotent and tolerate events it has already seen or a stream whose earlier events it has
 * not seen (after a reset, during a rebuild): the usual way is to keep the last applied stream position on
 * each row, skip events at or below it, and fold the stream from its start when the row is behind — unless the
 * writer handed over the stream's fold in the {@link AppendContext}.
 */
export interface InlineProjection {
  /** A stable name (used for the rebuild lock and in logs). */
  readonly name: string
  /** The event types it reads; others are not passed to it. Omitted: every event. */
  readonly eventTypes?: ReadonlyArray<string>
  readonly apply: (
    events: ReadonlyArray<RecordedEvent>,
    context?: AppendContext
  ) => Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
  /**
   * Optional: what `apply` is about to read, as one SQL expression (a scalar subquery) that the event store sends in
   * the append's own statement, so the read costs no round trip of its own. It sees the database as that statement
   * starts: without the new events (of an append of several streams, it goes with the last stream's, after the
   * others). Its value reaches `apply` as `context.reads.get(name)`. `undefined`: no read for this append.
   */
  readonly readWithAppend?: (
    sql: SqlClient.SqlClient,
    streamIds: ReadonlyArray<string>,
    context: AppendContext | undefined
  ) => Statement.Fragment | undefined
  /**
   * Optional: the projection's writes for some streams of an append, made in the append's own statement (a round
   * trip fewer), for what it can write from the append and its context alone (a writer's handover). They are common
   * table expressions (`<name> AS (<statement>)`, names starting with the projection's name) that must write nothing
   * unless `appended` (an SQL condition: the append went through) holds, and must not need to see the append's rows.
   * Answers the streams written, whose events `apply` then does not receive; `undefined`: none.
   */
  readonly writeWithAppend?: (
    sql: SqlClient.SqlClient,
    appends: ReadonlyArray<StreamAppend>,
    context: AppendContext | undefined,
    appended: Statement.Fragment
  ) => WritesWithAppend | undefined
  /** Removes every row it maintains, before a rebuild replays the log into it. */
  readonly reset: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
  /**
   * Optional, for rebuilds: a fresh {@link Replayer} for one rebuild. Without it a rebuild calls `apply` with each
   * batch inside the batch's transaction.
   */
  readonly replayer?: () => Replayer
}

/** What {@link InlineProjection.writeWithAppend} writes in the append's statement, and for which streams. */
export interface WritesWithAppend {
  readonly expressions: ReadonlyArray<Statement.Fragment>
  readonly streamIds: ReadonlySet<string>
}

/**
 * What a projection does with the batches of one rebuild (docs/decisions/0303-projection-rebuild.md). `prepare`
 * receives every batch once, in global order, one after the other; it may keep what it folded in memory for the
 * next batches and may read the event log, but writes nothing: it returns the batch's writes, which the rebuild
 * runs in the batch's own transaction once the previous batch's transaction has committed, while it prepares the
 * next batch. The writes must be as idempotent as `apply`'s (appends continue during a rebuild).
 */
export interface Replayer {
  readonly prepare: (
    events: ReadonlyArray<RecordedEvent>
  ) => Effect.Effect<
    Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>,
    SqlError.SqlError,
    SqlClient.SqlClient
  >
}

/** The events of a batch that a projection reads, in the batch's order. */
export const eventsFor = (
  projection: InlineProjection,
  events: ReadonlyArray<RecordedEvent>
): ReadonlyArray<RecordedEvent> => {
  const types = projection.eventTypes
  if (types === undefined) return events
  return events.filter((event) => types.includes(event.type))
}

/**
 * The inline projections the event store runs in every append transaction, in order. None by default; the
 * application provides its read models with {@link InlineProjections.layer}.
 */
export class InlineProjections extends Context.Reference<InlineProjections>()(
  "@helpdesk/http/EventStore/InlineProjections",
  { defaultValue: (): ReadonlyArray<InlineProjection> => [] }
) {
  /** Registers these projections (replacing any registered before). */
  static layer(projections: ReadonlyArray<InlineProjection>): Layer.Layer<InlineProjections> {
    return Layer.succeed(InlineProjections, projections)
  }
}
