import { describe, expect, it } from "@effect/vitest"
import {
  EventStore,
  ExpectedVersion,
  GlobalCheckpointStart,
  InMemoryEventStore,
  type NewEvent,
  type StreamAppend
} from "@helpdesk/domain"
import { Effect } from "effect"

let nextId = 0
const event = (type = "Something"): NewEvent => ({
  eventId: `00000000-0000-4000-8000-${String(++nextId).padStart(12, "0")}`,
  type,
  schemaVersion: 1,
  data: { n: nextId }
})

const to = (
  streamId: string,
  expected: ExpectedVersion,
  events: ReadonlyArray<NewEvent>,
  close = false
): StreamAppend => ({
  streamId,
  streamType: "test",
  expected,
  events,
  ...(close ? { close } : {})
})

const withStore = <A, E>(body: (store: EventStore["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(EventStore, body).pipe(Effect.provide(InMemoryEventStore))

describe("InMemoryEventStore", () => {
  it.effect("NoStream creates a stream and refuses an existing one", () =>
    withStore((store) =>
      Effect.gen(function* () {
        const [result] = yield* store.append([to("a", ExpectedVersion.noStream, [event(), event()])])
        expect(result!.version).toBe(2)
        const error = yield* Effect.flip(store.append([to("a", ExpectedVersion.noStream, [event()])]))
        expect(error._tag).toBe("StreamVersionConflict")
        expect(error).toMatchObject({ streamId: "a", expected: "NoStream", actual: 2 })
      })
    )
  )

  it.effect("Exact appends only at the expected version; Exact(0) means no stream yet", () =>
    withStore((store) =>
      Effect.gen(function* () {
        yield* store.append([to("b", ExpectedVersion.exact(0), [event()])])
        yield* store.append([to("b", ExpectedVersion.exact(1), [event()])])
        const stale = yield* Effect.flip(store.append([to("b", ExpectedVersion.exact(1), [event()])]))
        expect(stale).toMatchObject({ _tag: "StreamVersionConflict", expected: "1", actual: 2 })
        const missing = yield* Effect.flip(store.append([to("nope", ExpectedVersion.exact(3), [event()])]))
        expect(missing).toMatchObject({ _tag: "StreamVersionConflict", actual: null })
        expect((yield* store.readStream("b")).map((e) => e.streamPosition)).toEqual([1, 2])
      })
    )
  )

  it.effect("StreamExists needs the stream; Any takes whatever is there", () =>
    withStore((store) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(store.append([to("c", ExpectedVersion.streamExists, [event()])]))
        expect(error._tag).toBe("StreamVersionConflict")
        yield* store.append([to("c", ExpectedVersion.any, [event()])])
        yield* store.append([to("c", ExpectedVersion.any, [event()])])
        const [result] = yield* store.append([to("c", ExpectedVersion.streamExists, [event()])])
        expect(result!.version).toBe(3)
      })
    )
  )

  it.effect("a closed stream refuses every further write", () =>
    withStore((store) =>
      Effect.gen(function* () {
        yield* store.append([to("d", ExpectedVersion.noStream, [event()], true)])
        const error = yield* Effect.flip(store.append([to("d", ExpectedVersion.any, [event()])]))
        expect(error).toMatchObject({ _tag: "StreamClosed", streamId: "d" })
        expect(yield* store.readStream("d")).toHaveLength(1)
      })
    )
  )

  it.effect("an event id stored before is a conflict, which makes redelivery idempotent", () =>
    withStore((store) =>
      Effect.gen(function* () {
        const e = event()
        yield* store.append([to("e", ExpectedVersion.any, [e])])
        const error = yield* Effect.flip(store.append([to("f", ExpectedVersion.any, [e])]))
        expect(error._tag).toBe("StreamVersionConflict")
        const twice = yield* Effect.flip(
          store.append([to("g", ExpectedVersion.any, [event(), { ...e, eventId: "x" }, { ...e, eventId: "x" }])])
        )
        expect(twice._tag).toBe("StreamVersionConflict")
        expect(yield* store.readStream("f")).toHaveLength(0)
        expect(yield* store.readStream("g")).toHaveLength(0)
      })
    )
  )

  it.effect("a multi-stream append is all or nothing", () =>
    withStore((store) =>
      Effect.gen(function* () {
        yield* store.append([
          to("src", ExpectedVersion.noStream, [event()]),
          to("dst", ExpectedVersion.noStream, [event()])
        ])
        const error = yield* Effect.flip(
          store.append([
            to("src", ExpectedVersion.exact(1), [event()], true),
            to("dst", ExpectedVersion.exact(7), [event()])
          ])
        )
        expect(error).toMatchObject({ _tag: "StreamVersionConflict", streamId: "dst" })
        expect(yield* store.readStream("src")).toHaveLength(1)
        // src was not closed by the failed append
        const results = yield* store.append([
          to("src", ExpectedVersion.exact(1), [event()], true),
          to("dst", ExpectedVersion.exact(1), [event()])
        ])
        expect(results.map((r) => [r.streamId, r.version])).toEqual([
          ["src", 2],
          ["dst", 2]
        ])
        const [a, b] = [(yield* store.readStream("src"))[1]!, (yield* store.readStream("dst"))[1]!]
        // Stored together: nothing of another append falls between them in the global log.
        expect(b.globalPosition - a.globalPosition).toBe(1n)
        expect((yield* Effect.flip(store.append([to("src", ExpectedVersion.any, [event()])])))._tag).toBe(
          "StreamClosed"
        )
      })
    )
  )

  it.effect("two parts for one stream in one append apply in order", () =>
    withStore((store) =>
      Effect.gen(function* () {
        const results = yield* store.append([
          to("h", ExpectedVersion.noStream, [event()]),
          to("h", ExpectedVersion.exact(1), [event()])
        ])
        expect(results.map((r) => r.version)).toEqual([1, 2])
      })
    )
  )

  it.effect("readStream reads after a position; readAll pages the global log by checkpoint", () =>
    withStore((store) =>
      Effect.gen(function* () {
        yield* store.append([to("x", ExpectedVersion.any, [event(), event()])])
        yield* store.append([to("y", ExpectedVersion.any, [event()])])
        yield* store.append([to("x", ExpectedVersion.any, [event()])])
        expect((yield* store.readStream("x", 1)).map((e) => e.streamPosition)).toEqual([2, 3])
        const first = yield* store.readAll(GlobalCheckpointStart, 2)
        expect(first.events.map((e) => [e.streamId, e.streamPosition])).toEqual([
          ["x", 1],
          ["x", 2]
        ])
        const second = yield* store.readAll(first.checkpoint, 10)
        expect(second.events.map((e) => [e.streamId, e.streamPosition])).toEqual([
          ["y", 1],
          ["x", 3]
        ])
        expect(second.checkpoint).toBe(second.events[1]!.checkpoint)
        // An event's own checkpoint resumes just after it.
        const resumed = yield* store.readAll(first.events[0]!.checkpoint, 10)
        expect(resumed.events.map((e) => e.globalPosition)).toEqual([2n, 3n, 4n])
        const end = yield* store.readAll(second.checkpoint, 10)
        expect(end.events).toEqual([])
        expect(end.checkpoint).toEqual(second.checkpoint)
        const positions = [...first.events, ...second.events].map((e) => e.globalPosition)
        expect([...positions].sort((p, q) => (p < q ? -1 : 1))).toEqual(positions)
      })
    )
  )

  it.effect("each layer build is a fresh store", () =>
    Effect.gen(function* () {
      yield* withStore((store) => store.append([to("z", ExpectedVersion.noStream, [event()])]))
      const again = yield* withStore((store) => store.readStream("z"))
      expect(again).toEqual([])
    })
  )
})
