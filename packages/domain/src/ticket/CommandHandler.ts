import { Effect, Either, Schedule } from "effect"
import {
  EventStore,
  ExpectedVersion,
  type RecordedEvent,
  type StreamAppend,
  type StreamClosed,
  type StreamVersionConflict
} from "../EventStore.js"
import type { MergeTickets, TicketCommand } from "./Commands.js"
import { decide, decideMerge } from "./Decide.js"
import type { MergeError, TicketError } from "./Errors.js"
import { type EventDecodeError, fromRecordedEvents, toNewEvent } from "./EventCodec.js"
import type { TicketEvent } from "./Events.js"
import { evolveAll } from "./Evolve.js"
import { initialState, type TicketState } from "./State.js"

/** The stream a ticket's events live in. */
export const ticketStreamId = (ticketId: number): string => `ticket-${ticketId}`

/** The stream type the port records for ticket streams. */
export const ticketStreamType = "ticket"

/** A ticket stream folded: its state and the version an append must expect. */
export interface LoadedTicket {
  readonly state: TicketState
  readonly version: number
}

/** Decodes (upcasting as needed) and folds a stream's recorded events. */
export const loadTicket = (recorded: ReadonlyArray<RecordedEvent>): Either.Either<LoadedTicket, EventDecodeError> =>
  Either.map(fromRecordedEvents(recorded), (events) => ({
    state: evolveAll(events, initialState),
    version: recorded.length === 0 ? 0 : recorded[recorded.length - 1]!.streamPosition
  }))

/** Makes the id of the `index`-th event of an append (the app passes `crypto.randomUUID`-based ids). */
export type EventIdGenerator = (event: TicketEvent, index: number) => string

const expectedFor = (version: number): ExpectedVersion =>
  version === 0 ? ExpectedVersion.noStream : ExpectedVersion.exact(version)

const streamAppend = (
  ticketId: number,
  version: number,
  events: ReadonlyArray<TicketEvent>,
  eventId: EventIdGenerator,
  metadata: Record<string, unknown> | undefined,
  close: boolean
): StreamAppend => ({
  streamId: ticketStreamId(ticketId),
  streamType: ticketStreamType,
  expected: expectedFor(version),
  events: events.map((e, i) => toNewEvent(e, eventId(e, i), metadata)),
  ...(close ? { close: true } : {})
})

/** What to append for one command, and the state after it. `append` is `null` when nothing happens. */
export interface HandledCommand {
  readonly events: ReadonlyArray<TicketEvent>
  readonly append: StreamAppend | null
  readonly state: TicketState
}

/**
 * load → fold → decide, purely: given a stream's recorded events and a command, the append to make
 * (with the expected version that makes it safe under concurrency) and the resulting state.
 */
export const handleTicketCommand = (
  recorded: ReadonlyArray<RecordedEvent>,
  command: TicketCommand,
  eventId: EventIdGenerator,
  metadata?: Record<string, unknown>
): Either.Either<HandledCommand, TicketError | EventDecodeError> =>
  Either.flatMap(loadTicket(recorded), ({ state, version }) =>
    Either.map(decide(command, state), (events) => {
      return {
        events,
        state: evolveAll(events, state),
        append: events.length === 0 ? null : streamAppend(command.ticketId, version, events, eventId, metadata, false)
      }
    })
  )

/** The two appends of a merge (the source's closes its stream) and both resulting states. */
export interface HandledMerge {
  readonly appends: readonly [StreamAppend, StreamAppend]
  readonly source: TicketState
  readonly target: TicketState
}

/** load → fold → decide for a merge over both streams; append `appends` in one multi-stream append. */
export const handleMerge = (
  sourceRecorded: ReadonlyArray<RecordedEvent>,
  targetRecorded: ReadonlyArray<RecordedEvent>,
  command: MergeTickets,
  eventId: EventIdGenerator,
  metadata?: Record<string, unknown>
): Either.Either<HandledMerge, MergeError | EventDecodeError> =>
  Either.flatMap(Either.all([loadTicket(sourceRecorded), loadTicket(targetRecorded)]), ([source, target]) =>
    Either.map(decideMerge(command, source.state, target.state), (decision) => ({
      appends: [
        streamAppend(command.sourceTicketId, source.version, decision.source, eventId, metadata, true),
        streamAppend(command.targetTicketId, target.version, decision.target, eventId, metadata, false)
      ],
      source: evolveAll(decision.source, source.state),
      target: evolveAll(decision.target, target.state)
    }))
  )

/** How often and how fast to retry a command that lost an optimistic-concurrency race. */
export const defaultConflictRetry = Schedule.exponential("100 millis", 1.5).pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(3))
)

const randomEventId: EventIdGenerator = () => globalThis.crypto.randomUUID()

/** Options of {@link executeTicketCommand} and {@link executeMerge}. */
export interface ExecuteOptions {
  readonly retry?: Schedule.Schedule<unknown, unknown>
  readonly eventId?: EventIdGenerator
  readonly metadata?: Record<string, unknown>
}

/**
 * Runs a command against the `EventStore`: read the stream, decide, append with the expected version,
 * and start over when another writer got there first (`StreamVersionConflict`), per `retry`.
 */
export const executeTicketCommand = (
  command: TicketCommand,
  options: ExecuteOptions = {}
): Effect.Effect<HandledCommand, TicketError | EventDecodeError | StreamVersionConflict | StreamClosed, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const recorded = yield* store.readStream(ticketStreamId(command.ticketId))
    const handled = yield* handleTicketCommand(recorded, command, options.eventId ?? randomEventId, options.metadata)
    if (handled.append !== null) yield* store.append([handled.append])
    return handled
  }).pipe(
    Effect.retry({ schedule: options.retry ?? defaultConflictRetry, while: (e) => e._tag === "StreamVersionConflict" }),
    Effect.withSpan("Ticket.execute", { attributes: { command: command._tag, ticketId: command.ticketId } })
  )

/** Runs a merge against the `EventStore`: both streams in one atomic append, retried on conflicts. */
export const executeMerge = (
  command: MergeTickets,
  options: ExecuteOptions = {}
): Effect.Effect<HandledMerge, MergeError | EventDecodeError | StreamVersionConflict | StreamClosed, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const source = yield* store.readStream(ticketStreamId(command.sourceTicketId))
    const target = yield* store.readStream(ticketStreamId(command.targetTicketId))
    const handled = yield* handleMerge(source, target, command, options.eventId ?? randomEventId, options.metadata)
    yield* store.append(handled.appends)
    return handled
  }).pipe(
    Effect.retry({ schedule: options.retry ?? defaultConflictRetry, while: (e) => e._tag === "StreamVersionConflict" }),
    Effect.withSpan("Ticket.merge", {
      attributes: { sourceTicketId: command.sourceTicketId, targetTicketId: command.targetTicketId }
    })
  )
