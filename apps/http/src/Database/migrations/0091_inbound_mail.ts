import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Inbound e-mail (docs/decisions/0751-inbound-mail.md): one row per message received for an organization, by the
 * SMTP listener or `POST /inbound/email/`, whatever became of it.
 *
 * - `rfc_message_id`: the message's own `Message-ID`: a second delivery of the same message (a provider's retried
 *   webhook) finds its row and changes nothing; a later mail that names it in `In-Reply-To` / `References` threads
 *   onto its ticket;
 * - `outcome`: `ticket` (opened a ticket), `message` (added a reply), `bounce` (a delivery status notification
 *   recorded on our mail), `ignored` (`reason` says why: an auto-reply, our own mail, a bounce for mail not ours);
 * - `raw_key`: the blob-store key of the message as received, the whole source with its quoted history
 *   (`content` keeps the reply only).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE hd_inbound_mail (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      rfc_message_id text,
      outcome text NOT NULL CHECK (outcome IN ('ticket', 'message', 'bounce', 'ignored')),
      reason text NOT NULL DEFAULT '',
      ticket_id bigint,
      message_id bigint,
      raw_key text,
      raw_size bigint NOT NULL DEFAULT 0,
      received_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE UNIQUE INDEX hd_inbound_mail_message_id_idx ON hd_inbound_mail (organization_id, rfc_message_id)`
  yield* sql`CREATE INDEX hd_inbound_mail_ticket_idx ON hd_inbound_mail (ticket_id)`
})
