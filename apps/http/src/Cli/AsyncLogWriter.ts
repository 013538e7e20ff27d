import { Effect } from "effect"
import sonicBoom from "sonic-boom"

/**
 * Log lines held while the destination is not taking them, at most (8 MiB, about 36,000 request lines). A line that
 * would go beyond it is dropped, and counted.
 */
export const LOG_BUFFER_BYTES = 8 * 1024 * 1024

/** Where a long-running command's log lines go without the event loop waiting on the reader. */
export interface LogWriter {
  /** Queues `line` (ending in a line break); never blocks and never throws. */
  readonly write: (line: string) => void
  /** Writes out what is queued before returning: at release, and when the process exits. */
  readonly flushSync: () => void
}

/** The warning that `count` lines were dropped, as one JSON log line (the writer's default). */
export const droppedLinesJson = (count: number) =>
  `${JSON.stringify({
    time: new Date().toISOString(),
    level: "warn",
    message: droppedLinesMessage(count),
    dropped_lines: count
  })}\n`

/** The text of the dropped-lines warning. */
export const droppedLinesMessage = (count: number) =>
  `Dropped ${count} log line${count === 1 ? "" : "s"}: the log's reader did not keep up`

/**
 * Log lines written to `fd` asynchronously (docs/decisions/0821-logs-written-without-waiting.md). Node writes to a
 * pipe synchronously on Linux, so a log reader that stops reading (a stalled collector, a paused container log)
 * would stop every request at its log line. Here the writes run off the event loop and lines queue meanwhile: a busy
 * server writes many lines at once, and past `bufferBytes` (default {@link LOG_BUFFER_BYTES}) lines are dropped, then counted in a warning line once the
 * reader takes lines again (at most one a second).
 * A destination that fails for good (its reader gone: `EPIPE`) is given up without failing the process.
 *
 * `droppedLines` renders that warning in the log's format.
 *
 * Scoped: released, it writes out what is queued; so does the process's exit (a `process.exit` skips releases).
 */
export const asyncLogWriter = (
  fd: number,
  options: { readonly bufferBytes?: number; readonly droppedLines?: (count: number) => string } = {}
) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const sonic = new sonicBoom.SonicBoom({ fd, sync: false, maxLength: options.bufferBytes ?? LOG_BUFFER_BYTES })
      const droppedLines = options.droppedLines ?? droppedLinesJson
      let dropped = 0
      let failed = false
      let reportedAt = 0
      let deferred: ReturnType<typeof setTimeout> | undefined
      const written = (line: string) => {
        try {
          sonic.write(line)
        } catch {
          failed = true
        }
      }
      // Told once the reader takes lines again (a write went through), at most once a second.
      const reportDropped = () => {
        if (dropped === 0 || failed || deferred !== undefined) return
        const wait = reportedAt + 1_000 - Date.now()
        if (wait > 0) {
          deferred = setTimeout(() => {
            deferred = undefined
            reportDropped()
          }, wait).unref()
          return
        }
        const count = dropped
        written(droppedLines(count))
        // `drop` is emitted within `write`: the warning found no room either, and is not itself counted.
        dropped = dropped === count ? 0 : count
        if (dropped === 0) reportedAt = Date.now()
      }
      sonic.on("drop", (data: string) => {
        for (let at = data.indexOf("\n"); at >= 0; at = data.indexOf("\n", at + 1)) dropped++
      })
      sonic.on("write", reportDropped)
      sonic.on("error", () => {
        failed = true
      })
      const flushSync = () => {
        clearTimeout(deferred)
        deferred = undefined
        if (failed) return
        try {
          sonic.flushSync()
        } catch {
          // A reader gone at exit: nothing more can be told to it.
        }
      }
      process.on("exit", flushSync)
      const writer: LogWriter = {
        write: (line) => {
          if (!failed) written(line)
        },
        flushSync
      }
      return { writer, flushSync }
    }),
    ({ flushSync }) =>
      Effect.sync(() => {
        process.off("exit", flushSync)
        flushSync()
      })
  ).pipe(Effect.map(({ writer }) => writer))
