import { SqlClient, type SqlError, type Statement } from "@effect/sql"
import {
  evolve,
  fromRecordedEvents,
  initialState,
  type MessageState,
  type MessageView,
  messageView,
  type RecordedEvent,
  TICKET_STATE_VERSION,
  type TicketEvent,
  type TicketState,
  type TicketView,
  ticketEventClasses,
  ticketView
} from "@helpdesk/domain"
import { DateTime, Effect, Either } from "effect"
import { eventsByStream, readStreamEvents } from "../../EventStore/EventsByStream.js"
import { type InlineProjection, InlineProjections, type Replayer } from "../../EventStore/InlineProjection.js"
import { withSpan } from "../../Observability/Spans.js"
import { searchDocument } from "../../Search/SearchText.js"
import { slaProjection } from "../../Sla/SlaProjection.js"
import {
  encodeSnapshot,
  handoverForAppend,
  handoverOf,
  snapshotVersionAfter,
  type TicketHandover
} from "../Store/TicketSnapshot.js"
import { forEachChanged, removedIds } from "./MessageChanges.js"
import { encodeMessageView, encodeTicketView } from "./StoredViews.js"
import { waitingOnCustomerSince, waitingSinceAfter } from "./WaitingSince.js"

/** The decoded events of a stream, in order, or a defect: a stored event this code cannot read is a bug. */
const decodeAll = (recorded: ReadonlyArray<RecordedEvent>): ReadonlyArray<TicketEvent> =>
  Either.getOrThrowWith(fromRecordedEvents(recorded), (error) => error)

/** Whether `events` are the whole start of their stream: positions 1, 2, … without a hole. */
const isStreamPrefix = (events: ReadonlyArray<RecordedEvent>): boolean =>
  events.every((event, i) => event.streamPosition === i + 1)

interface TicketRow {
  readonly ticketId: number
  readonly streamId: string
  readonly version: number
  readonly view: TicketView
  /** When the ticket started waiting on the customer, for the inactivity timer (`WaitingSince.ts`). */
  readonly waitingOnCustomerSince: DateTime.Utc | null
}

interface MessageRow {
  readonly ticketId: number
  readonly ticketVersion: number
  readonly view: MessageView
}

/** A stream's snapshot row: its state at `version`, encoded. */
interface SnapshotRow {
  readonly streamId: string
  readonly version: number
  readonly state: string
}

/** A stream folded to its read-model rows, which message rows to delete, and its snapshot when one is due. */
interface FoldedStream {
  readonly ticket: TicketRow
  readonly messages: ReadonlyArray<MessageRow>
  readonly removedMessageIds: ReadonlyArray<number>
  readonly snapshot: SnapshotRow | null
}

/**
 * A stream folded so far with the domain's `evolve`: the state after its events 1..`version`, and for each message
 * the position of the last event that changed it (the domain's `evolve` keeps unchanged messages as the same
 * objects). A fold can go on with the stream's next events, which is how a rebuild carries a stream from one batch
 * to the next without reading it again.
 */
interface StreamFold {
  state: TicketState
  messages: ReadonlyArray<MessageState>
  waitingSince: DateTime.Utc | null
  version: number
  /** The version of the stream's snapshot row as this fold knows it (0: none); rows of the fold advance it. */
  snapshotVersion: number
  readonly changedAt: Map<number, number>
}

const newFold = (): StreamFold => ({
  state: initialState,
  messages: [],
  waitingSince: null,
  version: 0,
  snapshotVersion: 0,
  changedAt: new Map()
})

/** Folds the stream's next events (positions `fold.version + 1`, … without a hole) into `fold`. */
const foldInto = (fold: StreamFold, recorded: ReadonlyArray<RecordedEvent>): void =>
  foldDecoded(fold, decodeAll(recorded))

/** Folds decoded events, the stream's next ones (positions `fold.version + 1`, …), into `fold`. */
const foldDecoded = (fold: StreamFold, events: ReadonlyArray<TicketEvent>): void => {
  let { state, messages, waitingSince } = fold
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!
    state = evolve(state, event)
    waitingSince = waitingSinceAfter(waitingSince, event)
    if (state._tag !== "Ticket" || state.messages === messages) continue
    // Messages an event did not change are the same objects (evolve's contract): only the changed ones differ.
    const position = fold.version + i + 1
    forEachChanged(messages, state.messages, (message) => fold.changedAt.set(message.id, position))
    messages = state.messages
  }
  fold.state = state
  fold.messages = messages
  fold.waitingSince = waitingSince
  fold.version += events.length
}

/**
 * A fold's read-model rows. A message row is written only when an event after `previousVersion` changed that
 * message, so a reply to a long ticket writes one message row, not all of them; and a message row's
 * `ticket_version` is the position of the last event that changed it, whatever the batching.
 */
const rowsOf = (streamId: string, fold: StreamFold, previousVersion: number): FoldedStream | null => {
  if (fold.state._tag !== "Ticket") return null
  const ticket = fold.state
  const { changedAt } = fold
  // The changed messages the ticket still has: a handed-over write changed one or two of them, not all.
  const messages: Array<MessageRow> = []
  const present = new Set<number>()
  for (const m of ticket.messages) {
    const changed = changedAt.get(m.id)
    if (changed === undefined) continue
    present.add(m.id)
    if (changed > previousVersion)
      messages.push({ ticketId: ticket.id, ticketVersion: changed, view: messageView(ticket.id, m) })
  }
  const snapshotVersion = snapshotVersionAfter(fold.snapshotVersion, fold.version, ticket)
  const snapshot =
    snapshotVersion === fold.snapshotVersion ? null : { streamId, version: fold.version, state: encodeSnapshot(fold) }
  fold.snapshotVersion = snapshotVersion
  return {
    snapshot,
    ticket: {
      ticketId: ticket.id,
      streamId,
      version: fold.version,
      view: ticketView(ticket),
      waitingOnCustomerSince: waitingOnCustomerSince(ticket, fold.waitingSince)
    },
    messages,
    removedMessageIds: present.size === changedAt.size ? [] : [...changedAt.keys()].filter((id) => !present.has(id))
  }
}

/** Folds a whole stream (its events 1..n) into its rows. */
const foldStream = (
  streamId: string,
  recorded: ReadonlyArray<RecordedEvent>,
  previousVersion: number
): FoldedStream | null => {
  const fold = newFold()
  foldInto(fold, recorded)
  // Folded from the start: a snapshot is written when the stream is long enough to need one.
  return rowsOf(streamId, fold, previousVersion)
}

const TICKET_EVENT_TYPES: ReadonlyArray<string> = Object.keys(ticketEventClasses)

/**
 * The `tickets` inline projection: keeps `hd_tickets` (one row per ticket: the domain's ticket view plus its
 * listing columns) and `hd_ticket_messages` (one row per message of a ticket) in step with ticket streams.
 *
 * It folds each touched stream from its first event with the domain's pure projections, so a row never depends
 * on what was stored before it; the row's `version` (last folded stream position) makes it skip streams it is
 * already past, which keeps re-delivery and rebuilds idempotent. Within one append only the new events arrive,
 * so the stream's earlier events are read in one query for every touched stream together.
 */
export const ticketProjection: InlineProjection = {
  name: "tickets",
  eventTypes: TICKET_EVENT_TYPES,
  // A handed-over stream's rows are known before its append: they are written in the append's statement.
  writeWithAppend: (sql, appends, context, appended) => {
    const folded: Array<FoldedStream> = []
    const streamIds = new Set<string>()
    const once = appends.filter((a) => appends.filter((b) => b.streamId === a.streamId).length === 1)
    for (const append of once) {
      const handover = handoverForAppend(context, append)
      if (handover === undefined) continue
      streamIds.add(append.streamId)
      const rows = handedOverRows(append.streamId, handover)
      if (rows !== null) folded.push(rows)
    }
    return streamIds.size === 0 ? undefined : { expressions: rowWrites(sql, folded, appended), streamIds }
  },
  apply: (events, context) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const streams = eventsByStream(events)
      const folded: Array<FoldedStream> = []
      // Streams whose writer handed over its fold: evolved with only their new events, nothing read. (A row that is
      // ahead or behind, during a rebuild, is settled by the version guards of the writes.)
      for (const [streamId, list] of streams) {
        const handover = handoverOf(context, streamId, list)
        if (handover === undefined) continue
        streams.delete(streamId)
        const rows = handedOverRows(streamId, handover)
        if (rows !== null) folded.push(rows)
      }
      if (streams.size === 0) return yield* writeRows(folded)

      const streamIds = [...streams.keys()]
      const stored = yield* sql<{ streamId: string; version: string }>`
        SELECT stream_id, version FROM hd_tickets WHERE stream_id = ANY(${streamIds}::text[])`
      const versions = new Map(stored.map((row) => [row.streamId, Number(row.version)]))

      const complete = new Map<string, ReadonlyArray<RecordedEvent>>()
      const missing: Array<string> = []
      for (const [streamId, list] of streams) {
        const version = versions.get(streamId) ?? 0
        if (list[list.length - 1]!.streamPosition <= version) continue
        if (version === 0 && isStreamPrefix(list)) complete.set(streamId, list)
        else missing.push(streamId)
      }
      if (missing.length > 0) {
        for (const [streamId, list] of yield* readStreamEvents(missing)) complete.set(streamId, list)
      }

      for (const [streamId, recorded] of complete) {
        const stream = foldStream(streamId, recorded, versions.get(streamId) ?? 0)
        if (stream !== null) folded.push(stream)
      }
      yield* writeRows(folded)
    }).pipe(withSpan("TicketProjection.apply")),
  reset: Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`TRUNCATE hd_tickets, hd_ticket_messages, hd_ticket_snapshots`
  ).pipe(Effect.asVoid),
  replayer: () => ticketReplayer()
}

/** The rows of a stream whose writer handed over its fold: the fold evolved with the write's events, nothing read. */
const handedOverRows = (streamId: string, handover: TicketHandover): FoldedStream | null => {
  const handed = handover.before
  const fold: StreamFold = {
    ...handed,
    messages: handed.state._tag === "Ticket" ? handed.state.messages : [],
    changedAt: new Map()
  }
  const previous = handed.state._tag === "Ticket" ? handed.state.messages : []
  foldDecoded(fold, handover.events)
  const rows = rowsOf(streamId, fold, handed.version)
  return rows === null ? null : withRemoved(rows, previous, fold.messages)
}

/** `rows` plus the deletes of messages the stream had before (`previous`) and no longer has (`current`). */
const withRemoved = (
  rows: FoldedStream,
  previous: ReadonlyArray<MessageState>,
  current: ReadonlyArray<MessageState>
): FoldedStream => {
  const removed = removedIds(previous, current)
  return removed.length === 0 ? rows : { ...rows, removedMessageIds: [...rows.removedMessageIds, ...removed] }
}

/** Lets pending I/O callbacks run (a microtask yield would not). */
const ioTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/**
 * The `tickets` projection's rebuild (decision 0303): it keeps each stream's fold in memory from one batch to the
 * next, so a batch folds only its own events and needs no read of `hd_tickets` — which lets the rebuild fold a
 * batch while the previous one is being written.
 *
 * A stream's events must continue its fold without a hole. When they do not (the fold was dropped to bound the
 * memory, or the rebuild read past an append that committed later, out of global order), the stream is read
 * again from `hd_events` and folded from its start, as `apply` does. Its rows are written with the same version
 * guards as `apply`'s, so an append's inline projection running meanwhile, ahead or behind, agrees with them.
 *
 * `streamsKept` (default 20,000) bounds the folds kept: the least recently replayed streams are dropped first.
 */
export const ticketReplayer = (options: { readonly streamsKept?: number } = {}): Replayer => {
  const streamsKept = options.streamsKept ?? 20_000
  const folds = new Map<string, StreamFold>()
  const keep = (streamId: string, fold: StreamFold) => {
    folds.delete(streamId)
    folds.set(streamId, fold)
  }
  return {
    prepare: (events) =>
      Effect.gen(function* () {
        const folded: Array<FoldedStream> = []
        const missing: Array<string> = []
        let sinceYield = 0
        for (const [streamId, list] of eventsByStream(events)) {
          // Let the previous batch's writes go on (their replies are read by this thread) while this one folds.
          if (++sinceYield === 64) {
            sinceYield = 0
            yield* ioTurn
          }
          const fold = folds.get(streamId) ?? newFold()
          const previousVersion = fold.version
          const fresh = previousVersion === 0 ? list : list.filter((e) => e.streamPosition > previousVersion)
          if (fresh.length === 0) continue
          if (!fresh.every((event, i) => event.streamPosition === previousVersion + i + 1)) {
            missing.push(streamId)
            continue
          }
          foldInto(fold, fresh)
          keep(streamId, fold)
          const rows = rowsOf(streamId, fold, previousVersion)
          if (rows !== null) folded.push(rows)
        }
        if (missing.length > 0) {
          // Folded from the start: every message row is written (each under its own version guard).
          for (const [streamId, recorded] of yield* readStreamEvents(missing)) {
            const fold = newFold()
            foldInto(fold, recorded)
            keep(streamId, fold)
            const rows = rowsOf(streamId, fold, 0)
            if (rows !== null) folded.push(rows)
          }
        }
        for (const streamId of folds.keys()) {
          if (folds.size <= streamsKept) break
          folds.delete(streamId)
        }
        return writeRows(folded)
      })
  }
}

/**
 * The writes of folded streams, as one statement: ticket rows (a row already at a later version is left alone),
 * changed message rows (a row already changed by a later event is left alone), and deletes of the messages a
 * stream no longer has. The rows are serialised now, by the caller; the returned effect only sends them.
 *
 * One statement is one round trip and runs atomically on its own; its parts touch different rows (a stream's
 * written messages are the ones it has, its deleted ones those it no longer has), so they do not need to see
 * each other's effects.
 */
const writeRows = (folded: ReadonlyArray<FoldedStream>): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  folded.length === 0
    ? Effect.void
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`WITH ${sql.join(", ", false)(rowWrites(sql, folded, sql.literal("TRUE")))} SELECT 1`
      ).pipe(Effect.asVoid)

/**
 * {@link writeRows}' parts, as common table expressions (`tickets_…`) that write only where `condition` holds (how
 * they go with an append: `InlineProjection.writeWithAppend`).
 *
 * Rows travel as one JSON document per table: one parameter to send and one parse on the server, where arrays
 * of JSON texts would be escaped twice and parsed twice. Views go in encoded by their schema (`StoredViews.ts`),
 * and the listing columns are copied from the encoded view, so a column and its view never disagree.
 */
const rowWrites = (
  sql: SqlClient.SqlClient,
  folded: ReadonlyArray<FoldedStream>,
  condition: Statement.Fragment
): ReadonlyArray<Statement.Fragment> => {
  if (folded.length === 0) return []
  const tickets = JSON.stringify(folded.map((f) => ticketJson(f.ticket)))
  const messages = JSON.stringify(folded.flatMap((f) => f.messages.map(messageJson)))
  const removedTickets: Array<number> = []
  const removedMessages: Array<number> = []
  for (const f of folded) {
    for (const id of f.removedMessageIds) {
      removedTickets.push(f.ticket.ticketId)
      removedMessages.push(id)
    }
  }
  const snapshots = folded.flatMap((f) => (f.snapshot === null ? [] : [f.snapshot]))
  const parts = [
    sql`tickets_rows AS (
        INSERT INTO hd_tickets AS t (
          ticket_id, stream_id, organization_id, version, view, status, priority, assignee_id, inbox_id, waiting_on,
          classification, snoozed_until, waiting_on_customer_since, is_spam, merged_into, created_at, updated_at,
          search_text
        )
        SELECT * FROM jsonb_to_recordset(${tickets}::jsonb) AS r(
          ticket_id bigint, stream_id text, organization_id text, version bigint, view jsonb, status text,
          priority text, assignee_id bigint, inbox_id bigint, waiting_on text, classification text,
          snoozed_until timestamptz, waiting_on_customer_since timestamptz, is_spam boolean, merged_into bigint,
          created_at timestamptz, updated_at timestamptz, search_text text
        ) WHERE ${condition}
        ON CONFLICT (ticket_id) DO UPDATE SET
          stream_id = excluded.stream_id, organization_id = excluded.organization_id, version = excluded.version,
          view = excluded.view, status = excluded.status, priority = excluded.priority,
          assignee_id = excluded.assignee_id, inbox_id = excluded.inbox_id, waiting_on = excluded.waiting_on,
          classification = excluded.classification, snoozed_until = excluded.snoozed_until,
          waiting_on_customer_since = excluded.waiting_on_customer_since, is_spam = excluded.is_spam,
          merged_into = excluded.merged_into, created_at = excluded.created_at, updated_at = excluded.updated_at,
          search_text = excluded.search_text
        WHERE t.version < excluded.version
      )`,
    sql`tickets_messages AS (
        INSERT INTO hd_ticket_messages AS m (ticket_id, message_id, ticket_version, view, created_at, search_text)
        SELECT * FROM jsonb_to_recordset(${messages}::jsonb) AS r(
          ticket_id bigint, message_id bigint, ticket_version bigint, view jsonb, created_at timestamptz,
          search_text text
        ) WHERE ${condition}
        ON CONFLICT (ticket_id, message_id) DO UPDATE SET
          ticket_version = excluded.ticket_version, view = excluded.view, created_at = excluded.created_at,
          search_text = excluded.search_text
        WHERE m.ticket_version < excluded.ticket_version
      )`,
    sql`tickets_removed AS (
        DELETE FROM hd_ticket_messages m
        USING unnest(${removedTickets}::bigint[], ${removedMessages}::bigint[]) AS r(ticket_id, message_id)
        WHERE m.ticket_id = r.ticket_id AND m.message_id = r.message_id AND ${condition}
      )`
  ]
  if (snapshots.length > 0)
    parts.push(sql`tickets_snapshots AS (
        INSERT INTO hd_ticket_snapshots AS s (stream_id, version, schema_version, state)
        SELECT r.stream_id, r.version, ${TICKET_STATE_VERSION}, r.state
        FROM jsonb_to_recordset(${snapshotRecords(snapshots)}::jsonb) AS r(stream_id text, version bigint, state jsonb)
        WHERE ${condition}
        ON CONFLICT (stream_id) DO UPDATE SET
          version = excluded.version, schema_version = excluded.schema_version, state = excluded.state,
          updated_at = now()
        WHERE s.version < excluded.version OR s.schema_version <> excluded.schema_version
      )`)
  return parts
}

// The snapshots as one JSON array with each state's text embedded as it is (decision 0318). As a `jsonb[]`, `pg` would
// escape every state (hundreds of kB for a long ticket) into an array literal, and PostgreSQL parse that literal.
const snapshotRecords = (snapshots: ReadonlyArray<SnapshotRow>) =>
  `[${snapshots.map((x) => `{"stream_id":${JSON.stringify(x.streamId)},"version":${x.version},"state":${x.state}}`).join(",")}]`

const ticketJson = (r: TicketRow) => {
  const view = encodeTicketView(r.view)
  return {
    ticket_id: r.ticketId,
    stream_id: r.streamId,
    organization_id: view.organizationId,
    version: r.version,
    view,
    status: view.status,
    priority: view.priority,
    assignee_id: view.assignee?.id ?? null,
    inbox_id: view.inbox.id,
    waiting_on: view.waitingOn,
    classification: view.classification,
    snoozed_until: view.snoozedUntil,
    waiting_on_customer_since: r.waitingOnCustomerSince === null ? null : DateTime.formatIso(r.waitingOnCustomerSince),
    is_spam: view.isSpam,
    merged_into: view.mergedInto?.id ?? null,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
    // Folded words for the ticket list's `q` (decision 0661).
    search_text: searchDocument(view.subject, view.description, view.customer.name, view.customer.email)
  }
}

const messageJson = (r: MessageRow) => {
  const view = encodeMessageView(r.view)
  return {
    ticket_id: r.ticketId,
    message_id: view.id,
    ticket_version: r.ticketVersion,
    view,
    created_at: view.createdAt,
    search_text: searchDocument(view.content)
  }
}

/** The application's read models: the ticket projection, registered as inline. */
export const TicketReadModelsLive = InlineProjections.layer([ticketProjection, slaProjection])
