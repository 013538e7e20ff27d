import { Config, Duration, Effect, Layer, Schedule } from "effect"
import { PendingAttachments } from "./PendingAttachments.js"

const BATCH = 100

/**
 * Deletes unclaimed uploads once they expire, row and file, every `REAPER_INTERVAL` (default 1 minute), and what
 * writes to the blob store interrupted by a stopped process left behind.
 * Safe on any number of replicas: each batch is claimed with `FOR UPDATE SKIP LOCKED`.
 */
export const ExpiredUploadsReaperLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const attachments = yield* PendingAttachments
    const interval = yield* Config.duration("REAPER_INTERVAL").pipe(Config.withDefault(Duration.minutes(1)))
    // A batch runs to its commit when the process stops, so no file is removed without its row (decision 0407).
    const sweep = Effect.uninterruptible(attachments.reapExpired(BATCH)).pipe(
      Effect.repeat({ while: (reaped) => reaped === BATCH }),
      Effect.zipRight(attachments.sweepAbandonedWrites),
      Effect.catchAllCause((cause) => Effect.logWarning("Expired-upload reaper failed; retrying next round", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(interval)))
  })
)
