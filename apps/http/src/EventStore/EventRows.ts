import type { SqlClient } from "@effect/sql"
import type { RecordedEvent } from "@helpdesk/domain"
import { checkpointFromRow } from "./Checkpoint.js"

/** A row of `hd_events` as the client returns it (camelCased; int8 and xid8 as strings). */
export interface EventRow {
  readonly globalPosition: string
  readonly transactionId: string
  readonly streamId: string
  readonly streamPosition: string
  readonly eventId: string
  readonly eventType: string
  readonly schemaVersion: number
  readonly data: unknown
  readonly metadata: Record<string, unknown>
  readonly createdAt: Date
}

/** The select list of every query that returns {@link EventRow}s. */
export const eventColumns = (sql: SqlClient.SqlClient) =>
  sql.literal(
    "global_position, transaction_id, stream_id, stream_position, event_id, event_type, schema_version, data, metadata, created_at"
  )

/** An `hd_events` row as the port's {@link RecordedEvent}. */
export const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  eventId: row.eventId,
  type: row.eventType,
  schemaVersion: row.schemaVersion,
  data: row.data,
  metadata: row.metadata,
  streamId: row.streamId,
  streamPosition: Number(row.streamPosition),
  globalPosition: BigInt(row.globalPosition),
  checkpoint: checkpointFromRow(row.transactionId, row.globalPosition),
  createdAt: row.createdAt
})

/**
 * The select list of reads of many rows as arrays of values ({@link valuesToRecordedEvent}): {@link eventColumns},
 * but `created_at` as whole epoch milliseconds (what a `Date` holds), cheaper to read than a timestamp's text.
 */
export const eventValueColumns = (sql: SqlClient.SqlClient) =>
  sql.literal(
    "global_position, transaction_id, stream_id, stream_position, event_id, event_type, schema_version, data, metadata, floor(extract(epoch FROM created_at) * 1000)::float8"
  )

/**
 * An `hd_events` row read as an array of values (`sql\`SELECT ${eventValueColumns(sql)} …\`.values`) as a
 * {@link RecordedEvent}. Reads of many rows (the rebuild) take this form: `pg` builds no object per row and the
 * client renames no columns, which was a tenth of a rebuild's time.
 */
export const valuesToRecordedEvent = (row: ReadonlyArray<unknown>): RecordedEvent => ({
  eventId: row[4] as string,
  type: row[5] as string,
  schemaVersion: row[6] as number,
  data: row[7],
  metadata: row[8] as Record<string, unknown>,
  streamId: row[2] as string,
  streamPosition: Number(row[3]),
  globalPosition: BigInt(row[0] as string),
  checkpoint: checkpointFromRow(row[1] as string, row[0] as string),
  createdAt: new Date(row[9] as number)
})
