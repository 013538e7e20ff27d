import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What the timers need (docs/decisions/0760-timers.md):
 *
 * - `hd_tickets.waiting_on_customer_since`: when the ticket started waiting on the customer, written by the
 *   `tickets` projection (`Tickets/ReadModel/WaitingSince.ts`); null unless the ticket waits on the customer and is
 *   open, not snoozed, not spam and not merged away. A plain column, not a generated one: the instant is text inside
 *   `view`, and a text → timestamptz cast is not immutable. Its partial index is the inactivity timer's scan, as
 *   `hd_tickets_snoozed_until_idx` (migration 0002) is the snooze timer's.
 * - `hd_inactivity_reminders`: the reminder sent for a ticket's current waiting period (one row per ticket,
 *   replaced when a new period gets its reminder), written in the transaction that adds the reminder message.
 *
 * Existing rows get their `waiting_on_customer_since` from their stored events ({@link backfillWaitingSince}).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE hd_tickets ADD COLUMN waiting_on_customer_since timestamptz`
  yield* sql`
    CREATE INDEX hd_tickets_waiting_on_customer_since_idx ON hd_tickets (waiting_on_customer_since)
    WHERE waiting_on_customer_since IS NOT NULL`
  yield* sql`
    CREATE TABLE hd_inactivity_reminders (
      ticket_id bigint PRIMARY KEY,
      waiting_since timestamptz NOT NULL,
      message_id bigint NOT NULL,
      sent_at timestamptz NOT NULL
    )`
  yield* backfillWaitingSince
})

/**
 * Sets `waiting_on_customer_since` of every ticket row from its events, by the rule of
 * `Tickets/ReadModel/WaitingSince.ts` written in SQL: the `at` of the stream's last event that (re)starts the wait (creation or a customer-visible
 * message by an associate, `waiting_on` set to the customer by hand, a reopen, an unsnooze, a spam mark taken
 * off), for rows that wait on the customer and
 * are open, not snoozed, not spam and not merged away. `MessageAdded` version 1 marked notes with
 * `message.internal` (see the domain's upcasters). A test checks that it agrees with the projection.
 */
export const backfillWaitingSince = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    UPDATE hd_tickets t SET waiting_on_customer_since = coalesce(w.since, t.created_at)
    FROM hd_tickets c
    LEFT JOIN LATERAL (
      SELECT (e.data ->> 'at')::timestamptz AS since
      FROM hd_events e
      WHERE e.stream_id = c.stream_id
        AND (
          e.event_type IN ('TicketReopened', 'TicketUnsnoozed', 'TicketUnmarkedSpam')
          OR (e.event_type = 'TicketCreated' AND e.data -> 'by' ->> 'role' = 'associate')
          OR (e.event_type = 'TicketWaitingOnChanged' AND e.data ->> 'waitingOn' = 'customer')
          OR (
            e.event_type = 'MessageAdded'
            AND e.data -> 'message' ->> 'role' = 'associate'
            AND CASE WHEN e.schema_version = 1
              THEN coalesce(e.data -> 'message' ->> 'internal', 'false') <> 'true'
              ELSE e.data -> 'message' ->> 'isVisibleToCustomer' = 'true'
            END
          )
        )
      ORDER BY e.stream_position DESC
      LIMIT 1
    ) w ON true
    WHERE t.ticket_id = c.ticket_id
      AND c.waiting_on = 'customer' AND c.status <> 'closed' AND NOT c.is_spam
      AND c.merged_into IS NULL AND c.snoozed_until IS NULL`
).pipe(Effect.asVoid)
