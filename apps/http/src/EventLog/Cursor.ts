import type { GlobalCheckpoint } from "@helpdesk/domain"
import { GlobalCheckpointStart } from "@helpdesk/domain"
import { Either, Option } from "effect"
import { checkpointText, parseCheckpointText } from "../EventStore/Checkpoint.js"

/**
 * The change feed's cursor: the global log's checkpoint after the last event read, opaque to clients. Written as
 * base64url of `v1:<the checkpoint's text>` so clients do not build it and a later version can change it; the
 * text is the event store's own (docs/decisions/0308-opaque-global-checkpoint.md), unchanged since the first
 * cursors, so a cursor a client kept still reads.
 */

const VERSION = "v1:"
const BASE64URL = /^[A-Za-z0-9_-]{1,96}$/

/** The cursor of a position in the log. */
export const encodeCursor = (checkpoint: GlobalCheckpoint): string =>
  Buffer.from(`${VERSION}${checkpointText(checkpoint)}`, "utf8").toString("base64url")

/** The cursor of the log's start (what a missing `after` means). */
export const startCursor = encodeCursor(GlobalCheckpointStart)

/**
 * The position a cursor names, or `Left` with the reason for a cursor this service did not write (wrong
 * alphabet, length, version, or a checkpoint the event store does not read).
 */
export const decodeCursor = (cursor: string): Either.Either<GlobalCheckpoint, string> => {
  if (!BASE64URL.test(cursor)) return Either.left("Invalid cursor.")
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  const checkpoint = text.startsWith(VERSION) ? parseCheckpointText(text.slice(VERSION.length)) : Option.none()
  // A cursor is canonical: one that re-encodes differently (trailing bits, padding tricks) is not one of ours.
  return Option.isSome(checkpoint) && encodeCursor(checkpoint.value) === cursor
    ? Either.right(checkpoint.value)
    : Either.left("Invalid cursor.")
}
