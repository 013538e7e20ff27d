import { Effect } from "effect"

/**
 * Whether to colour what goes to `stream`: only a terminal, and never when `NO_COLOR` is set to anything
 * non-empty (https://no-color.org).
 */
export const colorsOn = (stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && (env.NO_COLOR ?? "") === ""

// CSI sequences (colours, bold) as the help renderer writes them.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, "g")

/** `text` without ANSI escape sequences. */
export const stripAnsi = (text: string): string => text.replace(ANSI, "")

const plain = (args: ReadonlyArray<unknown>) => args.map((arg) => (typeof arg === "string" ? stripAnsi(arg) : arg))

/** Whether stdout and stderr may carry colours. */
export interface Colors {
  readonly stdout: boolean
  readonly stderr: boolean
}

/** {@link colorsOn} for this process's stdout and stderr. */
export const processColors = (): Colors => ({ stdout: colorsOn(process.stdout), stderr: colorsOn(process.stderr) })

/**
 * Runs `effect` with a console whose `log`/`error` lose their ANSI colours where `colors` says no (the CLI library
 * renders help and errors in ANSI whatever the terminal), and whose `error` goes to `onError` instead when given
 * (so the CLI can print its own one-line usage error).
 */
export const withPlainConsole = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  colors: Colors,
  onError?: (text: string) => void
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(effect, {
      ...console,
      log: (...args) => console.log(...(colors.stdout ? args : plain(args))),
      error: (...args) =>
        onError === undefined
          ? console.error(...(colors.stderr ? args : plain(args)))
          : Effect.sync(() => onError(plain(args).map(String).join(" ")))
    })
  )
