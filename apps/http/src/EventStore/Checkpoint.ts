import { type GlobalCheckpoint, GlobalCheckpointStart } from "@helpdesk/domain"
import { Brand, Option } from "effect"

/**
 * What is inside the PostgreSQL store's {@link GlobalCheckpoint}: the `(transaction id, global position)` of the
 * last event read (docs/decisions/0301-global-log-by-transaction-id.md, 0308-opaque-global-checkpoint.md),
 * written `<xid8>:<int8>` in canonical decimal. The port's start (the empty checkpoint) is `(0, 0)`. Only this
 * store's code reads or makes one; everything else keeps the opaque value.
 */
export interface LogPosition {
  readonly transactionId: bigint
  readonly globalPosition: bigint
}

const checkpoint = Brand.nominal<GlobalCheckpoint>()

const MAX_XID8 = 18446744073709551615n
const MAX_INT8 = 9223372036854775807n
const TEXT = /^(0|[1-9]\d{0,19}):(0|[1-9]\d{0,18})$/

/** The checkpoint of a position given as PostgreSQL prints it (canonical decimal text of xid8 and int8). */
export const checkpointFromRow = (transactionId: string, globalPosition: string): GlobalCheckpoint =>
  transactionId === "0" && globalPosition === "0"
    ? GlobalCheckpointStart
    : checkpoint(`${transactionId}:${globalPosition}`)

/** The checkpoint of a position. */
export const checkpointOf = (position: LogPosition): GlobalCheckpoint =>
  checkpointFromRow(String(position.transactionId), String(position.globalPosition))

/**
 * The position inside a checkpoint; a checkpoint this store did not make is a defect (the port's readers only
 * hand back what it gave them; text from outside goes through {@link parseCheckpointText}).
 */
export const positionOf = (c: GlobalCheckpoint): LogPosition => {
  if (c === GlobalCheckpointStart) return { transactionId: 0n, globalPosition: 0n }
  const match = TEXT.exec(c)
  if (match === null) throw new Error(`not a PostgreSQL global checkpoint: ${JSON.stringify(c)}`)
  return { transactionId: BigInt(match[1]!), globalPosition: BigInt(match[2]!) }
}

/** A checkpoint's stable text, `<transaction id>:<global position>` (the start is `0:0`), for cursors. */
export const checkpointText = (c: GlobalCheckpoint): string => (c === GlobalCheckpointStart ? "0:0" : c)

/**
 * The checkpoint a text of {@link checkpointText} names, or none for anything else: another shape, leading zeros,
 * or numbers beyond xid8 / int8.
 */
export const parseCheckpointText = (text: string): Option.Option<GlobalCheckpoint> => {
  const match = TEXT.exec(text)
  if (match === null) return Option.none()
  const position = { transactionId: BigInt(match[1]!), globalPosition: BigInt(match[2]!) }
  return position.transactionId > MAX_XID8 || position.globalPosition > MAX_INT8
    ? Option.none()
    : Option.some(checkpointOf(position))
}
