import {
  type AppendResult,
  EventStore,
  ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type StreamClosed,
  StreamVersionConflict
} from "@helpdesk/domain"
import { Effect, Schedule } from "effect"

/**
 * How a command that lost an optimistic-concurrency race is retried (docs/decisions/0302-command-retry-policy.md):
 * up to 3 more times, after 100 ms, 150 ms and 225 ms, each jittered (×0.8–1.2) so that writers that collided
 * do not collide again in lockstep. After that the conflict surfaces (the API answers 409).
 */
export const commandRetryPolicy: Schedule.Schedule<unknown, unknown> = Schedule.exponential("100 millis", 1.5).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(3))
)

/** Runs `effect` again, per `policy`, while it fails with a {@link StreamVersionConflict}. */
export const retryOnConflict =
  (policy: Schedule.Schedule<unknown, unknown> = commandRetryPolicy) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.retry(effect, {
      schedule: policy,
      while: (error) => error instanceof StreamVersionConflict
    })

/** A stream as a command finds it: its events and the version an append must expect. */
export interface LoadedStream {
  readonly streamId: string
  readonly events: ReadonlyArray<RecordedEvent>
  /** 0 for a stream with no events. */
  readonly version: number
}

/** What a command decided: the events to append (none: nothing happens), whether to close, and its answer. */
export interface CommandDecision<A> {
  readonly events: ReadonlyArray<NewEvent>
  readonly close?: boolean
  readonly result: A
}

/** A handled command: its answer and, when it appended, where the stream stands. */
export interface HandledCommand<A> {
  readonly result: A
  readonly append: AppendResult | null
}

/**
 * load → decide → append, retried on conflict: reads the stream, lets `decide` (which should be pure apart from
 * ids and time it was given) choose the events, appends them expecting exactly the version it read (`Exact 0`
 * is "no stream yet"), and on a {@link StreamVersionConflict} starts again from a fresh read, per `retry`
 * (default {@link commandRetryPolicy}). `decide` runs again on each attempt, so it must not have side effects.
 */
export const handleCommand = <A, E, R>(options: {
  readonly streamId: string
  readonly streamType: string
  readonly decide: (stream: LoadedStream) => Effect.Effect<CommandDecision<A>, E, R>
  readonly retry?: Schedule.Schedule<unknown, unknown>
}): Effect.Effect<HandledCommand<A>, E | StreamVersionConflict | StreamClosed, R | EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const events = yield* store.readStream(options.streamId)
    const version = events.length === 0 ? 0 : events[events.length - 1]!.streamPosition
    const decision = yield* options.decide({ streamId: options.streamId, events, version })
    if (decision.events.length === 0 && decision.close !== true) return { result: decision.result, append: null }
    const [append] = yield* store.append([
      {
        streamId: options.streamId,
        streamType: options.streamType,
        expected: ExpectedVersion.exact(version),
        events: decision.events,
        ...(decision.close === true ? { close: true } : {})
      }
    ])
    return { result: decision.result, append: append! }
  }).pipe(
    retryOnConflict(options.retry),
    Effect.withSpan("EventStore.handleCommand", { attributes: { streamId: options.streamId } })
  )
