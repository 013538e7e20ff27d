import type { TicketState } from "@helpdesk/domain"
import { DateTime } from "effect"

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

/** The fold of an empty stream. */
export const emptyFold: TicketFold = { state: { _tag: "NoTicket" }, version: 0, waitingSince: null, snapshotVersion: 0 }

/**
 * Events between snapshots: a load without a cached fold reads the snapshot and fewer than this many events after
 * it; a snapshot (the whole state, O(messages) to write) is written by one append in this many.
 */
export const SNAPSHOT_EVERY = 32

/** The stream's snapshot version once it is at `version`: `version` when a new snapshot is due, else as it was. */
export const snapshotVersionAfter = (snapshotVersion: number, version: number): number =>
  version - snapshotVersion >= SNAPSHOT_EVERY ? version : snapshotVersion

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
