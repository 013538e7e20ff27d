import { Context, type Effect, Schema } from "effect"

/**
 * What the writer expects a stream's version to be when it appends.
 * - `NoStream`: the stream must not exist yet (creation).
 * - `Exact`: the stream must be at exactly `version` (optimistic concurrency after a read).
 * - `StreamExists`: any version, but the stream must already exist.
 * - `Any`: no check; appends after whatever is there (creating the stream if needed).
 */
export type ExpectedVersion =
  | { readonly _tag: "NoStream" }
  | { readonly _tag: "Exact"; readonly version: number }
  | { readonly _tag: "StreamExists" }
  | { readonly _tag: "Any" }

/** Constructors for {@link ExpectedVersion}. */
export const ExpectedVersion = {
  noStream: { _tag: "NoStream" } as ExpectedVersion,
  streamExists: { _tag: "StreamExists" } as ExpectedVersion,
  any: { _tag: "Any" } as ExpectedVersion,
  exact: (version: number): ExpectedVersion => ({ _tag: "Exact", version })
} as const

/** An event about to be stored: already encoded to JSON by its schema. */
export interface NewEvent {
  /** Unique id (UUID); appending an id twice is a conflict, which makes redelivery idempotent. */
  readonly eventId: string
  readonly type: string
  readonly schemaVersion: number
  readonly data: unknown
  readonly metadata?: Record<string, unknown>
}

/** An event as stored, with its place in its stream and in the global log. */
export interface RecordedEvent extends NewEvent {
  readonly streamId: string
  /** 1-based position within the stream; the stream's version after this event. */
  readonly streamPosition: number
  /** Position in the global log; increasing but not necessarily contiguous. */
  readonly globalPosition: bigint
  /** The global log's checkpoint just past this event: a reader resumes after it from here. */
  readonly checkpoint: GlobalCheckpoint
  readonly createdAt: Date
}

/** One stream's part of an append. */
export interface StreamAppend {
  readonly streamId: string
  readonly streamType: string
  readonly expected: ExpectedVersion
  readonly events: ReadonlyArray<NewEvent>
  /** Close the stream for further writes after these events (a merged-away ticket). */
  readonly close?: boolean
}

/** Where a stream stands after an append. */
export interface AppendResult {
  readonly streamId: string
  readonly version: number
  readonly lastGlobalPosition: bigint
}

/**
 * A global-log reader's position: past every event the log orders before it. Opaque: only the store that wrote
 * it knows what is inside; readers keep it, store it as the string it is and hand it back to the same store.
 */
export const GlobalCheckpoint = Schema.String.pipe(
  Schema.brand("GlobalCheckpoint"),
  Schema.annotations({ identifier: "GlobalCheckpoint" })
)

/** A global-log reader's position (see the schema of the same name). */
export type GlobalCheckpoint = typeof GlobalCheckpoint.Type

/** The checkpoint before any event, the same for every store: the empty string. */
export const GlobalCheckpointStart: GlobalCheckpoint = GlobalCheckpoint.make("")

/** A batch of the global log and the checkpoint after it. */
export interface GlobalLogBatch {
  readonly events: ReadonlyArray<RecordedEvent>
  readonly checkpoint: GlobalCheckpoint
}

/** The stream was not at the expected version (or an event id was already stored). */
export class StreamVersionConflict extends Schema.TaggedError<StreamVersionConflict>()("StreamVersionConflict", {
  streamId: Schema.String,
  expected: Schema.String,
  actual: Schema.NullOr(Schema.Number)
}) {
  override get message() {
    return `stream ${this.streamId}: expected version ${this.expected}, found ${this.actual ?? "no stream"}`
  }
}

/** The stream was closed for writes (for example a ticket merged into another). */
export class StreamClosed extends Schema.TaggedError<StreamClosed>()("StreamClosed", {
  streamId: Schema.String
}) {
  override get message() {
    return `stream ${this.streamId} is closed for writes`
  }
}

/** Renders an expected version for error messages. */
export const showExpectedVersion = (expected: ExpectedVersion): string =>
  expected._tag === "Exact" ? String(expected.version) : expected._tag

/**
 * The event-store port: storage of event streams with optimistic concurrency and a global log.
 * `@helpdesk/http` implements it on PostgreSQL; `InMemoryEventStore` serves tests and other services.
 */
export class EventStore extends Context.Tag("@helpdesk/domain/EventStore")<
  EventStore,
  {
    /** Appends to one or more streams atomically: either every stream's events are stored, or none. */
    readonly append: (
      appends: ReadonlyArray<StreamAppend>
    ) => Effect.Effect<ReadonlyArray<AppendResult>, StreamVersionConflict | StreamClosed>
    /** The events of one stream from `fromPosition` (exclusive, default 0), in stream order. */
    readonly readStream: (streamId: string, fromPosition?: number) => Effect.Effect<ReadonlyArray<RecordedEvent>>
    /** Up to `limit` events of the global log after `checkpoint`, never skipping one committed late. */
    readonly readAll: (checkpoint: GlobalCheckpoint, limit: number) => Effect.Effect<GlobalLogBatch>
  }
>() {}
