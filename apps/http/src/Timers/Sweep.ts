import { SqlError } from "@effect/sql"
import {
  Cause,
  Chunk,
  Config,
  type ConfigError,
  type Context,
  type DateTime,
  Duration,
  Effect,
  Layer,
  Schedule
} from "effect"

/** What one claiming transaction of a timer did. */
export interface BatchResult {
  /** Rows claimed (due and not locked by another replica). */
  readonly claimed: number
  /** Tickets on which the timer wrote something. */
  readonly acted: number
  /** Tickets whose write failed (logged, rolled back to their savepoint; they stay due). */
  readonly failed: number
}

/** What a sweep did over all its batches. */
export interface SweepResult {
  readonly batches: number
  readonly claimed: number
  readonly acted: number
  readonly failed: number
}

/**
 * Tickets per claiming transaction. Each ticket's write runs in a savepoint (two nested ones: the command's and
 * the append's), and PostgreSQL keeps up to 64 subtransactions of a transaction in shared memory before other
 * sessions' snapshots have to look them up on disk ("subxid overflow"); 25 tickets stay under that.
 */
export const TIMER_BATCH = 25

/**
 * Runs `batch(now)` again and again while batches come back full and make progress: a full batch means more may
 * be due; a batch in which every ticket failed would only claim the same tickets again.
 */
export const drain = (
  now: Effect.Effect<DateTime.Utc>,
  batch: (now: DateTime.Utc) => Effect.Effect<BatchResult>,
  limit: number
): Effect.Effect<SweepResult> =>
  Effect.gen(function* () {
    let total: SweepResult = { batches: 0, claimed: 0, acted: 0, failed: 0 }
    for (;;) {
      // A batch runs to its commit when the process stops; the stop waits for it (decision 0407).
      const result = yield* Effect.uninterruptible(Effect.flatMap(now, batch))
      total = {
        batches: total.batches + 1,
        claimed: total.claimed + result.claimed,
        acted: total.acted + result.acted,
        failed: total.failed + result.failed
      }
      if (result.claimed < limit || result.failed === result.claimed) return total
    }
  })

/** Whether a failure came from the database (a lost connection, a failed statement): the transaction is gone. */
const isDatabaseFailure = (cause: Cause.Cause<unknown>): boolean =>
  Cause.isInterrupted(cause) ||
  Chunk.some(Cause.defects(cause), (defect) => defect instanceof SqlError.SqlError) ||
  Chunk.some(Cause.failures(cause), (error) => error instanceof SqlError.SqlError)

/**
 * Runs `write` for each claimed row, one after another in the claiming transaction. A write that fails on its
 * own terms (a refusal, a bug, an event it cannot decode) is logged and does not stop the others: its savepoint
 * was rolled back and the ticket stays due, tried again next round. A database failure ends the batch: the whole
 * transaction rolls back (a lost connection takes it anyway) and the round starts over later.
 */
export const forEachClaimed = <Row>(
  timer: string,
  rows: ReadonlyArray<Row>,
  ticketIdOf: (row: Row) => number,
  write: (row: Row) => Effect.Effect<boolean, unknown>
): Effect.Effect<BatchResult> =>
  Effect.gen(function* () {
    let acted = 0
    let failed = 0
    for (const row of rows) {
      const done = yield* write(row).pipe(
        Effect.catchAllCause((cause) =>
          isDatabaseFailure(cause)
            ? Effect.failCause(cause).pipe(Effect.orDie)
            : Effect.logWarning(`${timer}: ticket ${ticketIdOf(row)} failed; it stays due`, cause).pipe(
                Effect.as("failed" as const)
              )
        )
      )
      if (done === "failed") failed++
      else if (done) acted++
    }
    return { claimed: rows.length, acted, failed }
  })

/**
 * A timer's loop in every replica: `tick` every `configName` (default `fallback`), spaced (the next round starts
 * an interval after the last one ended). A failed round is logged and the loop goes on.
 */
export const timerLoop = <R>(
  timer: string,
  configName: string,
  fallback: Duration.DurationInput,
  tick: Effect.Effect<unknown, never, R>
): Layer.Layer<never, ConfigError.ConfigError, R> =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const interval = yield* Config.duration(configName).pipe(Config.withDefault(Duration.decode(fallback)))
      const round = tick.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`${timer} failed; retrying next round`, cause))
      )
      yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(interval)))
    })
  )

/**
 * The loop of a timer service in every replica: {@link timerLoop} over its `sweepDue`, with the service's default
 * layer provided.
 */
export const timerServiceLoop = <I extends { readonly sweepDue: Effect.Effect<unknown> }, E, R>(
  service: Context.Tag<I, I> & { readonly Default: Layer.Layer<I, E, R> },
  timer: string,
  configName: string,
  fallback: Duration.DurationInput
): Layer.Layer<never, ConfigError.ConfigError | E, R> =>
  timerLoop(
    timer,
    configName,
    fallback,
    Effect.flatMap(service, (s) => s.sweepDue)
  ).pipe(Layer.provide(service.Default))
