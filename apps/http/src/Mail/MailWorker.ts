import { Effect, Layer, Schedule } from "effect"
import { BlobStoreLive } from "../Attachments/BlobStore.js"
import { MailOutbox, type MailOutboxOptions, mailOutboxLayer, mailOutboxOptionsFromEnv } from "./MailOutbox.js"
import { MailTransportLive } from "./MailTransport.js"

/**
 * The polling loop of the mail worker: rounds of {@link MailOutbox.drainOnce} back to back while they find full
 * batches, then one every `pollInterval`. Needs a `MailTransport`, the `BlobStore`, `TicketCommands` and the
 * `SqlClient`.
 */
export const mailWorkerLayer = (options: MailOutboxOptions) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const outbox = yield* MailOutbox
      // Each batch runs to its end when the process stops, so its mails are sent and recorded (decision 0407).
      const round = Effect.uninterruptible(outbox.drainOnce()).pipe(
        Effect.repeat({ while: (batch) => batch.claimed === options.batchSize }),
        Effect.catchAllCause((cause) => Effect.logWarning("Mail worker round failed; retrying next round", cause))
      )
      yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(options.pollInterval)))
    })
  ).pipe(Layer.provide(mailOutboxLayer(options)))

/**
 * The mail worker of the service (docs/decisions/0750-mail-delivery.md): options from `MAIL_*`, SMTP to `SMTP_URL`
 * or `.eml` files under `DATA_DIR/outbox`, attachments from the service's blob store. Needs `TicketCommands` and
 * the `SqlClient`.
 */
export const MailWorkerLive = Layer.unwrapEffect(Effect.map(mailOutboxOptionsFromEnv, mailWorkerLayer)).pipe(
  Layer.provide(MailTransportLive),
  Layer.provide(BlobStoreLive),
  Layer.orDie
)
