import { Context, Effect, Layer } from "effect"

/** Where the CLI writes its results: JSON when stdout is not a terminal, readable lines when it is. */
export class Output extends Context.Tag("@helpdesk/http/Cli/Output")<
  Output,
  { readonly result: (value: Record<string, unknown>, human: string) => Effect.Effect<void> }
>() {}

/** Writes to the process's stdout, choosing the format by whether it is a terminal. */
export const OutputLive = Layer.sync(Output, () => ({
  result: (value, human) =>
    Effect.sync(() => {
      process.stdout.write(process.stdout.isTTY ? `${human}\n` : `${JSON.stringify(value)}\n`)
    })
}))
