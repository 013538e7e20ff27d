import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { searchDocument } from "../../Search/SearchText.js"

const BATCH = 1_000

/**
 * Full-text search of tickets (decision 0661): `search_text` on `hd_tickets` (subject, description, customer name and
 * address) and on `hd_ticket_messages` (the message's text), folded in TypeScript (lower case, accents removed) by
 * the ticket projection, with a GIN index on its `simple` tsvector. Existing rows are filled here, in batches.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE hd_tickets ADD COLUMN search_text text NOT NULL DEFAULT ''`
  yield* sql`ALTER TABLE hd_ticket_messages ADD COLUMN search_text text NOT NULL DEFAULT ''`

  let after = -1
  for (;;) {
    const rows = yield* sql<{ ticketId: string; subject: string; description: string; name: string; email: string }>`
      SELECT ticket_id, coalesce(view ->> 'subject', '') AS subject, coalesce(view ->> 'description', '') AS description,
             coalesce(view -> 'customer' ->> 'name', '') AS name, coalesce(view -> 'customer' ->> 'email', '') AS email
      FROM hd_tickets WHERE ticket_id > ${after} ORDER BY ticket_id LIMIT ${BATCH}`
    if (rows.length === 0) break
    yield* sql`
      UPDATE hd_tickets t SET search_text = r.search_text
      FROM unnest(${rows.map((r) => r.ticketId)}::bigint[], ${rows.map((r) =>
        searchDocument(r.subject, r.description, r.name, r.email)
      )}::text[]) AS r(ticket_id, search_text)
      WHERE t.ticket_id = r.ticket_id`
    after = Number(rows[rows.length - 1]!.ticketId)
  }

  let afterTicket = -1
  let afterMessage = -1
  for (;;) {
    const rows = yield* sql<{ ticketId: string; messageId: string; content: string }>`
      SELECT ticket_id, message_id, coalesce(view ->> 'content', '') AS content FROM hd_ticket_messages
      WHERE (ticket_id, message_id) > (${afterTicket}, ${afterMessage})
      ORDER BY ticket_id, message_id LIMIT ${BATCH}`
    if (rows.length === 0) break
    yield* sql`
      UPDATE hd_ticket_messages m SET search_text = r.search_text
      FROM unnest(${rows.map((r) => r.ticketId)}::bigint[], ${rows.map((r) => r.messageId)}::bigint[],
        ${rows.map((r) => searchDocument(r.content))}::text[]) AS r(ticket_id, message_id, search_text)
      WHERE m.ticket_id = r.ticket_id AND m.message_id = r.message_id`
    const last = rows[rows.length - 1]!
    afterTicket = Number(last.ticketId)
    afterMessage = Number(last.messageId)
  }

  yield* sql`CREATE INDEX hd_tickets_search_idx ON hd_tickets USING gin (to_tsvector('simple', search_text))`
  yield* sql`
    CREATE INDEX hd_ticket_messages_search_idx ON hd_ticket_messages USING gin (to_tsvector('simple', search_text))`
  // The subject-only index of the first search is replaced by the one above.
  yield* sql`DROP INDEX IF EXISTS hd_tickets_subject_idx`
})
