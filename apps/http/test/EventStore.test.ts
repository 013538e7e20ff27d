import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { EventStore, ExpectedVersion, StreamClosed, StreamVersionConflict } from "@helpdesk/domain"
import { Effect, Exit } from "effect"
import { positionOf } from "../src/EventStore/Checkpoint.js"
import {
  appendTo,
  databaseStartup,
  eventStoreOnFreshDatabase,
  freshStream,
  newEvent,
  newEvents
} from "./eventstore/fixtures.js"

const streamEvents = (streamId: string) => Effect.flatMap(EventStore, (store) => store.readStream(streamId))

const versionsOf = (streamId: string) =>
  Effect.map(streamEvents(streamId), (events) => events.map((e) => e.streamPosition))

/** Appends to a fresh stream and answers its id. */
const streamWith = (count: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const id = freshStream()
    yield* store.append([appendTo(id, ExpectedVersion.noStream, newEvents(count))])
    return id
  })

/**
 * Appends `count` events with `expected` to a stream of `existing` events: the append answers the new version, and
 * the stream holds versions 1 to `existing + count`.
 */
const appendFollows = (existing: number, expected: Parameters<typeof appendTo>[1], count: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const id = yield* streamWith(existing)
    const [result] = yield* store.append([appendTo(id, expected, newEvents(count))])
    const version = existing + count
    expect(result!.version).toBe(version)
    expect(yield* versionsOf(id)).toEqual(Array.from({ length: version }, (_, i) => i + 1))
  })

const conflictOf = <A, E>(effect: Effect.Effect<A, E, EventStore>) =>
  Effect.map(Effect.flip(effect), (error) => {
    expect(error).toBeInstanceOf(StreamVersionConflict)
    return error as StreamVersionConflict
  })

/** Appends an event with `expected` to a stream that does not exist: answers the conflict; still no stream. */
const conflictWithoutStream = (expected: Parameters<typeof appendTo>[1]) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const id = freshStream()
    const conflict = yield* conflictOf(store.append([appendTo(id, expected, [newEvent()])]))
    expect(yield* versionsOf(id)).toEqual([])
    return conflict
  })

describe("PostgreSQL event store", () => {
  layer(eventStoreOnFreshDatabase(), { timeout: databaseStartup })((it) => {
    describe("expected version NoStream", () => {
      it.effect("given no stream, when appending, then the events are stored at versions 1..n", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          const events = newEvents(3)
          const [result] = yield* store.append([appendTo(id, ExpectedVersion.noStream, events)])
          expect(result!.version).toBe(3)
          const stored = yield* streamEvents(id)
          expect(stored.map((e) => [e.streamPosition, e.eventId, e.data])).toEqual(
            events.map((e, i) => [i + 1, e.eventId, e.data])
          )
          expect(result!.lastGlobalPosition).toBe(stored[2]!.globalPosition)
        })
      )

      it.effect(
        "given an existing stream, when appending, then it is a conflict naming the stream and its version",
        () =>
          Effect.gen(function* () {
            const store = yield* EventStore
            const id = yield* streamWith(2)
            const conflict = yield* conflictOf(store.append([appendTo(id, ExpectedVersion.noStream, [newEvent()])]))
            expect({ streamId: conflict.streamId, expected: conflict.expected, actual: conflict.actual }).toEqual({
              streamId: id,
              expected: "NoStream",
              actual: 2
            })
            expect(yield* versionsOf(id)).toEqual([1, 2])
          })
      )
    })

    describe("expected version Exact", () => {
      it.effect("given the stream at that version, when appending, then the events follow it", () =>
        appendFollows(2, ExpectedVersion.exact(2), 2)
      )

      it.effect("given the stream at another version, when appending, then it is a conflict with the actual one", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = yield* streamWith(3)
          const behind = yield* conflictOf(store.append([appendTo(id, ExpectedVersion.exact(2), [newEvent()])]))
          expect([behind.expected, behind.actual]).toEqual(["2", 3])
          const ahead = yield* conflictOf(store.append([appendTo(id, ExpectedVersion.exact(4), [newEvent()])]))
          expect([ahead.expected, ahead.actual]).toEqual(["4", 3])
          expect(yield* versionsOf(id)).toEqual([1, 2, 3])
        })
      )

      it.effect("given no stream, when appending at Exact 5, then it is a conflict with no actual version", () =>
        Effect.gen(function* () {
          const conflict = yield* conflictWithoutStream(ExpectedVersion.exact(5))
          expect(conflict.actual).toBeNull()
        })
      )

      it.effect("Exact 0 means no stream yet: it creates one and conflicts with an existing one", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          yield* store.append([appendTo(id, ExpectedVersion.exact(0), [newEvent()])])
          expect(yield* versionsOf(id)).toEqual([1])
          const conflict = yield* conflictOf(store.append([appendTo(id, ExpectedVersion.exact(0), [newEvent()])]))
          expect(conflict.actual).toBe(1)
        })
      )
    })

    describe("expected version StreamExists", () => {
      it.effect("given an existing stream at any version, when appending, then the events follow it", () =>
        appendFollows(4, ExpectedVersion.streamExists, 1)
      )

      it.effect("given no stream, when appending, then it is a conflict and nothing is created", () =>
        Effect.gen(function* () {
          const conflict = yield* conflictWithoutStream(ExpectedVersion.streamExists)
          expect([conflict.expected, conflict.actual]).toEqual(["StreamExists", null])
        })
      )
    })

    describe("expected version Any", () => {
      it.effect("given no stream, when appending, then the stream is created", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          const [result] = yield* store.append([appendTo(id, ExpectedVersion.any, newEvents(2))])
          expect(result!.version).toBe(2)
        })
      )

      it.effect("given an existing stream, when appending, then the events follow whatever is there", () =>
        appendFollows(3, ExpectedVersion.any, 2)
      )

      it.effect("given concurrent appends, then none conflicts and versions stay contiguous", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          yield* Effect.forEach(
            Array.from({ length: 20 }, () => newEvent()),
            (e) => store.append([appendTo(id, ExpectedVersion.any, [e])]),
            { concurrency: "unbounded", discard: true }
          )
          expect(yield* versionsOf(id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
        })
      )

      it.effect("given a closed stream, when appending, then it is refused as closed", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          yield* store.append([appendTo(id, ExpectedVersion.noStream, [newEvent()], true)])
          const error = yield* Effect.flip(store.append([appendTo(id, ExpectedVersion.any, [newEvent()])]))
          expect(error).toEqual(new StreamClosed({ streamId: id }))
        })
      )
    })

    describe("closed streams", () => {
      it.effect("given a stream closed by its last append, then every mode refuses further events", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = yield* streamWith(1)
          yield* store.append([appendTo(id, ExpectedVersion.exact(1), [newEvent("Merged")], true)])
          for (const expected of [
            ExpectedVersion.exact(2),
            ExpectedVersion.streamExists,
            ExpectedVersion.any,
            ExpectedVersion.noStream
          ]) {
            const error = yield* Effect.flip(store.append([appendTo(id, expected, [newEvent()])]))
            expect(error).toEqual(new StreamClosed({ streamId: id }))
          }
          expect(yield* versionsOf(id)).toEqual([1, 2])
        })
      )

      it.effect("given a stream closed without events, then it keeps its events and refuses new ones", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = yield* streamWith(2)
          const [result] = yield* store.append([appendTo(id, ExpectedVersion.exact(2), [], true)])
          expect(result!.version).toBe(2)
          const error = yield* Effect.flip(store.append([appendTo(id, ExpectedVersion.exact(2), [newEvent()])]))
          expect(error).toBeInstanceOf(StreamClosed)
          expect(yield* versionsOf(id)).toEqual([1, 2])
        })
      )
    })

    describe("event ids", () => {
      it.effect(
        "given an event id already stored, when appending it again, then it is a conflict storing nothing",
        () =>
          Effect.gen(function* () {
            const store = yield* EventStore
            const first = yield* streamWith(0)
            const event = newEvent()
            yield* store.append([appendTo(first, ExpectedVersion.any, [event])])
            const other = freshStream()
            const conflict = yield* conflictOf(
              store.append([appendTo(other, ExpectedVersion.noStream, [newEvent(), { ...event }])])
            )
            expect(conflict.streamId).toBe(other)
            expect(yield* versionsOf(other)).toEqual([])
            // Redelivery to the same stream with Any is refused too, so a webhook retry records nothing twice.
            yield* conflictOf(store.append([appendTo(first, ExpectedVersion.any, [event])]))
            expect(yield* versionsOf(first)).toEqual([1])
          })
      )

      it.effect("given one id twice in the same append, then it is a conflict storing nothing", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          const event = newEvent()
          yield* conflictOf(
            store.append([appendTo(id, ExpectedVersion.noStream, [event, { ...event, type: "Other" }])])
          )
          expect(yield* versionsOf(id)).toEqual([])
        })
      )
    })

    describe("multi-stream appends", () => {
      it.effect("given two streams, then both are appended in one transaction", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const source = yield* streamWith(2)
          const target = yield* streamWith(1)
          const results = yield* store.append([
            appendTo(source, ExpectedVersion.exact(2), [newEvent("MergedInto")], true),
            appendTo(target, ExpectedVersion.exact(1), newEvents(2, "MergedFrom"))
          ])
          expect(results.map((r) => [r.streamId, r.version])).toEqual([
            [source, 3],
            [target, 3]
          ])
          const [a, b] = [yield* streamEvents(source), yield* streamEvents(target)]
          // One transaction: both events' checkpoints name the same transaction id.
          expect(positionOf(a[2]!.checkpoint).transactionId).toBe(positionOf(b[2]!.checkpoint).transactionId)
        })
      )

      it.effect("given one stream's conflict, then nothing is stored for the other", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const fine = yield* streamWith(1)
          const stale = yield* streamWith(3)
          // Whichever of the two sorts first, the conflict must undo the other's part.
          for (const appends of [
            [
              appendTo(fine, ExpectedVersion.exact(1), [newEvent()]),
              appendTo(stale, ExpectedVersion.exact(1), [newEvent()])
            ],
            [
              appendTo(stale, ExpectedVersion.exact(1), [newEvent()]),
              appendTo(fine, ExpectedVersion.exact(1), [newEvent()])
            ]
          ]) {
            const conflict = yield* conflictOf(store.append(appends))
            expect(conflict.streamId).toBe(stale)
          }
          const created = freshStream()
          yield* conflictOf(
            store.append([
              appendTo(created, ExpectedVersion.noStream, [newEvent()]),
              appendTo(stale, ExpectedVersion.noStream, [newEvent()])
            ])
          )
          expect([yield* versionsOf(fine), yield* versionsOf(stale), yield* versionsOf(created)]).toEqual([
            [1],
            [1, 2, 3],
            []
          ])
        })
      )

      it.effect("given a closed stream among them, then nothing is stored for the others", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const closed = freshStream()
          yield* store.append([appendTo(closed, ExpectedVersion.noStream, [newEvent()], true)])
          const other = yield* streamWith(1)
          const error = yield* Effect.flip(
            store.append([
              appendTo(other, ExpectedVersion.exact(1), [newEvent()]),
              appendTo(closed, ExpectedVersion.any, [newEvent()])
            ])
          )
          expect(error).toEqual(new StreamClosed({ streamId: closed }))
          expect(yield* versionsOf(other)).toEqual([1])
        })
      )

      it.effect("given concurrent merges in opposite directions, then they serialise without deadlock", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const a = yield* streamWith(0)
          const b = yield* streamWith(0)
          const both = (first: string, second: string) =>
            store.append([
              appendTo(first, ExpectedVersion.any, [newEvent()]),
              appendTo(second, ExpectedVersion.any, [newEvent()])
            ])
          yield* Effect.all(
            Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? both(a, b) : both(b, a))),
            { concurrency: "unbounded", discard: true }
          )
          expect((yield* versionsOf(a)).length).toBe(20)
          expect((yield* versionsOf(b)).length).toBe(20)
        })
      )
    })

    describe("reading", () => {
      it.effect("readStream returns the events after a position, in stream order", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = yield* streamWith(5)
          const tail = yield* store.readStream(id, 3)
          expect(tail.map((e) => [e.streamPosition, e.data])).toEqual([
            [4, { n: 4 }],
            [5, { n: 5 }]
          ])
          expect(yield* store.readStream(freshStream())).toEqual([])
        })
      )

      it.effect("metadata and JSON of any shape round-trip unchanged (keys are not renamed)", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          const data = { snake_case: [1, "two", null, { 'quote"d': "back\\slash" }], camelCase: true }
          const metadata = { correlation_id: "c-1", actorId: 7 }
          yield* store.append([
            appendTo(id, ExpectedVersion.noStream, [{ ...newEvent("Shaped", data), schemaVersion: 3, metadata }])
          ])
          const [stored] = yield* store.readStream(id)
          expect([stored!.type, stored!.schemaVersion, stored!.data, stored!.metadata]).toEqual([
            "Shaped",
            3,
            data,
            metadata
          ])
        })
      )

      it.effect("several events of one append keep their own data and metadata, in order, whatever their text", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          const shapes: ReadonlyArray<{
            readonly data: Record<string, unknown>
            readonly metadata: Record<string, unknown>
          }> = [
            { data: { text: 'a "quoted", {braced} word\\ and NULL' }, metadata: { n: 1 } },
            { data: { text: "NULL", list: ["{", "}", ",", '"', "\\"] }, metadata: {} },
            { data: {}, metadata: { note: "é ✓ 🎫 \n line" } },
            { data: { nested: [[1, 2], { deeper: [null, true, 1.5] }] }, metadata: { n: 4 } }
          ]
          yield* store.append([
            appendTo(
              id,
              ExpectedVersion.noStream,
              shapes.map((shape, i) => ({ ...newEvent(`Shape${i}`, shape.data), metadata: shape.metadata }))
            )
          ])
          const stored = yield* store.readStream(id)
          expect(stored.map((e) => [e.type, e.data, e.metadata])).toEqual(
            shapes.map((shape, i) => [`Shape${i}`, shape.data, shape.metadata])
          )
        })
      )

      it.effect("a conflict takes no global position: the next append's position follows the last one", () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = yield* streamWith(1)
          const [before] = yield* store.append([appendTo(id, ExpectedVersion.exact(1), [newEvent()])])
          yield* conflictOf(store.append([appendTo(id, ExpectedVersion.exact(1), newEvents(3))]))
          yield* conflictOf(store.append([appendTo(id, ExpectedVersion.noStream, newEvents(3))]))
          const [after] = yield* store.append([appendTo(id, ExpectedVersion.exact(2), [newEvent()])])
          expect(after!.lastGlobalPosition).toBe(before!.lastGlobalPosition + 1n)
        })
      )

      it.effect("stored events cannot be updated or deleted", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const id = yield* streamWith(1)
          const update = yield* Effect.exit(sql`UPDATE hd_events SET data = '{}' WHERE stream_id = ${id}`)
          const remove = yield* Effect.exit(sql`DELETE FROM hd_events WHERE stream_id = ${id}`)
          expect([Exit.isFailure(update), Exit.isFailure(remove)]).toEqual([true, true])
          expect(yield* versionsOf(id)).toEqual([1])
        })
      )
    })
  })
})
