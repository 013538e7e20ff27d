import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import { urlProblem } from "./AddressPolicy.js"
import { newSecret } from "./Signature.js"
import type { Webhook, WebhookAttempt, WebhookCreate, WebhookUpdate, WebhookWithSecret } from "./Webhook.js"
import { WebhookNotFound, WebhookUrlRefused } from "./WebhookErrors.js"
import { allowPrivateFromEnv, defaultWebhookOptions } from "./WebhookOptions.js"

/** The `hd_checkpoints` id of a webhook's reader of the global log. */
export const webhookConsumerId = (id: number): string => `webhook-${id}`

interface WebhookRow {
  readonly id: string
  readonly url: string
  readonly eventTypes: ReadonlyArray<string>
  readonly active: boolean
  readonly disabledReason: string
  readonly disabledAt: Date | null
  readonly secretRotatedAt: Date | null
  readonly createdAt: Date
  readonly updatedAt: Date
  readonly secret: string
}

const toWebhook = (row: WebhookRow): Webhook => ({
  id: Number(row.id),
  url: row.url,
  event_types: row.eventTypes,
  active: row.active,
  disabled_reason: row.disabledReason,
  disabled_at: row.disabledAt,
  secret_rotated_at: row.secretRotatedAt,
  created_at: row.createdAt,
  updated_at: row.updatedAt
})

interface AttemptRow {
  readonly id: string
  readonly eventId: string
  readonly eventType: string
  readonly attempt: number
  readonly attemptedAt: Date
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly succeeded: boolean
  readonly error: string
}

const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  id: Number(row.id),
  event_id: row.eventId,
  event_type: row.eventType,
  attempt: row.attempt,
  attempted_at: row.attemptedAt,
  status_code: row.statusCode,
  latency_ms: row.latencyMs,
  succeeded: row.succeeded,
  error: row.error
})

/**
 * An organization's webhooks (docs/decisions/0309-webhook-delivery.md): their settings, secrets and delivery log.
 * A webhook delivers the events committed from about its creation (or its re-activation) on: its reader's
 * checkpoint is set to the end of the global log then.
 */
export class Webhooks extends Effect.Service<Webhooks>()("@helpdesk/http/Webhooks", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
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
    const findById = (organizationId: number, id: number): Effect.Effect<Webhook | undefined> =>
      sql<WebhookRow>`SELECT ${columns} FROM hd_webhooks WHERE organization_id = ${organizationId} AND id = ${id}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : toWebhook(rows[0]))),
        Effect.orDie,
        Effect.withSpan("Webhooks.findById")
      )

    /** Creates a webhook with a new secret, reading the global log from its end. */
    const create = (
      organizationId: number,
      input: WebhookCreate
    ): Effect.Effect<WebhookWithSecret, WebhookUrlRefused> =>
      Effect.gen(function* () {
        yield* checkUrl(input.url)
        const secret = newSecret()
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql<WebhookRow>`
              INSERT INTO hd_webhooks ${sql.insert({
                organizationId,
                url: input.url,
                eventTypes: [...new Set(input.event_types ?? [])],
                secret,
                active: input.active ?? true
              })}
              RETURNING ${columns}`
            yield* startAtEndOfLog(Number(row!.id))
            return { ...toWebhook(row!), secret }
          })
        )
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Webhooks.create"))

    /**
     * Changes a webhook. Turning it off gives up its pending deliveries (kept in the log as abandoned); turning it
     * on clears `disabled_reason` and starts it again at the end of the log (what happened meanwhile is in the
     * change feed, not redelivered).
     */
    const update = (
      organizationId: number,
      id: number,
      changes: WebhookUpdate
    ): Effect.Effect<Webhook, WebhookNotFound | WebhookUrlRefused> =>
      Effect.gen(function* () {
        yield* checkUrl(changes.url)
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            const [current] = yield* sql<WebhookRow>`
              SELECT ${columns} FROM hd_webhooks WHERE organization_id = ${organizationId} AND id = ${id} FOR UPDATE`
            if (current === undefined) return yield* new WebhookNotFound({ id })
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
            const [row] = yield* sql<WebhookRow>`
              UPDATE hd_webhooks SET ${sql.update(columnsToSet)} WHERE id = ${id} RETURNING ${columns}`
            return toWebhook(row!)
          })
        )
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Webhooks.update"))

    /** Replaces the secret; the previous one also signs for `overlap` so receivers can switch without a gap. */
    const rotateSecret = (
      organizationId: number,
      id: number,
      overlap: Duration.Duration = defaultWebhookOptions.secretOverlap
    ): Effect.Effect<WebhookWithSecret, WebhookNotFound> =>
      Effect.gen(function* () {
        const secret = newSecret()
        const [row] = yield* sql<WebhookRow>`
          UPDATE hd_webhooks SET previous_secret = secret,
            previous_secret_expires_at = now() + ${Duration.toMillis(overlap)} * interval '1 millisecond',
            secret = ${secret}, secret_rotated_at = now(), updated_at = now()
          WHERE organization_id = ${organizationId} AND id = ${id}
          RETURNING ${columns}`
        if (row === undefined) return yield* new WebhookNotFound({ id })
        return { ...toWebhook(row), secret }
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Webhooks.rotateSecret"))

    /** Deletes a webhook, its deliveries, its log and its checkpoint: nothing is sent for it afterwards. */
    const remove = (organizationId: number, id: number): Effect.Effect<void, WebhookNotFound> =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const rows = yield* sql`
              DELETE FROM hd_webhooks WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`
            if (rows.length === 0) return yield* new WebhookNotFound({ id })
            yield* sql`DELETE FROM hd_checkpoints WHERE consumer_id = ${webhookConsumerId(id)}`
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Webhooks.remove"))

    /** The organization's webhooks, oldest first, one page. */
    const list = (organizationId: number) => ({
      count: sql<{ readonly count: string }>`
        SELECT count(*) AS count FROM hd_webhooks WHERE organization_id = ${organizationId}`.pipe(
        Effect.map((rows) => Number(rows[0]!.count)),
        Effect.orDie
      ),
      fetch: (window: { readonly limit: number; readonly offset: number }) =>
        sql<WebhookRow>`SELECT ${columns} FROM hd_webhooks WHERE organization_id = ${organizationId}
          ORDER BY id LIMIT ${window.limit} OFFSET ${window.offset}`.pipe(
          Effect.map((rows) => rows.map(toWebhook)),
          Effect.orDie
        )
    })

    /** A webhook's delivery log, newest attempt first, one page. */
    const attempts = (webhookId: number) => ({
      count: sql<{ readonly count: string }>`
        SELECT count(*) AS count FROM hd_webhook_attempts WHERE webhook_id = ${webhookId}`.pipe(
        Effect.map((rows) => Number(rows[0]!.count)),
        Effect.orDie
      ),
      fetch: (window: { readonly limit: number; readonly offset: number }) =>
        sql<AttemptRow>`
          SELECT id, event_id, event_type, attempt, attempted_at, status_code, latency_ms, succeeded, error
          FROM hd_webhook_attempts WHERE webhook_id = ${webhookId}
          ORDER BY id DESC LIMIT ${window.limit} OFFSET ${window.offset}`.pipe(
          Effect.map((rows) => rows.map(toAttempt)),
          Effect.orDie
        )
    })

    const abandonPending = (id: number) =>
      sql`
        UPDATE hd_webhook_deliveries SET status = 'abandoned', lease_token = NULL, finished_at = now()
        WHERE webhook_id = ${id} AND status = 'pending'`

    return { findById, create, update, rotateSecret, remove, list, attempts } as const
  })
}) {}
