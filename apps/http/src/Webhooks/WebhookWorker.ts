import { Duration, Effect, Layer, Schedule } from "effect"
import { PostgresEventStore } from "../EventStore/PostgresEventStore.js"
import { deliveryRounds } from "./WebhookDelivery.js"
import { fanOutRound } from "./WebhookFanOut.js"
import { type WebhookOptions, webhookOptionsFromEnv } from "./WebhookOptions.js"

/** How often the delivery log is pruned. */
const PRUNE_EVERY = Duration.minutes(10)

/**
 * The webhook worker: reads the global log into each active webhook's deliveries (fan-out) and sends the due ones
 * (delivery), each a loop of rounds that runs again at once while it finds work, else after `pollInterval`; prunes
 * the delivery log now and then. Safe on any number of replicas. Needs the `SqlClient`.
 */
export const webhookWorkerLayer = (options: WebhookOptions) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const { round, prune } = yield* deliveryRounds(options)
      const logged = <R>(what: string, effect: Effect.Effect<number, never, R>) =>
        Effect.catchAllCause(effect, (cause) => Effect.as(Effect.logWarning(`${what} failed; retrying`, cause), 0))
      // A round runs to its end when the process stops, so what it sent is recorded (decision 0407).
      const fanOut = logged("Webhook fan-out round", Effect.uninterruptible(fanOutRound))
      const deliver = logged(
        "Webhook delivery round",
        Effect.map(Effect.uninterruptible(round), (r) => r.claimed)
      )
      const loop = <R>(step: Effect.Effect<number, never, R>) =>
        Effect.forever(Effect.flatMap(step, (n) => (n > 0 ? Effect.yieldNow() : Effect.sleep(options.pollInterval))))
      yield* Effect.forkScoped(loop(fanOut))
      yield* Effect.forkScoped(loop(deliver))
      yield* Effect.forkScoped(
        Effect.repeat(logged("Webhook log pruning", Effect.as(prune, 0)), Schedule.spaced(PRUNE_EVERY))
      )
    })
  ).pipe(Layer.provide(PostgresEventStore.Default))

/** The webhook worker of the service, options from `WEBHOOKS_*` (docs/operations.md). Needs the `SqlClient`. */
export const WebhookWorkerLive = Layer.unwrapEffect(Effect.map(webhookOptionsFromEnv, webhookWorkerLayer)).pipe(
  Layer.orDie
)
