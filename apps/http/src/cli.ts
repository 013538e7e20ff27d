import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Layer, Logger } from "effect"
import { CliDatabase, CliError, runCli } from "./Cli/Commands.js"
import { OutputLive } from "./Cli/Output.js"
import { DatabaseLive } from "./Database/Database.js"

/** The `helpdesk` bin (`bin/helpdesk.js` imports the compiled file). */
runCli(process.argv).pipe(
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
      // Logs go to stderr so that stdout carries only results (JSON when piped).
      Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true }))
    )
  ),
  (program) => NodeRuntime.runMain(program, { disablePrettyLogger: true })
)
