import type { GlobalCheckpoint } from "@helpdesk/domain"
import { GlobalCheckpointStart } from "@helpdesk/domain"
import { Either } from "effect"

/**
 * The change feed's cursor: a position in the global log, `(transaction id, global position)` of the last event
 * read (docs/decisions/0301-global-log-by-transaction-id.md), opaque to clients. Written as base64url of
 * `v1:<transaction id>:<global position>` so clients do not build it, and a later version can change it.
 */

const MAX_XID8 = 18446744073709551615n
const MAX_INT8 = 9223372036854775807n
const SHAPE = /^v1:(0|[1-9]\d{0,19}):(0|[1-9]\d{0,18})$/
const BASE64URL = /^[A-Za-z0-9_-]{1,96}$/

/** The cursor of a position in the log. */
export const encodeCursor = (checkpoint: GlobalCheckpoint): string =>
  Buffer.from(`v1:${checkpoint.transactionId}:${checkpoint.globalPosition}`, "utf8").toString("base64url")

/** The cursor of the log's start (what a missing `after` means). */
export const startCursor = encodeCursor(GlobalCheckpointStart)

/**
 * The position a cursor names, or `Left` with the reason for a cursor this service did not write (wrong
 * alphabet, length, version, or numbers out of range).
 */
export const decodeCursor = (cursor: string): Either.Either<GlobalCheckpoint, string> => {
  if (!BASE64URL.test(cursor)) return Either.left("Invalid cursor.")
  const match = SHAPE.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  if (match === null) return Either.left("Invalid cursor.")
  const transactionId = BigInt(match[1]!)
  const globalPosition = BigInt(match[2]!)
  if (transactionId > MAX_XID8 || globalPosition > MAX_INT8) return Either.left("Invalid cursor.")
  // A cursor is canonical: one that re-encodes differently (trailing bits, padding tricks) is not one of ours.
  const checkpoint = { transactionId, globalPosition }
  return encodeCursor(checkpoint) === cursor ? Either.right(checkpoint) : Either.left("Invalid cursor.")
}
