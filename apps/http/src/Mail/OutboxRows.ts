import { SqlClient, type Statement } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Schema } from "effect"

/** What ticket writes (and the CSAT automation) put in an outbox row: everything but the sender's identity. */
export const OutboxPayload = Schema.Struct({
  public_id: Schema.String,
  to: Schema.String,
  cc: Schema.Array(Schema.String),
  bcc: Schema.Array(Schema.String),
  subject: Schema.String,
  text: Schema.String,
  html: Schema.String,
  attachment_ids: Schema.Array(Schema.String),
  /** A create-email sent again after its delivery failed: it gets a Message-ID of its own (decision 0663). */
  resend: Schema.optional(Schema.Boolean)
})
export type OutboxPayload = typeof OutboxPayload.Type

/** An outbox row to write in the command's transaction (the mail worker sends it after the commit). */
export interface OutboxRow {
  readonly organizationId: OrganizationId
  readonly ticketId: number
  readonly messageId: number | null
  readonly kind: "ticket_created" | "message" | "csat_survey"
  readonly payload: OutboxPayload
}

/**
 * `rows` as a common table expression named `name` of an append's statement (`TicketAppendRows`), written in their
 * order and only if `appended` holds; `undefined` for no rows.
 */
export const outboxRowsWithAppend = (
  sql: SqlClient.SqlClient,
  name: string,
  rows: ReadonlyArray<OutboxRow>,
  appended: Statement.Fragment
): Statement.Fragment | undefined => {
  if (rows.length === 0) return undefined
  const records = rows.map((row) => ({
    organization_id: row.organizationId,
    ticket_id: row.ticketId,
    message_id: row.messageId,
    kind: row.kind,
    payload: row.payload
  }))
  return sql`${sql(name)} AS (
    INSERT INTO hd_outbox (organization_id, ticket_id, message_id, kind, payload)
    SELECT r.organization_id, r.ticket_id, r.message_id, r.kind, r.payload
    FROM jsonb_array_elements(${JSON.stringify(records)}::jsonb) WITH ORDINALITY AS e(v, n)
    CROSS JOIN LATERAL jsonb_to_record(e.v)
      AS r(organization_id bigint, ticket_id bigint, message_id bigint, kind text, payload jsonb)
    WHERE ${appended}
    ORDER BY e.n)`
}

/**
 * The writing side of the mail outbox (docs/decisions/0654-outbox-and-enrichment.md): rows put in the writer's
 * transaction, sent by `MailOutbox` after the commit. Apart from the worker so that ticket writes and automations
 * can enqueue without importing the worker (which records deliveries through the ticket writes).
 */
export class OutboxRows extends Effect.Service<OutboxRows>()("@helpdesk/http/Mail/OutboxRows", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Writes an outbox row (in the caller's transaction). */
    const enqueue = (row: OutboxRow) =>
      sql`
        INSERT INTO hd_outbox (organization_id, ticket_id, message_id, kind, payload)
        VALUES (${row.organizationId}, ${row.ticketId}, ${row.messageId}, ${row.kind}, ${JSON.stringify(row.payload)}::jsonb)`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    return { enqueue } as const
  }),
  dependencies: []
}) {}
