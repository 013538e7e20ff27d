import { Config, Duration, Effect } from "effect"

/**
 * How long a stopping process gives its in-flight requests and its workers' current round (env `SHUTDOWN_TIMEOUT`,
 * an Effect duration, default 10 seconds). Decision 0407.
 */
export const shutdownTimeout = Config.duration("SHUTDOWN_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))

/** What the rest of a shutdown (closing the database, releasing the data directory) may take past the timeout. */
export const SHUTDOWN_GRACE = Duration.seconds(5)

/**
 * Bounds a stop: after the first SIGTERM or SIGINT (which `NodeRuntime.runMain` turns into an interruption), the
 * process exits with code 1 if it is still running `SHUTDOWN_TIMEOUT` plus {@link SHUTDOWN_GRACE} later; a second
 * signal exits at once. Either way exit handlers still run (the data directory's lock is released by one).
 */
export const exitIfShutdownHangs = Effect.gen(function* () {
  const timeout = yield* shutdownTimeout
  const deadline = Duration.toMillis(Duration.sum(timeout, SHUTDOWN_GRACE))
  yield* Effect.sync(() => {
    let stopping = false
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.stderr.write(`Error: ${signal} received again while stopping: exiting now.\n`)
        process.exit(1)
      }
      stopping = true
      // unref: a shutdown that finishes in time exits without waiting for this timer.
      setTimeout(() => {
        process.stderr.write(
          `Error: shutdown did not finish within ${Duration.format(Duration.millis(deadline))} (SHUTDOWN_TIMEOUT plus ${Duration.format(SHUTDOWN_GRACE)}): exiting now.\n`
        )
        process.exit(1)
      }, deadline).unref()
    }
    process.on("SIGTERM", onSignal)
    process.on("SIGINT", onSignal)
  })
})
