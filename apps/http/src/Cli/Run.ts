import { HelpDoc, ValidationError } from "@effect/cli"
import { Cause, Console, Effect, Exit, Option } from "effect"
import { CliError, COMMAND_PATHS, runCli, UsageError } from "./Commands.js"
import type { LogDestination } from "./Logging.js"
import { type Colors, processColors, stripAnsi, withPlainConsole } from "./Terminal.js"

/** Exit codes of `helpdesk` (docs/decisions/0409-cli-output-and-errors.md). */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const

// The command line after `node script`, without the options in front of the command.
const commandWords = (argv: ReadonlyArray<string>) => argv.slice(2)

/** The command a command line names, as far as it is known: `helpdesk org create`, or `helpdesk`. */
export const commandOf = (argv: ReadonlyArray<string>): string => {
  const words = commandWords(argv)
  const path = COMMAND_PATHS.filter((p) => p.every((name, i) => words[i] === name)).sort(
    (a, b) => b.length - a.length
  )[0]
  return ["helpdesk", ...(path ?? [])].join(" ")
}

/** Where a command's logs go: on stdout for the long-running `serve` and `worker`, stderr for one-shot commands. */
export const logDestinationOf = (argv: ReadonlyArray<string>): LogDestination => {
  const first = commandWords(argv)[0]
  return first === "serve" || first === "worker" ? "stdout" : "stderr"
}

/** The text of the CLI library's refusal, in one line: `missing --name` rather than its wording. */
export const usageMessage = (error: ValidationError.ValidationError): string => {
  const text = stripAnsi(HelpDoc.toAnsiText(error.error)).replace(/\s+/g, " ").trim()
  const missing = /^Expected to find option: '([^']+)'$/.exec(text)
  if (missing !== null) return `missing ${missing[1]}`
  return text === "" ? "invalid command line" : text.charAt(0).toLowerCase() + text.slice(1)
}

/**
 * Runs `helpdesk` on `process.argv`-style arguments and succeeds with its exit code: `0`; `1` for a refusal
 * (`Error: …` on stderr); `2` for a command line it cannot run, as one line
 * (`Error: missing --name (see helpdesk org create --help)`). Help and errors carry ANSI colours only where
 * `colors` allows (a terminal without `NO_COLOR`). Anything else fails as it came, for the runtime to report.
 */
export const runHelpdesk = (argv: ReadonlyArray<string>, colors: Colors = processColors()) =>
  Effect.gen(function* () {
    // The CLI library prints its refusals (and the whole help) on its own: replaced by one line below.
    const exit = yield* withPlainConsole(runCli(argv), colors, () => {}).pipe(Effect.exit)
    if (Exit.isSuccess(exit)) return EXIT.ok as number
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) {
      const error: unknown = failure.value
      if (error instanceof CliError) {
        yield* Console.error(`Error: ${error.message}`)
        return EXIT.failure
      }
      if (error instanceof UsageError || ValidationError.isValidationError(error)) {
        const message = error instanceof UsageError ? error.message : usageMessage(error)
        yield* Console.error(`Error: ${message} (see ${commandOf(argv)} --help)`)
        return EXIT.usage
      }
    }
    return yield* Effect.failCause(exit.cause)
  })
