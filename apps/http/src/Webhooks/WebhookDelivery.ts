import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import { Agent, request } from "undici"
import { redactUrl } from "../Http/Redaction.js"
import { withSpan } from "../Observability/Spans.js"
import { guardedLookup, isPrivateAddress, RefusedAddress } from "./AddressPolicy.js"
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from "./Signature.js"
import type { WebhookOptions } from "./WebhookOptions.js"

/** A delivery as a worker claimed it, with what it needs to send it. */
interface ClaimedDelivery {
  readonly id: string
  readonly webhookId: string
  readonly eventId: string
  readonly eventType: string
  readonly body: string
  readonly attempts: number
  readonly leaseToken: string
  readonly url: string
  readonly secret: string
  readonly previousSecret: string | null
}

/** What one attempt gave. */
export interface AttemptOutcome {
  readonly succeeded: boolean
  readonly statusCode: number | null
  readonly latencyMs: number
  readonly error: string
}

/** What one round of deliveries did. */
export interface DeliveryRound {
  readonly claimed: number
  readonly succeeded: number
  readonly failed: number
}

/**
 * The HTTP client of deliveries: no redirects are followed (undici's `request` follows none), every delivery has
 * a time limit, and unless private addresses are allowed every connection's resolved address is checked before
 * connecting (DNS rebinding).
 */
export const deliveryAgent = (options: Pick<WebhookOptions, "allowPrivate" | "timeout">): Agent => {
  const ms = Duration.toMillis(options.timeout)
  return new Agent({
    connect: options.allowPrivate ? { timeout: ms } : { timeout: ms, lookup: guardedLookup },
    headersTimeout: ms,
    bodyTimeout: ms,
    connections: 16
  })
}

const describe = (error: unknown): string => {
  const cause = (error as { cause?: unknown })?.cause
  if (error instanceof RefusedAddress || cause instanceof RefusedAddress)
    return (cause instanceof RefusedAddress ? cause : (error as RefusedAddress)).message
  const name = (error as { name?: string })?.name
  if (name === "TimeoutError" || name === "AbortError") return "timed out"
  const code = (error as { code?: string })?.code
  const message = error instanceof Error ? error.message : String(error)
  return redactUrl(code === undefined ? message : `${code}: ${message}`).slice(0, 500)
}

/**
 * Posts one body to `url`, signed, and answers the outcome: a 2xx answer succeeds; any other answer (a redirect
 * too), a refused address, a timeout or a network error fails. Never fails itself.
 */
export const postSigned = (
  agent: Agent,
  options: Pick<WebhookOptions, "allowPrivate" | "timeout">,
  delivery: {
    readonly url: string
    readonly eventId: string
    readonly body: string
    readonly secrets: ReadonlyArray<string>
  }
): Effect.Effect<AttemptOutcome> =>
  Effect.promise(async (): Promise<AttemptOutcome> => {
    const started = performance.now()
    const latency = () => Math.round(performance.now() - started)
    try {
      // An address literal is connected to without a lookup: checked here.
      const host = new URL(delivery.url).hostname.replace(/^\[|\]$/g, "")
      if (!options.allowPrivate && /^[\d.]+$|:/.test(host) && isPrivateAddress(host)) throw new RefusedAddress(host)
      const response = await request(delivery.url, {
        method: "POST",
        dispatcher: agent,
        signal: AbortSignal.timeout(Duration.toMillis(options.timeout)),
        headers: {
          "content-type": "application/json",
          "user-agent": "helpdesk-webhooks/1",
          [SIGNATURE_HEADER]: signatureHeader(delivery.body, delivery.secrets, new Date()),
          [EVENT_ID_HEADER]: delivery.eventId
        },
        body: delivery.body
      })
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined)
      const ok = response.statusCode >= 200 && response.statusCode < 300
      return {
        succeeded: ok,
        statusCode: response.statusCode,
        latencyMs: latency(),
        error: ok
          ? ""
          : response.statusCode >= 300 && response.statusCode < 400
            ? `HTTP ${response.statusCode} (redirects are not followed)`
            : `HTTP ${response.statusCode}`
      }
    } catch (error) {
      return { succeeded: false, statusCode: null, latencyMs: latency(), error: describe(error) }
    }
  })

/** The delay before retry number `attempts` (1 = after the first failure): doubling from the base, capped, jittered. */
export const retryDelay = (options: Pick<WebhookOptions, "retryBase" | "retryCap">, attempts: number): number => {
  const exponential = Duration.toMillis(options.retryBase) * 2 ** Math.min(attempts - 1, 30)
  const capped = Math.min(exponential, Duration.toMillis(options.retryCap))
  // "Equal jitter": between half and all of the delay, so retries of many receivers spread out but still back off.
  return Math.round(capped / 2 + Math.random() * (capped / 2))
}

/**
 * The delivery rounds of webhooks (docs/decisions/0309-webhook-delivery.md). A round claims due deliveries with
 * `FOR UPDATE SKIP LOCKED` under a lease (only the oldest pending one of each webhook and ticket, so one ticket's
 * events go out in order), sends them concurrently outside any transaction, and records each outcome while it
 * still holds the lease. A replica that dies mid-round leaves its rows leased; another takes them over when the
 * lease ends and sends them again (at-least-once).
 */
export const deliveryRounds = (options: WebhookOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const agent = deliveryAgent(options)
    yield* Effect.addFinalizer(() => Effect.promise(() => agent.close()))
    // Longer than any one attempt (each has the time limit), so a live worker never loses its lease.
    const leaseMs = 2 * Duration.toMillis(options.timeout) + 5_000
    const windowMs = Duration.toMillis(options.retryWindow)

    const claim = (token: string) =>
      sql<ClaimedDelivery>`
        WITH due AS (
          SELECT d.id FROM hd_webhook_deliveries d
          JOIN hd_webhooks w ON w.id = d.webhook_id AND w.active
          WHERE d.status = 'pending' AND d.next_attempt_at <= now()
            AND NOT EXISTS (
              SELECT 1 FROM hd_webhook_deliveries e
              WHERE e.webhook_id = d.webhook_id AND e.ordering_key = d.ordering_key AND e.status = 'pending'
                AND e.id < d.id)
          ORDER BY d.next_attempt_at, d.id
          LIMIT ${options.batchSize}
          FOR UPDATE OF d SKIP LOCKED
        )
        UPDATE hd_webhook_deliveries x
        SET lease_token = ${token}, attempts = x.attempts + 1,
            next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
        FROM due, hd_webhooks w
        WHERE x.id = due.id AND w.id = x.webhook_id
        RETURNING x.id, x.webhook_id, x.event_id, x.event_type, x.body, x.attempts, x.lease_token, w.url, w.secret,
          CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret`

    const logAttempt = (delivery: ClaimedDelivery, outcome: AttemptOutcome, at: Date) =>
      sql`
        INSERT INTO hd_webhook_attempts
          (webhook_id, delivery_id, event_id, event_type, attempt, attempted_at, status_code, latency_ms, succeeded, error)
        SELECT ${delivery.webhookId}, d.id, ${delivery.eventId}, ${delivery.eventType}, ${delivery.attempts}, ${at},
          ${outcome.statusCode}, ${outcome.latencyMs}, ${outcome.succeeded}, ${outcome.error}
        FROM hd_webhook_deliveries d WHERE d.id = ${delivery.id}`

    const recordSuccess = (delivery: ClaimedDelivery) =>
      sql`
        UPDATE hd_webhook_deliveries SET status = 'delivered', lease_token = NULL, finished_at = now()
        WHERE id = ${delivery.id} AND lease_token = ${delivery.leaseToken}`

    /** Schedules the next attempt, or (the retry window has passed) gives up and disables the webhook. */
    const recordFailure = (delivery: ClaimedDelivery, outcome: AttemptOutcome) =>
      Effect.gen(function* () {
        const delay = retryDelay(options, delivery.attempts)
        const retried = yield* sql`
          UPDATE hd_webhook_deliveries SET lease_token = NULL,
            first_failed_at = coalesce(first_failed_at, now()),
            next_attempt_at = least(now() + ${delay} * interval '1 millisecond',
              coalesce(first_failed_at, now()) + ${windowMs} * interval '1 millisecond')
          WHERE id = ${delivery.id} AND lease_token = ${delivery.leaseToken}
            AND coalesce(first_failed_at, now()) + ${windowMs} * interval '1 millisecond' > now()
          RETURNING id`
        if (retried.length > 0) return
        const given = yield* sql`
          UPDATE hd_webhook_deliveries SET status = 'abandoned', lease_token = NULL, finished_at = now()
          WHERE id = ${delivery.id} AND lease_token = ${delivery.leaseToken}
          RETURNING id`
        if (given.length === 0) return
        const reason =
          `Deliveries failed for ${Duration.format(options.retryWindow)}: event ${delivery.eventId} ` +
          `(${delivery.eventType}) was tried ${delivery.attempts} times, last: ${outcome.error}.`
        const disabled = yield* sql`
          UPDATE hd_webhooks SET active = false, disabled_reason = ${reason}, disabled_at = now(), updated_at = now()
          WHERE id = ${delivery.webhookId} AND active
          RETURNING id`
        yield* sql`
          UPDATE hd_webhook_deliveries SET status = 'abandoned', lease_token = NULL, finished_at = now()
          WHERE webhook_id = ${delivery.webhookId} AND status = 'pending'`
        if (disabled.length > 0)
          yield* Effect.logWarning(`Webhook ${delivery.webhookId} disabled: ${redactUrl(reason)}`)
      })

    const deliverOne = (delivery: ClaimedDelivery) =>
      Effect.gen(function* () {
        const at = new Date()
        const outcome = yield* postSigned(agent, options, {
          url: delivery.url,
          eventId: delivery.eventId,
          body: delivery.body,
          secrets: delivery.previousSecret === null ? [delivery.secret] : [delivery.secret, delivery.previousSecret]
        })
        yield* sql
          .withTransaction(
            Effect.zipRight(
              logAttempt(delivery, outcome, at),
              outcome.succeeded ? recordSuccess(delivery) : recordFailure(delivery, outcome)
            )
          )
          .pipe(
            // A foreign-key violation: the webhook was deleted while this attempt ran; nothing is left to record.
            Effect.catchIf(
              (error) => (error.cause as { readonly code?: string } | undefined)?.code === "23503",
              () => Effect.void
            )
          )
        return outcome.succeeded
      }).pipe(
        // The row stays leased and is retried after the lease (a lost connection, a webhook deleted meanwhile).
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning(`Webhook delivery ${delivery.id}: recording its outcome failed`, cause), false)
        )
      )

    /** One round: claims up to a batch of due deliveries and sends them all concurrently. */
    const round: Effect.Effect<DeliveryRound> = Effect.gen(function* () {
      const claimed = yield* claim(randomUUID()).pipe(Effect.orDie)
      const results = yield* Effect.forEach(claimed, deliverOne, { concurrency: "unbounded" })
      const succeeded = results.filter((ok) => ok).length
      return { claimed: claimed.length, succeeded, failed: claimed.length - succeeded }
    }).pipe(withSpan("Webhooks.deliveryRound"))

    /** Deletes finished deliveries (and their attempts) older than the log's retention, and orphan checkpoints. */
    const prune = Effect.gen(function* () {
      yield* sql`
        DELETE FROM hd_webhook_deliveries
        WHERE status <> 'pending'
          AND finished_at < now() - ${Duration.toMillis(options.logRetention)} * interval '1 millisecond'`
      yield* sql`
        DELETE FROM hd_checkpoints c WHERE c.consumer_id LIKE 'webhook-%'
          AND NOT EXISTS (SELECT 1 FROM hd_webhooks w WHERE 'webhook-' || w.id = c.consumer_id)`
    }).pipe(Effect.orDie)

    return { round, prune } as const
  })
