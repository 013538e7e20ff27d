import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"

/**
 * Message ids a process reserves from their sequence at a time (docs/decisions/0812-message-id-blocks.md): a message
 * write takes one from memory, and only one write in this many pays a round trip for it.
 */
export const MESSAGE_ID_BLOCK = 32

/**
 * The ids ticket writes hand out, in the caller's transaction: a new ticket's id from its sequence with its
 * organization's next `public_id` from the counter row, and message ids from blocks this process reserved of theirs.
 */
export class TicketIds extends Effect.Service<TicketIds>()("@helpdesk/http/Tickets/TicketIds", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Reserved and not yet handed out, in the sequence's order. Sequences are not transactional: a block taken in a
    // transaction that rolls back stays reserved, and what a process has not handed out when it stops is a gap.
    const reserved: Array<number> = []
    const takeReserved = Effect.sync(() => reserved.shift()!)
    // One reservation at a time: fibers that find nothing reserved wait for it rather than each taking a block, and
    // every block is above the ones before it, so ids are handed out in increasing order.
    const reserving = yield* Effect.makeSemaphore(1)
    const reserveBlockAndTake = sql<{ id: string }>`
      SELECT nextval('hd_ticket_message_id_seq') AS id FROM generate_series(1, ${MESSAGE_ID_BLOCK}) ORDER BY 1`.pipe(
      Effect.flatMap((rows) => {
        for (const row of rows) reserved.push(Number(row.id))
        return takeReserved
      }),
      Effect.orDie
    )
    const reserveAndTake = reserving.withPermits(1)(
      Effect.suspend(() => (reserved.length > 0 ? takeReserved : reserveBlockAndTake))
    )

    /** The id of a new message: unique across processes, increasing within one (not across replicas). */
    const nextMessageId = Effect.suspend(() => (reserved.length > 0 ? takeReserved : reserveAndTake))

    /**
     * A new ticket's ids: its id (its stream's) from the sequence, and the organization's next `public_id`, in one
     * statement. The counter row stays locked until the transaction ends, so concurrent creations take numbers one
     * after another, and a rollback returns the number.
     */
    const nextTicketIds = (organizationId: OrganizationId) =>
      sql<{ lastPublicId: string; ticketId: string }>`
        INSERT INTO hd_ticket_counters (organization_id, last_public_id) VALUES (${organizationId}, 1)
        ON CONFLICT (organization_id) DO UPDATE SET last_public_id = hd_ticket_counters.last_public_id + 1
        RETURNING last_public_id, nextval('hd_ticket_id_seq') AS ticket_id`.pipe(
        Effect.map((rows) => ({ ticketId: Number(rows[0]!.ticketId), publicId: rows[0]!.lastPublicId })),
        Effect.orDie
      )

    return { nextTicketIds, nextMessageId } as const
  }),
  dependencies: []
}) {}
