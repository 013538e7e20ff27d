import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Layer } from "effect"
import { CliDatabase, CliError } from "./Cli/Commands.js"
import { LoggerLive } from "./Cli/Logging.js"
import { OutputLive } from "./Cli/Output.js"
import { logDestinationOf, runHelpdesk } from "./Cli/Run.js"
import { commandProcess } from "./CommandProcess.js"
import { DatabaseLive } from "./Database/Database.js"
import { tuneHeap } from "./HeapTuning.js"

tuneHeap()

/** The `helpdesk` bin (`bin/helpdesk.js` imports the compiled file). */
runHelpdesk(process.argv).pipe(
  Effect.flatMap((code) =>
    Effect.sync(() => {
      if (code !== 0) process.exitCode = code
    })
  ),
  commandProcess(process.argv),
  Effect.catchIf(
    (error): error is CliError => error instanceof CliError,
    (error) => Console.error(`Error: ${error.message}`).pipe(Effect.zipRight(Effect.sync(() => (process.exitCode = 1))))
  ),
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.void : Effect.sync(() => (process.exitCode = 1))
  ),
  Effect.provide(
    Layer.mergeAll(
      NodeContext.layer,
      OutputLive,
      Layer.succeed(CliDatabase, DatabaseLive),
      // One-shot commands log on stderr, so that stdout carries only results; `serve` and `worker` on stdout.
      LoggerLive(logDestinationOf(process.argv))
    )
  ),
  (program) => NodeRuntime.runMain(program, { disablePrettyLogger: true })
)
