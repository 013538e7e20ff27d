import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Duration, Effect, Schema } from "effect"
import * as Repository from "../Database/Repository.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { urlProblem } from "./AddressPolicy.js"
import { newSecret } from "./Signature.js"
import {
  StoredWebhook,
  StoredWebhookAttempt,
  type StoredWebhookWithSecret,
  type WebhookCreate,
  type WebhookUpdate
} from "./Webhook.js"
import { WebhookNotFound, WebhookUrlRefused } from "./WebhookErrors.js"
import { allowPrivateFromEnv, defaultWebhookOptions } from "./WebhookOptions.js"

/** The `hd_checkpoints` id of a webhook's reader of the global log. */
export const webhookConsumerId = (id: number): string => `webhook-${id}`

const newestFirst = Ordering.fixed("id DESC")

/**
 * An organization's webhooks (docs/decisions/0309-webhook-delivery.md): their settings, secrets and delivery log.
 * A webhook delivers the events committed from about its creation (or its re-activation) on: its reader's
 * checkpoint is set to the end of the global log then.
 */
export class Webhooks extends Effect.Service<Webhooks>()("@helpdesk/http/Webhooks/Webhooks", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const webhookRows = Repository.table("hd_webhooks", StoredWebhook)
    const allowPrivate = yield* allowPrivateFromEnv.pipe(Effect.orDie)
    const columns = sql.literal(
      "id, url, event_types, active, disabled_reason, disabled_at, secret_rotated_at, created_at, updated_at, secret"
    )

    const checkUrl = (url: string | undefined) => {
      const reason = url === undefined ? undefined : urlProblem(url, allowPrivate)
      return reason === undefined ? Effect.void : Effect.fail(new WebhookUrlRefused({ reason }))
    }

    /**
     * Sets the webhook's checkpoint to the end of the readable global log: every transaction below the snapshot's
     * xmin has finished, so what it has not read yet is what commits from now on (and what is still in flight).
     */
    const startAtEndOfLog = (id: number) =>
      sql`
        INSERT INTO hd_checkpoints (consumer_id, last_tx, last_position)
        SELECT ${webhookConsumerId(id)}, coalesce(head.transaction_id, '0'::xid8), coalesce(head.global_position, 0)
        FROM (SELECT 1) AS one LEFT JOIN LATERAL (
          SELECT transaction_id, global_position FROM hd_events
          WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY transaction_id DESC, global_position DESC LIMIT 1) AS head ON true
        ON CONFLICT (consumer_id) DO UPDATE
          SET last_tx = excluded.last_tx, last_position = excluded.last_position, updated_at = now()`

    /** The webhook with this id in the organization, or undefined. */
    const findById = webhookRows.findById(
      "Webhooks.findById",
      (organizationId, id: number) =>
        sql`SELECT ${columns} FROM hd_webhooks WHERE organization_id = ${organizationId} AND id = ${id}`
    )

    /** Creates a webhook with a new secret, reading the global log from its end. */
    const create = (
      organizationId: OrganizationId,
      input: WebhookCreate
    ): Effect.Effect<StoredWebhookWithSecret, WebhookUrlRefused> =>
      Effect.gen(function* () {
        yield* checkUrl(input.url)
        const secret = newSecret()
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            const webhook = yield* sql`
              INSERT INTO hd_webhooks ${sql.insert({
                organizationId,
                url: input.url,
                eventTypes: [...new Set(input.event_types ?? [])],
                secret,
                active: input.active ?? true
              })}
              RETURNING ${columns}`.pipe(webhookRows.written)
            yield* startAtEndOfLog(webhook.id)
            return { ...webhook, secret }
          })
        )
      }).pipe(Effect.catchTag("SqlError", Effect.die), withSpan("Webhooks.create"))

    /**
     * Changes a webhook. Turning it off gives up its pending deliveries (kept in the log as abandoned); turning it
     * on clears `disabled_reason` and starts it again at the end of the log (what happened meanwhile is in the
     * change feed, not redelivered).
     */
    const update = (organizationId: OrganizationId, id: number, changes: WebhookUpdate) =>
      Effect.gen(function* () {
        yield* checkUrl(changes.url)
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            const current = yield* sql`
              SELECT ${columns} FROM hd_webhooks WHERE organization_id = ${organizationId} AND id = ${id} FOR UPDATE`.pipe(
              webhookRows.returning,
              Repository.orNotFound(() => new WebhookNotFound({ id }))
            )
            const columnsToSet: Record<string, unknown> = { updatedAt: new Date() }
            if (changes.url !== undefined) columnsToSet.url = changes.url
            if (changes.event_types !== undefined) columnsToSet.eventTypes = [...new Set(changes.event_types)]
            if (changes.active !== undefined && changes.active !== current.active) {
              columnsToSet.active = changes.active
              if (changes.active) {
                columnsToSet.disabledReason = ""
                columnsToSet.disabledAt = null
                yield* startAtEndOfLog(id)
              } else {
                yield* abandonPending(id)
              }
            }
            return yield* sql`
              UPDATE hd_webhooks SET ${sql.update(columnsToSet)} WHERE id = ${id} RETURNING ${columns}`.pipe(
              webhookRows.written
            )
          })
        )
      }).pipe(Effect.catchTag("SqlError", Effect.die), withSpan("Webhooks.update"))

    /** Replaces the secret; the previous one also signs for `overlap` so receivers can switch without a gap. */
    const rotateSecret = (
      organizationId: OrganizationId,
      id: number,
      overlap: Duration.Duration = defaultWebhookOptions.secretOverlap
    ): Effect.Effect<StoredWebhookWithSecret, WebhookNotFound> =>
      Effect.gen(function* () {
        const secret = newSecret()
        const webhook = yield* sql`
          UPDATE hd_webhooks SET previous_secret = secret,
            previous_secret_expires_at = now() + ${Duration.toMillis(overlap)} * interval '1 millisecond',
            secret = ${secret}, secret_rotated_at = now(), updated_at = now()
          WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING ${columns}`.pipe(
          webhookRows.returning,
          Repository.orNotFound(() => new WebhookNotFound({ id }))
        )
        return { ...webhook, secret }
      }).pipe(Effect.catchTag("SqlError", Effect.die), withSpan("Webhooks.rotateSecret"))

    /** Deletes a webhook, its deliveries, its log and its checkpoint: nothing is sent for it afterwards. */
    const remove = (organizationId: OrganizationId, id: number): Effect.Effect<void, WebhookNotFound> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* Repository.deleteById(sql, "hd_webhooks", organizationId, id, () => new WebhookNotFound({ id }))
            yield* sql`DELETE FROM hd_checkpoints WHERE consumer_id = ${webhookConsumerId(id)}`
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die), withSpan("Webhooks.remove"))

    /** The organization's webhooks, one page in the given order (the API's: oldest first). */
    const list = (organizationId: OrganizationId, options: { readonly ordering: Ordering.Ordering<string> }) =>
      webhookRows.page(sql, { columns, where: sql`organization_id = ${organizationId}`, ordering: options.ordering })

    /** A webhook's delivery log, newest attempt first, one page. */
    const attempts = (webhookId: number) =>
      Pagination.page(sql, {
        from: sql`hd_webhook_attempts`,
        select: sql`SELECT id, event_id, event_type, attempt, attempted_at, status_code, latency_ms, succeeded, error
          FROM hd_webhook_attempts`,
        where: sql`webhook_id = ${webhookId}`,
        ordering: newestFirst,
        decode: Schema.decodeUnknownSync(StoredWebhookAttempt)
      })

    const abandonPending = (id: number) =>
      sql`
        UPDATE hd_webhook_deliveries SET status = 'abandoned', lease_token = NULL, finished_at = now()
        WHERE webhook_id = ${id} AND status = 'pending'`

    return { findById, create, update, rotateSecret, remove, list, attempts } as const
  })
}) {}
