import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Clock, Config, Context, DateTime, Duration, Effect, Either, Layer, Schedule } from "effect"
import { SURVEY_TOKEN_PATTERN } from "../Csat/CsatToken.js"
import { inboxEmailDomain } from "../Inboxes/EmailPrefix.js"
import { withSpan } from "../Observability/Spans.js"
import { optionsWithDefaults } from "../Timers/WorkerOptions.js"
import { DeliveryRecorder, type DeliveryTarget } from "./DeliveryRecorder.js"
import { MailComposer } from "./MailComposer.js"
import { type MailSendFailed, MailTransport, type SendReceipt } from "./MailTransport.js"

/** How the mail worker runs. Production reads them from the environment ({@link mailOutboxOptionsFromEnv}). */
export interface MailOutboxOptions {
  /** Rows claimed per round (`MAIL_BATCH_SIZE`, default 20). */
  readonly batchSize: number
  /** Mails in flight per process (`MAIL_CONCURRENCY`, default 4; also the SMTP pool size). */
  readonly concurrency: number
  /**
   * How long a claim lasts without renewal before another worker may take the row over (`MAIL_LEASE`, default
   * 30 seconds). The claiming worker renews the leases it holds every third of it while it works on them, so
   * this is how soon the rows of a crashed worker are taken over, not a limit on how long a send may take.
   */
  readonly lease: Duration.Duration
  /** First retry delay after a transient failure (`MAIL_RETRY_BASE`, default 30 seconds); doubles per attempt. */
  readonly retryBase: Duration.Duration
  /** Longest retry delay (`MAIL_RETRY_CAP`, default 1 hour). */
  readonly retryCap: Duration.Duration
  /** Attempts before a transiently failing mail is given up as `failed` (`MAIL_MAX_ATTEMPTS`, default 10). */
  readonly maxAttempts: number
  /** Pause between rounds that found less than a full batch (`MAIL_POLL_INTERVAL`, default 2 seconds). */
  readonly pollInterval: Duration.Duration
  /**
   * Fault injection for tests: runs after a mail's outcome is committed and before its delivery events are
   * recorded (a crash there must not resend). Not read from the environment.
   */
  readonly afterOutcome?: (row: ClaimedRow) => Effect.Effect<void>
}

export const defaultMailOutboxOptions: MailOutboxOptions = {
  batchSize: 20,
  concurrency: 4,
  lease: Duration.seconds(30),
  retryBase: Duration.seconds(30),
  retryCap: Duration.hours(1),
  maxAttempts: 10,
  pollInterval: Duration.seconds(2)
}

/** The worker's options from `MAIL_*` variables, defaulting to {@link defaultMailOutboxOptions}. */
export const mailOutboxOptionsFromEnv: Config.Config<MailOutboxOptions> = optionsWithDefaults(
  defaultMailOutboxOptions,
  {
    batchSize: Config.integer("MAIL_BATCH_SIZE"),
    concurrency: Config.integer("MAIL_CONCURRENCY"),
    lease: Config.duration("MAIL_LEASE"),
    retryBase: Config.duration("MAIL_RETRY_BASE"),
    retryCap: Config.duration("MAIL_RETRY_CAP"),
    maxAttempts: Config.integer("MAIL_MAX_ATTEMPTS"),
    pollInterval: Config.duration("MAIL_POLL_INTERVAL")
  }
).pipe(
  Config.validate({
    message:
      "MAIL_BATCH_SIZE, MAIL_CONCURRENCY and MAIL_MAX_ATTEMPTS must be at least 1, MAIL_LEASE at least 3 seconds",
    validation: (o) =>
      o.batchSize >= 1 && o.concurrency >= 1 && o.maxAttempts >= 1 && Duration.toMillis(o.lease) >= 3000
  })
)

/** An outbox row as a worker claimed it. */
export interface ClaimedRow {
  readonly id: number
  readonly organizationId: OrganizationId
  readonly ticketId: number
  readonly messageId: number | null
  readonly kind: string
  readonly payload: unknown
  readonly attempts: number
  readonly rfcMessageId: string
  readonly outcome: "sent" | "failed" | null
  readonly outcomeAt: Date | null
  readonly failureReason: string
  readonly lastError: string
  readonly createdAt: Date
  readonly leaseToken: string
}

/** The row as `pg` returns it: `bigint` columns as strings. */
interface RawRow extends Omit<ClaimedRow, "id" | "organizationId" | "ticketId" | "messageId"> {
  readonly id: string
  readonly organizationId: string
  readonly ticketId: string
  readonly messageId: string | null
}

const toClaimed = (row: RawRow): ClaimedRow => ({
  ...row,
  id: Number(row.id),
  organizationId: OrganizationId.make(row.organizationId),
  ticketId: Number(row.ticketId),
  messageId: row.messageId === null ? null : Number(row.messageId)
})

/** What one round did. `claimed` = the rest; `crashed` rows stay leased until their lease expires. */
export interface DrainResult {
  readonly claimed: number
  /** Mails handed over in this round (SMTP 250 or `.eml` written). */
  readonly sent: number
  /** Mails that failed for good in this round. */
  readonly failed: number
  /** Mails put back for a later attempt after a transient failure. */
  readonly retried: number
  /** Rows whose outcome was recorded (delivery events appended, row `sent`/`failed`). */
  readonly recorded: number
  /** Rows whose processing died (logged); recovered when their lease expires. */
  readonly crashed: number
  /** Rows left alone because their lease had passed to another worker before their turn came. */
  readonly lost: number
}

type RowResult = "recorded" | "retried" | "record-later" | "crashed" | "lost"

/** Delay before attempt `attempt + 1`: `base · 2^(attempt-1)`, capped, times a random factor in [0.5, 1]. */
export const retryDelay = (options: MailOutboxOptions, attempt: number, random = Math.random()): Duration.Duration => {
  const base = Duration.toMillis(options.retryBase)
  const cap = Duration.toMillis(options.retryCap)
  const exponential = Math.min(cap, base * 2 ** Math.min(Math.max(attempt - 1, 0), 30))
  return Duration.millis(Math.round(exponential * (0.5 + random / 2)))
}

/** Time allowed to record the outcome of a row after a lost write race, before trying again. */
const RECORD_RETRY = Duration.seconds(5)

/**
 * The mail outbox worker's rounds (docs/decisions/0750-mail-delivery.md). {@link MailOutbox.drainOnce} claims due
 * rows with `FOR UPDATE SKIP LOCKED` under a lease, sends each outside any transaction, commits its outcome on the
 * row at once, then records the delivery events and marks the row done. Any number of workers may run against one
 * database; a crash anywhere leaves the row leased, and the next claim after the lease resumes it: a row with an
 * outcome is only recorded, never sent again.
 */
export class MailOutbox extends Context.Tag("@helpdesk/http/Mail/MailOutbox")<
  MailOutbox,
  {
    readonly options: MailOutboxOptions
    /**
     * One round: claims up to `batch` rows due at `now` (default: the database's clock), processes them, and
     * answers what happened. Never fails; problems with single rows are logged.
     */
    readonly drainOnce: (options?: { readonly now?: Date; readonly batch?: number }) => Effect.Effect<DrainResult>
    /** Rounds until one claims less than a full batch; answers the rows claimed in all. */
    readonly drain: (options?: { readonly now?: Date }) => Effect.Effect<number>
  }
>() {}

/** `Refused by the mail server: a@x (550 …); b@y (…)`: which recipients a sent mail did not reach, and why. */
export const refusedRecipients = (receipt: SendReceipt): string => {
  const reasons = new Map((receipt.refusals ?? []).map((r) => [r.address.toLowerCase(), r.reason]))
  const each = receipt.rejected.map((address) => {
    const reason = reasons.get(address.toLowerCase()) ?? ""
    return reason === "" ? address : `${address} (${reason})`
  })
  return `Refused by the mail server: ${each.join("; ")}`
}

/** Builds the {@link MailOutbox} with these options over the {@link MailTransport} in context. */
export const makeMailOutbox = (options: MailOutboxOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transport = yield* MailTransport
    const composer = yield* MailComposer
    const recorder = yield* DeliveryRecorder
    const domain = yield* Effect.orDie(inboxEmailDomain)
    const leaseSeconds = Duration.toMillis(options.lease) / 1000

    const claim = (now: Date | null, batch: number, token: string) =>
      sql<RawRow>`
        WITH due AS (
          SELECT id FROM hd_outbox
          WHERE status IN ('pending', 'sending') AND next_attempt_at <= COALESCE(${now}::timestamptz, now())
          ORDER BY next_attempt_at, id
          LIMIT ${batch}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE hd_outbox AS x SET
          status = 'sending',
          lease_token = ${token},
          next_attempt_at = COALESCE(${now}::timestamptz, now()) + ${leaseSeconds} * interval '1 second',
          attempts = CASE WHEN x.outcome IS NULL THEN x.attempts + 1 ELSE x.attempts END,
          rfc_message_id = COALESCE(x.rfc_message_id,
            '<ticket-' || x.ticket_id
            || CASE WHEN x.kind <> 'ticket_created' THEN '.' || x.id
                    WHEN COALESCE((x.payload->>'resend')::boolean, false) THEN '.r' || x.id ELSE '' END
            || '@' || lower(replace(org.public_id, '_', '-')) || '.' || ${domain} || '>')
        FROM due, organizations org
        WHERE x.id = due.id AND org.id = x.organization_id
        RETURNING x.id, x.organization_id, x.ticket_id, x.message_id, x.kind, x.payload, x.attempts,
                  x.rfc_message_id, x.outcome, x.outcome_at, x.failure_reason, x.last_error, x.created_at,
                  x.lease_token`.pipe(Effect.map((rows) => rows.map(toClaimed)))

    /**
     * Commits what the transport did, before anything else: from here on the row is never sent again. The first
     * outcome stays (a worker that lost its lease and sent too reports the same fact). A brief database outage is
     * retried, since the mail is out and a lost outcome means a resend after the lease. A survey's link is the
     * customer's credential and is never needed again, so its token leaves the payload in the same statement
     * (docs/decisions/0805-secrets-in-logs-and-at-rest.md).
     */
    const saveOutcome = (row: ClaimedRow, outcome: "sent" | "failed", reason: string) =>
      sql<{ outcome: "sent" | "failed"; outcomeAt: Date; failureReason: string }>`
        UPDATE hd_outbox SET
          payload = CASE WHEN kind = 'csat_survey'
            THEN regexp_replace(payload::text, ${SURVEY_TOKEN_PATTERN}, '[redacted]', 'g')::jsonb
            ELSE payload END,
          outcome = COALESCE(outcome, ${outcome}),
          outcome_at = COALESCE(outcome_at, now()),
          failure_reason = CASE WHEN outcome IS NULL THEN ${reason} ELSE failure_reason END
        WHERE id = ${row.id}
        RETURNING outcome, outcome_at, failure_reason`.pipe(
        Effect.retry({ schedule: Schedule.exponential("200 millis"), times: 6 }),
        Effect.orDie,
        Effect.map((rows) => ({ ...row, ...rows[0]! }))
      )

    /**
     * Before sending a row that waited long in its batch: extends the lease, and answers false when the lease has
     * passed to another worker meanwhile (which then owns the row; sending now could send it twice).
     */
    const renewLease = (row: ClaimedRow, now: Date | null) =>
      sql`
        UPDATE hd_outbox SET next_attempt_at = COALESCE(${now}::timestamptz, now()) + ${leaseSeconds} * interval '1 second'
        WHERE id = ${row.id} AND lease_token = ${row.leaseToken} AND status = 'sending'
        RETURNING id`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie
      )

    /**
     * The heartbeat of a batch: extends the lease of every row the batch still holds (finished rows have given
     * their token up), so a send may take longer than the lease while the process lives, and a dead process's
     * rows are free one lease after its last beat.
     */
    const renewBatch = (token: string, now: Date | null) =>
      sql`
        UPDATE hd_outbox SET next_attempt_at = COALESCE(${now}::timestamptz, now()) + ${leaseSeconds} * interval '1 second'
        WHERE lease_token = ${token} AND status = 'sending'`.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("Mail: renewing the leases of a batch failed", cause))
      )
    const heartbeat = (token: string, now: Date | null) =>
      Effect.forever(Effect.delay(renewBatch(token, now), Duration.millis((leaseSeconds * 1000) / 3)))

    /** Puts the row back for another attempt (only while we hold its lease). */
    const retryLater = (row: ClaimedRow, now: Date | null, delay: Duration.Duration, error: string) =>
      sql`
        UPDATE hd_outbox SET status = 'pending', lease_token = NULL, last_error = ${error},
          next_attempt_at = COALESCE(${now}::timestamptz, now()) + ${Duration.toMillis(delay) / 1000} * interval '1 second'
        WHERE id = ${row.id} AND lease_token = ${row.leaseToken}`.pipe(Effect.orDie)

    /** Leaves an outcome to be recorded by a later round (the row keeps `sending`; its outcome stays). */
    const recordLater = (row: ClaimedRow, now: Date | null) =>
      sql`
        UPDATE hd_outbox SET lease_token = NULL,
          next_attempt_at = COALESCE(${now}::timestamptz, now()) + ${Duration.toMillis(RECORD_RETRY) / 1000} * interval '1 second'
        WHERE id = ${row.id} AND lease_token = ${row.leaseToken}`.pipe(Effect.orDie)

    const finish = (row: ClaimedRow) =>
      sql`
        UPDATE hd_outbox SET status = outcome, recorded_at = now(), lease_token = NULL
        WHERE id = ${row.id} AND lease_token = ${row.leaseToken} AND outcome IS NOT NULL`.pipe(Effect.orDie)

    const targetOf = (row: ClaimedRow): DeliveryTarget => ({
      organizationId: row.organizationId,
      ticketId: row.ticketId,
      messageId: row.messageId,
      kind: row.kind
    })

    const gaveUp = (row: ClaimedRow, reason: string) =>
      `Gave up after ${row.attempts} attempts: ${reason === "" ? "no result (the worker stopped each time)" : reason}`

    /**
     * Sends the mail of a row that has no outcome yet; answers the row with its outcome, `"retried"` (put back for
     * later) or `"lost"` (the lease passed to another worker while the row waited in its batch). From the transport
     * to the committed outcome it runs uninterruptibly, so a shutdown waits for mails in flight (bounded by the SMTP
     * timeouts) instead of leaving them to the unavoidable resend window.
     */
    const send = (row: ClaimedRow, now: Date | null, claimedAt: number) =>
      Effect.gen(function* () {
        const waited = (yield* Clock.currentTimeMillis) - claimedAt
        if (waited > leaseSeconds * 250 && !(yield* renewLease(row, now))) return "lost" as const
        return yield* Effect.uninterruptible(attempt(row, now))
      })

    const attempt = (row: ClaimedRow, now: Date | null) =>
      Effect.gen(function* () {
        if (row.attempts > options.maxAttempts) return yield* saveOutcome(row, "failed", gaveUp(row, row.lastError))
        // `.eml`: the file exists, so an earlier attempt wrote it and stopped before committing the outcome.
        if (yield* transport.alreadySent(row.rfcMessageId)) return yield* saveOutcome(row, "sent", "")
        const sent = yield* composer.compose(row, domain).pipe(Effect.flatMap(transport.send), Effect.either)
        if (Either.isRight(sent)) {
          if (sent.right.rejected.length === 0) return yield* saveOutcome(row, "sent", "")
          // Sent to the others: the refused recipients are reported beside `sent` (decision 0662).
          const refused = refusedRecipients(sent.right)
          yield* Effect.logWarning(`Mail ${row.rfcMessageId}: sent, but ${refused}`)
          return yield* saveOutcome(row, "sent", refused)
        }
        const failure: MailSendFailed = sent.left
        if (failure.permanent) return yield* saveOutcome(row, "failed", failure.reason)
        if (row.attempts >= options.maxAttempts) return yield* saveOutcome(row, "failed", gaveUp(row, failure.reason))
        const delay = retryDelay(options, row.attempts)
        yield* Effect.logInfo(
          `Mail ${row.rfcMessageId}: attempt ${row.attempts} failed (${failure.reason}); next in ${Duration.format(delay)}`
        )
        yield* retryLater(row, now, delay, failure.reason)
        return "retried" as const
      })

    const processRow = (row: ClaimedRow, now: Date | null, claimedAt: number, tally: Record<string, number>) =>
      Effect.gen(function* () {
        let done = row
        if (row.outcome === null) {
          const result = yield* send(row, now, claimedAt)
          if (result === "retried" || result === "lost") return result
          done = result
          tally[done.outcome === "sent" ? "sent" : "failed"]! += 1
          if (done.outcome === "failed")
            yield* Effect.logWarning(`Mail ${row.rfcMessageId} failed: ${done.failureReason}`)
        }
        if (options.afterOutcome !== undefined) yield* options.afterOutcome(done)
        const at = DateTime.unsafeFromDate(done.outcomeAt!)
        // The events and the row's final status in one transaction (the ticket write is a savepoint in it).
        const reported = yield* recorder
          .report(targetOf(done), done.outcome!, at, done.failureReason)
          .pipe(
            Effect.zipLeft(finish(done)),
            sql.withTransaction,
            Effect.catchTag("SqlError", Effect.die),
            Effect.either
          )
        if (Either.isLeft(reported)) {
          yield* recordLater(done, now)
          return "record-later" as const
        }
        return "recorded" as const
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(
            Effect.logError(`Mail ${row.rfcMessageId}: processing stopped; resumed after the lease expires`, cause),
            "crashed" as const
          )
        ),
        withSpan("MailOutbox.processRow", { attributes: { outboxId: row.id } })
      )

    const drainOnce = (drainOptions: { readonly now?: Date; readonly batch?: number } = {}) =>
      Effect.gen(function* () {
        const now = drainOptions.now ?? null
        const claimedAt = yield* Clock.currentTimeMillis
        const token = randomUUID()
        const rows = yield* claim(now, drainOptions.batch ?? options.batchSize, token)
        // Ends with the round (its scope): a worker that dies stops renewing, and its rows are free a lease later.
        // Interruptible even when the round runs in an uninterruptible region, or closing the scope would hang.
        if (rows.length > 0) yield* Effect.forkScoped(Effect.interruptible(heartbeat(token, now)))
        const tally: Record<string, number> = { sent: 0, failed: 0 }
        const results = yield* Effect.forEach(rows, (row) => processRow(row, now, claimedAt, tally), {
          concurrency: options.concurrency
        })
        const count = (result: RowResult) => results.filter((r) => r === result).length
        return {
          claimed: rows.length,
          sent: tally.sent!,
          failed: tally.failed!,
          retried: count("retried"),
          recorded: count("recorded"),
          crashed: count("crashed"),
          lost: count("lost")
        } satisfies DrainResult
      }).pipe(
        Effect.scoped,
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logError("Mail outbox round failed", cause), {
            claimed: 0,
            sent: 0,
            failed: 0,
            retried: 0,
            recorded: 0,
            crashed: 0,
            lost: 0
          })
        ),
        withSpan("MailOutbox.drainOnce")
      )

    const drain = (drainOptions: { readonly now?: Date } = {}) =>
      Effect.gen(function* () {
        let total = 0
        while (true) {
          const round = yield* drainOnce(drainOptions)
          total += round.claimed
          if (round.claimed < options.batchSize) return total
        }
      })

    return MailOutbox.of({ options, drainOnce, drain })
  })

/**
 * The {@link MailOutbox} with these options, needing the `SqlClient`, a {@link MailTransport}, the `BlobStore`,
 * `TicketCommands` and `ReadReceipts`' own needs.
 */
export const mailOutboxLayer = (options: MailOutboxOptions) =>
  Layer.effect(MailOutbox, makeMailOutbox(options)).pipe(
    Layer.provide(MailComposer.Default),
    Layer.provide(DeliveryRecorder.Default)
  )
