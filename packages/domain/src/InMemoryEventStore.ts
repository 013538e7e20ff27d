import { Brand, Clock, Effect, Layer } from "effect"
import {
  type AppendResult,
  EventStore,
  type ExpectedVersion,
  type GlobalCheckpoint,
  type RecordedEvent,
  type StreamAppend,
  StreamClosed,
  StreamVersionConflict,
  showExpectedVersion
} from "./EventStore.js"

interface Stream {
  version: number
  closed: boolean
  readonly events: Array<RecordedEvent>
}

const matches = (expected: ExpectedVersion, version: number, exists: boolean): boolean => {
  switch (expected._tag) {
    case "Any":
      return true
    case "NoStream":
      return !exists
    case "StreamExists":
      return exists
    case "Exact":
      // Exact(0) is "no events yet", which is what a missing stream has.
      return exists ? expected.version === version : expected.version === 0
  }
}

// Appends run one at a time, so the global position alone orders the log; a checkpoint is its decimal text.
const checkpointAt = Brand.nominal<GlobalCheckpoint>()
const positionOf = (c: GlobalCheckpoint): bigint => (c === "" ? 0n : BigInt(c))

/**
 * Builds an in-memory `EventStore` with the port's full semantics: every expected-version mode, closed
 * streams, duplicate event ids as conflicts, and all-or-nothing multi-stream appends. Appends run one at a time,
 * so the global log is in position order and a checkpoint is the position of the last event read.
 */
export const makeInMemoryEventStore = (): EventStore["Type"] => {
  const streams = new Map<string, Stream>()
  const eventIds = new Set<string>()
  const log: Array<RecordedEvent> = []
  let lastPosition = 0n

  const conflict = (streamId: string, expected: ExpectedVersion, actual: number | null) =>
    new StreamVersionConflict({ streamId, expected: showExpectedVersion(expected), actual })

  /** Checks every stream of an append against the store (and earlier parts of the same append). */
  const validate = (appends: ReadonlyArray<StreamAppend>): StreamVersionConflict | StreamClosed | undefined => {
    const planned = new Map<string, { version: number; exists: boolean; closed: boolean }>()
    const newIds = new Set<string>()
    for (const a of appends) {
      const stored = streams.get(a.streamId)
      const current = planned.get(a.streamId) ?? {
        version: stored?.version ?? 0,
        exists: stored !== undefined,
        closed: stored?.closed ?? false
      }
      if (current.closed) return new StreamClosed({ streamId: a.streamId })
      if (!matches(a.expected, current.version, current.exists)) {
        return conflict(a.streamId, a.expected, current.exists ? current.version : null)
      }
      for (const e of a.events) {
        if (eventIds.has(e.eventId) || newIds.has(e.eventId)) {
          return conflict(a.streamId, a.expected, current.exists ? current.version : null)
        }
        newIds.add(e.eventId)
      }
      const exists = current.exists || a.events.length > 0 || a.close === true
      planned.set(a.streamId, {
        version: current.version + a.events.length,
        exists,
        closed: a.close === true
      })
    }
    return undefined
  }

  const append = (appends: ReadonlyArray<StreamAppend>) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const refused = validate(appends)
      if (refused !== undefined) return Effect.fail(refused)
      const createdAt = new Date(now)
      const results: Array<AppendResult> = []
      for (const a of appends) {
        let stream = streams.get(a.streamId)
        if (stream === undefined && (a.events.length > 0 || a.close === true)) {
          stream = { version: 0, closed: false, events: [] }
          streams.set(a.streamId, stream)
        }
        for (const e of a.events) {
          const globalPosition = ++lastPosition
          const recorded: RecordedEvent = {
            ...e,
            streamId: a.streamId,
            streamPosition: ++stream!.version,
            globalPosition,
            checkpoint: checkpointAt(String(globalPosition)),
            createdAt
          }
          stream!.events.push(recorded)
          log.push(recorded)
          eventIds.add(e.eventId)
        }
        if (a.close === true) stream!.closed = true
        results.push({ streamId: a.streamId, version: stream?.version ?? 0, lastGlobalPosition: lastPosition })
      }
      return Effect.succeed(results)
    })

  return {
    append,
    readStream: (streamId, fromPosition = 0) =>
      Effect.sync(() => (streams.get(streamId)?.events ?? []).filter((e) => e.streamPosition > fromPosition)),
    readAll: (checkpoint, limit) =>
      Effect.sync(() => {
        const events: Array<RecordedEvent> = []
        const from = positionOf(checkpoint)
        // The log is already in position order; binary search would do, but tests are small.
        for (const e of log) {
          if (events.length >= limit) break
          if (e.globalPosition > from) events.push(e)
        }
        return { events, checkpoint: events[events.length - 1]?.checkpoint ?? checkpoint }
      })
  }
}

/** A fresh, empty in-memory `EventStore` per layer build (for tests and services without PostgreSQL). */
export const InMemoryEventStore: Layer.Layer<EventStore> = Layer.sync(EventStore, makeInMemoryEventStore)
