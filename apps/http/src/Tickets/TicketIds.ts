import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"

/**
 * The ids ticket writes hand out: ticket and message ids from their sequences, and each organization's `public_id`
 * from its counter row, in the caller's transaction.
 */
export class TicketIds extends Effect.Service<TicketIds>()("@helpdesk/http/Tickets/TicketIds", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The id of a new ticket (its stream). */
    const nextTicketId = sql<{ id: string }>`SELECT nextval('hd_ticket_id_seq') AS id`.pipe(
      Effect.map((rows) => Number(rows[0]!.id)),
      Effect.orDie
    )

    /** The id of a new message. */
    const nextMessageId = sql<{ id: string }>`SELECT nextval('hd_ticket_message_id_seq') AS id`.pipe(
      Effect.map((rows) => Number(rows[0]!.id)),
      Effect.orDie
    )

    /**
     * The next `public_id` of the organization. The counter row stays locked until the transaction ends, so
     * concurrent creations take numbers one after another, and a rollback returns the number.
     */
    const nextPublicId = (organizationId: OrganizationId) =>
      sql<{ lastPublicId: string }>`
        INSERT INTO hd_ticket_counters (organization_id, last_public_id) VALUES (${organizationId}, 1)
        ON CONFLICT (organization_id) DO UPDATE SET last_public_id = hd_ticket_counters.last_public_id + 1
        RETURNING last_public_id`.pipe(
        Effect.map((rows) => rows[0]!.lastPublicId),
        Effect.orDie
      )

    return { nextTicketId, nextMessageId, nextPublicId } as const
  }),
  dependencies: []
}) {}
