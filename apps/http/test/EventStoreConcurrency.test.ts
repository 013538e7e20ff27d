import { describe, expect, layer } from "@effect/vitest"
import { EventStore, ExpectedVersion, StreamVersionConflict } from "@helpdesk/domain"
import { Chunk, Duration, Effect, Either, Schedule } from "effect"
import { commandRetryPolicy, handleCommand } from "../src/EventStore/HandleCommand.js"
import { appendTo, databaseStartup, eventStoreOnFreshDatabase, freshStream, newEvent } from "./eventstore/fixtures.js"

/** A command that appends one event carrying the writer's number, after whatever the stream holds. */
const writeOne = (streamId: string, writer: number, retry?: Schedule.Schedule<unknown, unknown>) =>
  handleCommand({
    streamId,
    streamType: "test",
    decide: (stream) => Effect.succeed({ events: [newEvent("Written", { writer })], result: stream.version }),
    ...(retry === undefined ? {} : { retry })
  })

const writersOf = (streamId: string) =>
  Effect.map(
    Effect.flatMap(EventStore, (store) => store.readStream(streamId)),
    (events) => events.map((e) => ({ position: e.streamPosition, writer: (e.data as { writer: number }).writer }))
  )

describe("event store under concurrency", () => {
  // Real clock: the retry policy sleeps between attempts.
  layer(eventStoreOnFreshDatabase(), { excludeTestServices: true, timeout: databaseStartup })((it) => {
    it.effect(
      "given 50 concurrent writers with the default retry policy, then every acknowledged write is stored once, " +
        "every other writer gets a typed conflict, and versions are contiguous",
      () =>
        Effect.gen(function* () {
          const id = freshStream("contended")
          const outcomes = yield* Effect.forEach(
            Array.from({ length: 50 }, (_, writer) => writer),
            (writer) => Effect.either(writeOne(id, writer)),
            { concurrency: "unbounded" }
          )
          const acknowledged = outcomes.flatMap((o, writer) => (Either.isRight(o) ? [writer] : []))
          for (const o of outcomes) if (Either.isLeft(o)) expect(o.left).toBeInstanceOf(StreamVersionConflict)
          const stored = yield* writersOf(id)
          expect(acknowledged.length).toBeGreaterThan(0)
          expect(stored.map((e) => e.position)).toEqual(acknowledged.map((_, i) => i + 1))
          expect(stored.map((e) => e.writer).sort((a, b) => a - b)).toEqual(acknowledged)
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "given 50 concurrent writers retrying until they win, then nothing is lost and versions are 1..50",
      () =>
        Effect.gen(function* () {
          const id = freshStream("contended")
          const untilTheyWin = Schedule.spaced("2 millis").pipe(
            Schedule.jittered,
            Schedule.intersect(Schedule.recurs(500))
          )
          const answers = yield* Effect.forEach(
            Array.from({ length: 50 }, (_, writer) => writer),
            (writer) => writeOne(id, writer, untilTheyWin),
            { concurrency: "unbounded" }
          )
          const stored = yield* writersOf(id)
          expect(stored.map((e) => e.position)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
          expect(stored.map((e) => e.writer).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i))
          // Each writer decided on the version it appended after.
          for (const answer of answers) expect(answer.append!.version).toBe(answer.result + 1)
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "given a stream that always moves on, then the command is tried 4 times and fails with the conflict",
      () =>
        Effect.gen(function* () {
          const store = yield* EventStore
          const id = freshStream()
          let attempts = 0
          const error = yield* handleCommand({
            streamId: id,
            streamType: "test",
            decide: () =>
              Effect.gen(function* () {
                attempts += 1
                // A rival write lands between this read and this append, every time.
                yield* store.append([appendTo(id, ExpectedVersion.any, [newEvent("Rival")])])
                return { events: [newEvent("Mine")], result: undefined }
              })
          }).pipe(Effect.flip)
          expect(error).toBeInstanceOf(StreamVersionConflict)
          expect(attempts).toBe(4)
          expect((yield* store.readStream(id)).map((e) => e.type)).toEqual(["Rival", "Rival", "Rival", "Rival"])
        })
    )

    it.effect("the retry policy waits 100 ms, 150 ms and 225 ms (each jittered by at most 20%), then stops", () =>
      Effect.gen(function* () {
        const delays = yield* Schedule.run(Schedule.delays(commandRetryPolicy), 0, [1, 2, 3, 4, 5, 6])
        const millis = Chunk.toReadonlyArray(delays).map(Duration.toMillis)
        // Six failures fed in, four steps out: three delays, then the step that ends the schedule.
        expect(millis.length).toBe(4)
        millis.slice(0, 3).forEach((ms, i) => {
          const nominal = 100 * 1.5 ** i
          expect(ms).toBeGreaterThanOrEqual(0.8 * nominal)
          expect(ms).toBeLessThanOrEqual(1.2 * nominal)
        })
      })
    )

    it.effect("given a decision with no events, then nothing is appended and the answer is returned", () =>
      Effect.gen(function* () {
        const id = freshStream()
        const handled = yield* handleCommand({
          streamId: id,
          streamType: "test",
          decide: (stream) => Effect.succeed({ events: [], result: `at ${stream.version}` }),
          retry: commandRetryPolicy
        })
        expect(handled).toEqual({ result: "at 0", append: null })
      })
    )

    it.effect("given a domain refusal, then it is not retried and surfaces as is", () =>
      Effect.gen(function* () {
        let attempts = 0
        const error = yield* handleCommand({
          streamId: freshStream(),
          streamType: "test",
          decide: () => {
            attempts += 1
            return Effect.fail("TicketAlreadyClosed" as const)
          }
        }).pipe(Effect.flip)
        expect([error, attempts]).toEqual(["TicketAlreadyClosed", 1])
      })
    )
  })
})
