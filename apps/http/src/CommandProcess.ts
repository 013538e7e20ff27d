import * as path from "node:path"
import { SqlError } from "@effect/sql"
import { Cause, Chunk, Config, Console, Effect, Option } from "effect"
import { DataDirInUse, EmbeddedDatabaseError, JoinRunningOwner } from "./Database/EmbeddedPostgres.js"
import { exitIfShutdownHangs } from "./Shutdown.js"

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOENT", "EPIPE"])

/** Whether a database failure is a lost or refused connection, rather than a failed statement. */
const isConnectionLoss = (error: SqlError.SqlError) => {
  const cause = error.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  return (
    (typeof cause?.code === "string" && CONNECTION_CODES.has(cause.code)) ||
    /connect|connection|terminated/i.test(`${error.message} ${String(cause?.message ?? "")}`)
  )
}

const sqlErrorIn = (cause: Cause.Cause<unknown>) =>
  Chunk.findFirst(
    Chunk.appendAll(Cause.failures(cause), Cause.defects(cause)),
    (error): error is SqlError.SqlError => error instanceof SqlError.SqlError
  )

// The CLI library's own options that take a value, which may stand before the command.
const OPTIONS_WITH_VALUE = new Set(["--log-level", "--completions"])

/** The command word of a command line (`serve`, `org`, …), past options such as `--log-level debug`. */
export const commandWordOf = (argv: ReadonlyArray<string>): string | undefined => {
  const args = argv.slice(2)
  for (let i = 0; i < args.length; i++) {
    if (OPTIONS_WITH_VALUE.has(args[i]!)) i++
    else if (!args[i]!.startsWith("-")) return args[i]
  }
  return undefined
}

const oneLine = (message: string) =>
  Console.error(`Error: ${message}`).pipe(Effect.zipRight(Effect.sync(() => (process.exitCode = 1))))

/**
 * What the `helpdesk` bin runs every command line in (decision 0407): `serve` and `worker` must own an embedded
 * `DATA_DIR` and refuse one that another process has open; one-shot commands may join that process through its
 * socket, and fail in one line if it stops under them. A stop (SIGTERM, SIGINT) is bounded by `SHUTDOWN_TIMEOUT`.
 * Refusals of the embedded database print `Error: …` and set exit code 1.
 */
export const commandProcess =
  (argv: ReadonlyArray<string>) =>
  <A, E, R>(program: Effect.Effect<A, E, R>) => {
    const command = commandWordOf(argv)
    const joinRunningOwner = command !== "serve" && command !== "worker"
    return Effect.zipRight(exitIfShutdownHangs, program).pipe(
      Effect.catchAll((error) =>
        error instanceof DataDirInUse || error instanceof EmbeddedDatabaseError
          ? oneLine(error.message)
          : Effect.fail(error)
      ),
      Effect.catchAllCause((cause) =>
        Effect.gen(function* () {
          const lost = Option.filter(sqlErrorIn(cause), isConnectionLoss)
          const embedded = Option.isNone(yield* Config.option(Config.string("DATABASE_URL")))
          if (!joinRunningOwner || !embedded || Option.isNone(lost)) return yield* Effect.failCause(cause)
          // Only a joined command loses the embedded database: its owner (the service) stopped.
          const dataDir = path.resolve(yield* Config.string("DATA_DIR").pipe(Config.withDefault(".data")))
          return yield* oneLine(
            `the embedded database in DATA_DIR ${dataDir} went away while this command ran: the process that had it open stopped. Run the command again.`
          )
        })
      ),
      Effect.provideService(JoinRunningOwner, joinRunningOwner)
    )
  }
