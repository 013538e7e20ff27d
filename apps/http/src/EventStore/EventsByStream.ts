import { SqlClient } from "@effect/sql"
import type { RecordedEvent } from "@helpdesk/domain"
import { Effect } from "effect"
import { eventValueColumns, valuesToRecordedEvent } from "./EventRows.js"

/**
 * The events of each stream, in stream order, streams in order of first appearance: how the inline projections
 * take an append's (or a replay's) events apart.
 */
export const eventsByStream = (events: ReadonlyArray<RecordedEvent>): Map<string, Array<RecordedEvent>> => {
  const streams = new Map<string, Array<RecordedEvent>>()
  for (const event of events) {
    const list = streams.get(event.streamId)
    if (list === undefined) streams.set(event.streamId, [event])
    else list.push(event)
  }
  for (const list of streams.values()) list.sort((a, b) => a.streamPosition - b.streamPosition)
  return streams
}

/** Every stored event of these streams, by stream, in stream order (a projection folding streams from their start). */
export const readStreamEvents = (streamIds: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT ${eventValueColumns(sql)} FROM hd_events
      WHERE stream_id = ANY(${streamIds}::text[])
      ORDER BY stream_id, stream_position`.values.pipe(
      Effect.map((rows) => eventsByStream(rows.map(valuesToRecordedEvent)))
    )
  )
