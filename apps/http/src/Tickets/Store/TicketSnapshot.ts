import type { RecordedEvent, StreamAppend, TicketEvent, TicketState } from "@helpdesk/domain"
import { DateTime } from "effect"
import type { AppendContext } from "../../EventStore/InlineProjection.js"

/**
 * A ticket stream folded up to `version`, with what the `tickets` projection folds beside the domain's state
 * (`waitingSince`, for the inactivity timer), and the version of the stream's stored snapshot (0: none).
 * The command pipeline hands it to the projection, which evolves it with only the new events.
 */
export interface TicketFold {
  readonly state: TicketState
  readonly version: number
  readonly waitingSince: DateTime.Utc | null
  readonly snapshotVersion: number
}

/**
 * What a ticket writer hands its stream's projections in the append's context (`AppendContext.folds`): the fold the
 * write was decided on and the write's events as the domain decided them, so a projection evolves the fold without
 * reading the stream or decoding the events it was just given.
 */
export interface TicketHandover {
  readonly before: TicketFold
  readonly events: ReadonlyArray<TicketEvent>
  /** The state after the events, as the writer will answer it (absent: the projection evolves `before` itself). */
  readonly after?: TicketState
}

/** The handover for `streamId`, when its events are exactly `recorded` (the stream's new events, in order). */
export const handoverOf = (
  context: AppendContext | undefined,
  streamId: string,
  recorded: ReadonlyArray<RecordedEvent>
): TicketHandover | undefined => {
  const handover = context?.folds.get(streamId) as TicketHandover | undefined
  if (handover === undefined || handover.events.length !== recorded.length) return undefined
  const { version } = handover.before
  return recorded.every((event, i) => event.streamPosition === version + i + 1) ? handover : undefined
}

/**
 * The handover for an append about to be made, when its events will be exactly the handover's: as many, expected
 * right after the fold's version (so they land at the positions {@link handoverOf} would check, or not at all).
 */
export const handoverForAppend = (
  context: AppendContext | undefined,
  append: StreamAppend
): TicketHandover | undefined => {
  const handover = context?.folds.get(append.streamId) as TicketHandover | undefined
  if (handover === undefined || handover.events.length !== append.events.length) return undefined
  const { version } = handover.before
  const { expected } = append
  return (expected._tag === "Exact" && expected.version === version) || (expected._tag === "NoStream" && version === 0)
    ? handover
    : undefined
}

/** The fold of an empty stream. */
export const emptyFold: TicketFold = { state: { _tag: "NoTicket" }, version: 0, waitingSince: null, snapshotVersion: 0 }

/**
 * Events between snapshots of a ticket of up to 256 messages: a load without a cached fold reads the snapshot and
 * fewer than this many events after it; a snapshot (the whole state, O(messages) to write) is written by one append
 * in this many.
 */
export const SNAPSHOT_EVERY = 32

/** Messages of a longer ticket per event between its snapshots (see {@link snapshotInterval}). */
export const SNAPSHOT_MESSAGES_PER_EVENT = 8

/**
 * Events between snapshots of a ticket of `messages` messages: {@link SNAPSHOT_EVERY}, or an eighth of its messages
 * once that is more. A snapshot costs its messages to write, so a write's share stays that of 8 messages however long
 * the ticket grows; a cold load reads at most an eighth as many events as the snapshot holds messages.
 */
export const snapshotInterval = (messages: number): number =>
  Math.max(SNAPSHOT_EVERY, Math.ceil(messages / SNAPSHOT_MESSAGES_PER_EVENT))

/**
 * The stream's snapshot version once it is at `version` with `state`: `version` when a new snapshot is due, else as
 * it was.
 */
export const snapshotVersionAfter = (snapshotVersion: number, version: number, state: TicketState): number =>
  version - snapshotVersion >= snapshotInterval(state._tag === "Ticket" ? state.messages.length : 0)
    ? version
    : snapshotVersion

const INSTANT = "$hd_instant"

/** What `hd_ticket_snapshots.state` holds: the state and `waitingSince`, instants as epoch milliseconds. */
export const encodeSnapshot = (fold: Pick<TicketFold, "state" | "waitingSince">): string =>
  JSON.stringify({ state: fold.state, waitingSince: fold.waitingSince }, function (this: unknown, key, value) {
    // `value` is `DateTime`'s `toJSON` already; the holder still has the instant itself.
    const raw = (this as Record<string, unknown>)[key]
    return DateTime.isDateTime(raw) ? { [INSTANT]: raw.epochMillis } : value
  })

/** The state and `waitingSince` of a snapshot's text (see {@link encodeSnapshot}). */
export const decodeSnapshot = (text: string): Pick<TicketFold, "state" | "waitingSince"> =>
  JSON.parse(text, (_key, value) =>
    value !== null && typeof value === "object" && typeof value[INSTANT] === "number"
      ? DateTime.unsafeMake(value[INSTANT] as number)
      : value
  )
