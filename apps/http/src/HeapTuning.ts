import { setFlagsFromString } from "node:v8"

/** The V8 feature the service turns off: allocating an allocation site's objects straight into old space. */
export const PRETENURING = "allocation-site-pretenuring"

/**
 * The V8 flags the service sets at start: pretenuring off, or none when the command line already names it (either
 * way: `node --allocation-site-pretenuring bin/helpdesk.js serve` restores V8's default). Node rejects V8 flags in
 * `NODE_OPTIONS`, so `execArgv` is the only place an operator can have set it.
 */
export const heapFlags = (execArgv: ReadonlyArray<string>): ReadonlyArray<string> =>
  execArgv.some(namesPretenuring) ? [] : [`--no-${PRETENURING}`]

/** Whether a command-line argument is V8's flag for pretenuring, on or off (`-`/`_` alike, `=value` aside). */
const namesPretenuring = (arg: string) =>
  arg.startsWith("--") && arg.slice(2).split("=")[0]!.replaceAll("_", "-").replace(/^no-/, "") === PRETENURING

/**
 * Tunes V8's heap for a request-serving process (decision 0823). Under bursts of concurrent requests V8 sees the
 * objects of one request outlive a scavenge and starts allocating every later request's objects in old space, so a
 * stateless read fills old space at ~10 KB a request and a mark-compact pauses the loop every 10–20 s. Answers the
 * flags it set.
 */
export const tuneHeap = (execArgv: ReadonlyArray<string> = process.execArgv) => {
  const flags = heapFlags(execArgv)
  for (const flag of flags) setFlagsFromString(flag)
  return flags
}
