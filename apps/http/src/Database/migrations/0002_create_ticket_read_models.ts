import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The ticket and message read models, maintained by the `tickets` inline projection
 * (apps/http/src/Tickets/ReadModel/TicketProjection.ts). `view` holds the domain's view as JSON (camelCase keys,
 * instants as ISO-8601 strings); the other columns copy the fields that listing and filtering use, so queries
 * need no JSON operators. `version` is the last stream position folded into the row, which makes the projection
 * idempotent (docs/decisions/0304-ticket-read-models.md).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE hd_tickets (
      ticket_id bigint PRIMARY KEY,
      stream_id text NOT NULL UNIQUE,
      organization_id text NOT NULL,
      version bigint NOT NULL,
      view jsonb NOT NULL,
      status text NOT NULL,
      priority text NOT NULL,
      assignee_id bigint,
      inbox_id bigint NOT NULL,
      waiting_on text NOT NULL,
      classification text NOT NULL,
      snoozed_until timestamptz,
      is_spam boolean NOT NULL,
      merged_into bigint,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  // The ticket list: newest activity first within an organization, optionally by status, assignee or inbox.
  yield* sql`CREATE INDEX hd_tickets_organization_updated_idx ON hd_tickets (organization_id, updated_at DESC, ticket_id DESC)`
  yield* sql`CREATE INDEX hd_tickets_organization_status_idx ON hd_tickets (organization_id, status, updated_at DESC)`
  yield* sql`CREATE INDEX hd_tickets_organization_assignee_idx ON hd_tickets (organization_id, assignee_id)`
  yield* sql`CREATE INDEX hd_tickets_organization_inbox_idx ON hd_tickets (organization_id, inbox_id)`
  // The snooze timer's scan: only snoozed tickets are in it.
  yield* sql`CREATE INDEX hd_tickets_snoozed_until_idx ON hd_tickets (snoozed_until) WHERE snoozed_until IS NOT NULL`

  // A merge carries messages over with their ids, so a message id is unique per ticket, not globally.
  yield* sql`
    CREATE TABLE hd_ticket_messages (
      ticket_id bigint NOT NULL,
      message_id bigint NOT NULL,
      ticket_version bigint NOT NULL,
      view jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (ticket_id, message_id)
    )`
  yield* sql`CREATE INDEX hd_ticket_messages_message_id_idx ON hd_ticket_messages (message_id)`
})
