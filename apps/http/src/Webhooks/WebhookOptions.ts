import { Config, Duration } from "effect"
import { optionsWithDefaults } from "../Timers/WorkerOptions.js"

/** How webhooks are delivered. Production reads them from the environment ({@link webhookOptionsFromEnv}). */
export interface WebhookOptions {
  /** Deliver to loopback, private and link-local addresses too (`WEBHOOKS_ALLOW_PRIVATE`, default false). */
  readonly allowPrivate: boolean
  /** Deliveries claimed per round (`WEBHOOKS_BATCH_SIZE`, default 50); all sent concurrently. */
  readonly batchSize: number
  /** Time limit of one delivery: connect, send, and the answer's headers and body (`WEBHOOKS_TIMEOUT`, 10 s). */
  readonly timeout: Duration.Duration
  /** First retry delay (`WEBHOOKS_RETRY_BASE`, default 30 seconds); doubles per attempt, with jitter. */
  readonly retryBase: Duration.Duration
  /** Longest retry delay (`WEBHOOKS_RETRY_CAP`, default 1 hour). */
  readonly retryCap: Duration.Duration
  /**
   * How long an event keeps being retried after its first failure before the webhook is disabled
   * (`WEBHOOKS_RETRY_WINDOW`, default 24 hours).
   */
  readonly retryWindow: Duration.Duration
  /** Pause between rounds that found nothing to do (`WEBHOOKS_POLL_INTERVAL`, default 200 ms). */
  readonly pollInterval: Duration.Duration
  /** How long finished deliveries and their attempts stay in the log (`WEBHOOKS_LOG_RETENTION`, 7 days). */
  readonly logRetention: Duration.Duration
  /** How long the previous secret also signs after a rotation (`WEBHOOKS_SECRET_OVERLAP`, default 24 hours). */
  readonly secretOverlap: Duration.Duration
}

/** The defaults of {@link WebhookOptions}. */
export const defaultWebhookOptions: WebhookOptions = {
  allowPrivate: false,
  batchSize: 50,
  timeout: Duration.seconds(10),
  retryBase: Duration.seconds(30),
  retryCap: Duration.hours(1),
  retryWindow: Duration.hours(24),
  pollInterval: Duration.millis(200),
  logRetention: Duration.days(7),
  secretOverlap: Duration.hours(24)
}

/** `WEBHOOKS_ALLOW_PRIVATE`: whether webhooks may point at loopback, private and link-local addresses. */
export const allowPrivateFromEnv: Config.Config<boolean> = Config.boolean("WEBHOOKS_ALLOW_PRIVATE").pipe(
  Config.withDefault(false)
)

/** {@link WebhookOptions} from `WEBHOOKS_*`. */
export const webhookOptionsFromEnv: Config.Config<WebhookOptions> = optionsWithDefaults(defaultWebhookOptions, {
  allowPrivate: allowPrivateFromEnv,
  batchSize: Config.integer("WEBHOOKS_BATCH_SIZE"),
  timeout: Config.duration("WEBHOOKS_TIMEOUT"),
  retryBase: Config.duration("WEBHOOKS_RETRY_BASE"),
  retryCap: Config.duration("WEBHOOKS_RETRY_CAP"),
  retryWindow: Config.duration("WEBHOOKS_RETRY_WINDOW"),
  pollInterval: Config.duration("WEBHOOKS_POLL_INTERVAL"),
  logRetention: Config.duration("WEBHOOKS_LOG_RETENTION"),
  secretOverlap: Config.duration("WEBHOOKS_SECRET_OVERLAP")
}).pipe(
  Config.validate({
    message: "WEBHOOKS_BATCH_SIZE must be at least 1 and WEBHOOKS_TIMEOUT at least 100 ms",
    validation: (o) => o.batchSize >= 1 && Duration.toMillis(o.timeout) >= 100
  })
)
