import { Context, Effect, Either } from "effect"
import {
  type AppendResult,
  EventStore,
  ExpectedVersion,
  type RecordedEvent,
  type StreamAppend,
  type StreamClosed,
  type StreamVersionConflict
} from "../EventStore.js"
import { type EventDecodeError, fromRecordedEvents, toNewEvent } from "./EventCodec.js"
import type { TicketEvent } from "./Events.js"
import { evolveAll } from "./Evolve.js"
import { initialState, type TicketState } from "./State.js"

/** The stream a ticket's events live in. */
export const ticketStreamId = (ticketId: number): string => `ticket-${ticketId}`

/** The stream type the port records for ticket streams. */
export const ticketStreamType = "ticket"

/**
 * The version of the shape of {@link TicketState} and of what `evolve` makes of stored events. A stored fold of a
 * ticket (a snapshot) made under another version is ignored and the stream folded again; bump it whenever the
 * state's shape, `evolve`, or an upcaster changes what a stream folds to.
 */
export const TICKET_STATE_VERSION = 3

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

/** One ticket's part of an append: the events decided on `before`, and the state they lead to. */
export interface TicketWrite {
  readonly ticketId: number
  readonly before: LoadedTicket
  readonly events: ReadonlyArray<TicketEvent>
  readonly after: TicketState
  /** Close the stream for further writes after these events (a merged-away ticket). */
  readonly close?: boolean
}

/** How the events of a write are stored: their ids and the metadata every one of them carries. */
export interface WriteOptions {
  readonly eventId: EventIdGenerator
  readonly metadata?: Record<string, unknown> | undefined
}

/**
 * What the command pipeline needs of storage: folded loads, appends that know the state they were decided on
 * (so inline projections and snapshots evolve it with the new events instead of reading the stream again), and a
 * unit of work around one command. {@link ticketStoreOf} serves it from any {@link EventStore}; a service may do
 * better (a snapshot plus the events after it, a state kept in memory that the append proves, a lock that queues
 * writers of one stream).
 */
export class TicketStore extends Context.Tag("@helpdesk/domain/TicketStore")<
  TicketStore,
  {
    /**
     * The ticket at its latest version (`NoTicket` at version 0 when there is no stream). A store may answer a state
     * it keeps in memory without reading the stream; then its `append` and `confirm` prove that state still current.
     */
    readonly load: (ticketId: number) => Effect.Effect<LoadedTicket, EventDecodeError>
    /**
     * Optional, for stores whose `load` may answer from memory: proves that `loaded` is still the stream's state, or
     * fails with a {@link StreamVersionConflict} (the pipeline then starts again). The pipeline calls it when a
     * decision on `loaded` appends nothing (a refusal, or no events), since no append then proves it.
     */
    readonly confirm?: (loaded: LoadedTicket) => Effect.Effect<void, StreamVersionConflict>
    /** Several tickets at once (in the order given), each loaded or failed on its own. */
    readonly loadMany: (
      ticketIds: ReadonlyArray<number>
    ) => Effect.Effect<ReadonlyArray<Either.Either<LoadedTicket, EventDecodeError>>>
    /** Appends every write atomically, each expecting the version it was loaded at (within `transaction`). */
    readonly append: (
      writes: ReadonlyArray<TicketWrite>,
      options: WriteOptions
    ) => Effect.Effect<ReadonlyArray<AppendResult>, StreamVersionConflict | StreamClosed>
    /** Runs one command's load → decide → append → policies as one unit (a database transaction). */
    readonly transaction: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>() {}

/** The append of one ticket write: expecting the version it was loaded at (`NoStream` for version 0). */
export const streamAppendOf = (write: TicketWrite, options: WriteOptions): StreamAppend => ({
  streamId: ticketStreamId(write.ticketId),
  streamType: ticketStreamType,
  expected: write.before.version === 0 ? ExpectedVersion.noStream : ExpectedVersion.exact(write.before.version),
  events: write.events.map((e, i) => toNewEvent(e, options.eventId(e, i), options.metadata)),
  ...(write.close === true ? { close: true } : {})
})

/**
 * A {@link TicketStore} on an {@link EventStore}: every load reads and folds the whole stream; the unit of work
 * is the store's atomic append (there is nothing else to make atomic).
 */
export const ticketStoreOf = (store: EventStore["Type"]): TicketStore["Type"] => {
  const load = (ticketId: number) => Effect.flatMap(store.readStream(ticketStreamId(ticketId)), loadTicket)
  return {
    load,
    loadMany: (ticketIds) => Effect.forEach(ticketIds, (id) => Effect.either(load(id))),
    append: (writes, options) => store.append(writes.map((write) => streamAppendOf(write, options))),
    transaction: (self) => self
  }
}

/** The {@link TicketStore} served from the context's {@link EventStore}. */
export const provideTicketStoreFromEventStore = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, TicketStore> | EventStore> =>
  Effect.flatMap(EventStore, (store) => Effect.provideService(self, TicketStore, ticketStoreOf(store)))
