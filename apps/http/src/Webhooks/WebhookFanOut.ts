import { SqlClient } from "@effect/sql"
import type { RecordedEvent } from "@helpdesk/domain"
import { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import { catchUp } from "../EventStore/Consumer.js"
import type { PostgresEventStore } from "../EventStore/PostgresEventStore.js"
import { withSpan } from "../Observability/Spans.js"
import { webhookBody } from "./WebhookBody.js"
import { webhookConsumerId } from "./Webhooks.js"

/** Events read per batch by a webhook's reader of the global log. */
const FAN_OUT_BATCH = 500

interface BehindRow {
  readonly id: string
  readonly organizationId: string
  readonly publicId: string
}

/**
 * The reader of the global log of one webhook (checkpoint `webhook-{id}` in `hd_checkpoints`), narrowed to its
 * organization's events: each batch writes one pending delivery per event of the webhook's types, in the
 * transaction that moves the checkpoint, so an event is queued exactly once and none is skipped (decision 0301:
 * the reader never passes a transaction still in flight).
 */
const webhookConsumer = (webhook: BehindRow) => ({
  consumerId: webhookConsumerId(Number(webhook.id)),
  batchSize: FAN_OUT_BATCH,
  // Only the organization's events (its index range of the log); types are filtered here, so the checkpoint
  // still moves past the events of other types.
  filter: { organizationId: OrganizationId.make(webhook.organizationId) },
  handle: (events: ReadonlyArray<RecordedEvent>) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Shares the webhook's row with this batch: turning it off or deleting it waits for the batch, and then
      // finds (and gives up) the deliveries the batch queued.
      const [current] = yield* sql<{ readonly active: boolean; readonly eventTypes: ReadonlyArray<string> }>`
        SELECT active, event_types FROM hd_webhooks WHERE id = ${webhook.id} FOR SHARE`
      if (current === undefined || !current.active) return
      const types = new Set(current.eventTypes)
      const rows = events.flatMap((event) => {
        if (types.size > 0 && !types.has(event.type)) return []
        const body = webhookBody(event, webhook.publicId)
        return body === undefined
          ? []
          : [
              {
                webhookId: webhook.id,
                eventId: event.eventId,
                eventType: event.type,
                orderingKey: event.streamId,
                body
              }
            ]
      })
      if (rows.length === 0) return
      yield* sql`INSERT INTO hd_webhook_deliveries ${sql.insert(rows)} ON CONFLICT (webhook_id, event_id) DO NOTHING`
    }).pipe(Effect.orDie)
})

/**
 * One round of fan-out: finds the active webhooks whose checkpoint is behind the end of their organization's
 * readable log (one query when nothing happened, an index probe per webhook) and lets each one's reader catch up.
 * Another replica busy with a webhook's checkpoint makes this one skip it. Answers the events read.
 */
export const fanOutRound: Effect.Effect<number, never, SqlClient.SqlClient | PostgresEventStore> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    // A webhook without a checkpoint (they were reset after a restore, decision 0309) starts at the end of the log:
    // never from its start, which would send the organization's whole history.
    yield* sql`
      INSERT INTO hd_checkpoints (consumer_id, last_tx, last_position)
      SELECT 'webhook-' || w.id, coalesce(head.transaction_id, '0'::xid8), coalesce(head.global_position, 0)
      FROM hd_webhooks w LEFT JOIN LATERAL (
        SELECT transaction_id, global_position FROM hd_events
        WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY transaction_id DESC, global_position DESC LIMIT 1) AS head ON true
      WHERE w.active AND NOT EXISTS (SELECT 1 FROM hd_checkpoints c WHERE c.consumer_id = 'webhook-' || w.id)
      ON CONFLICT (consumer_id) DO NOTHING`.pipe(Effect.orDie)
    const behind = yield* sql<BehindRow>`
      SELECT w.id, w.organization_id, o.public_id FROM hd_webhooks w
      JOIN organizations o ON o.id = w.organization_id
      JOIN hd_checkpoints c ON c.consumer_id = 'webhook-' || w.id
      WHERE w.active AND ((c.last_tx, c.last_position) < (
        SELECT transaction_id, global_position FROM hd_events
        WHERE organization_id = w.organization_id AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY transaction_id DESC, global_position DESC LIMIT 1))`.pipe(Effect.orDie)
    const read = yield* Effect.forEach(behind, (webhook) => catchUp(webhookConsumer(webhook)), { concurrency: 4 })
    return read.reduce((sum, n) => sum + n, 0)
  }
).pipe(withSpan("Webhooks.fanOutRound"))
