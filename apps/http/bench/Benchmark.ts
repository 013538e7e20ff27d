import { type ChildProcess, fork } from "node:child_process"
import * as os from "node:os"
import { monitorEventLoopDelay } from "node:perf_hooks"
import * as v8 from "node:v8"
import { Effect } from "effect"

/** A benchmark the runner (`bench/index.ts`) can run: it prints its own figures and baselines. */
export interface Benchmark {
  readonly name: string
  readonly description: string
  readonly run: Effect.Effect<void, unknown>
}

/** How long a run of operations took, and each one's latency. */
export interface Timing {
  readonly operations: number
  readonly seconds: number
  readonly latenciesMs: ReadonlyArray<number>
}

/** Runs `operation(0)`…`operation(count - 1)`, `concurrency` at a time, timing the whole and each one. */
export const timed = <E, R>(
  count: number,
  concurrency: number,
  operation: (i: number) => Effect.Effect<unknown, E, R>
): Effect.Effect<Timing, E, R> =>
  Effect.gen(function* () {
    const latencies: Array<number> = new Array(count)
    const start = performance.now()
    yield* Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) =>
        Effect.suspend(() => {
          const begun = performance.now()
          return Effect.tap(operation(i), () =>
            Effect.sync(() => {
              latencies[i] = performance.now() - begun
            })
          )
        }),
      { concurrency, discard: true }
    )
    return { operations: count, seconds: (performance.now() - start) / 1000, latenciesMs: latencies }
  })

/** The `p`th percentile of ascending `sorted` (nearest rank), `empty` when there is none. */
export const percentile = (sorted: ReadonlyArray<number>, p: number, empty = 0) =>
  sorted.length === 0 ? empty : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** The median of `values` (the upper one of an even count), 0 when there is none. */
export const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

const fixed = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits })

/** One line of a figure: rate, and latency percentiles when the operations were timed one by one. */
export const describeTiming = (label: string, timing: Timing, unitsPerOperation = 1, unit = "events") => {
  const rate = (timing.operations * unitsPerOperation) / timing.seconds
  const sorted = [...timing.latenciesMs].sort((a, b) => a - b)
  return `${label.padEnd(58)} ${fixed(rate).padStart(9)} ${unit}/s   p50 ${fixed(percentile(sorted, 50), 2)} ms   p99 ${fixed(percentile(sorted, 99), 2)} ms   (${fixed(timing.operations * unitsPerOperation)} in ${fixed(timing.seconds, 2)} s)`
}

/** A rate as a share of its baseline. */
export const ratio = (timing: Timing, baseline: Timing, unitsPerOperation = 1, baselineUnitsPerOperation = 1) => {
  const rate = (timing.operations * unitsPerOperation) / timing.seconds
  const base = (baseline.operations * baselineUnitsPerOperation) / baseline.seconds
  return `${fixed((100 * rate) / base, 1)}% of baseline`
}

/** One line of a throughput figure: `count` `unit` in `seconds`, with the rate's share of a `baseline` rate if given. */
export const rateLine = (
  label: string,
  width: number,
  unit: string,
  count: number,
  seconds: number,
  baseline?: number
) => {
  const rate = count / seconds
  const share = baseline === undefined ? "" : `   ${((100 * rate) / baseline).toFixed(1)}% of baseline`
  return `${label.padEnd(width)} ${rate.toFixed(0).padStart(7)} ${unit}/s   (${count} in ${seconds.toFixed(2)} s)${share}`
}

/** The machine, for the record. */
export const machine = () => {
  const cpus = os.cpus()
  return `${cpus.length} × ${cpus[0]?.model ?? "unknown CPU"}, ${fixed(os.totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`
}

const CPU_QUERY = "cpu?"
const LOOP_QUERY = "loop?"
const HEAP_QUERY = "heap?"

/** How late the event loop ran a server's timers since the last such question, in milliseconds. */
export interface LoopDelay {
  readonly p99: number
  readonly max: number
}

/** What V8's collector did in a server since the last such question. */
export interface HeapActivity {
  /** Major collections: mark-compacts, and incremental marking steps that finished one. */
  readonly majorCollections: number
  /** Their time on the main thread, in milliseconds. */
  readonly majorMs: number
  /** Scavenges' time on the main thread, in milliseconds. */
  readonly scavengeMs: number
  /** Bytes that entered old space (promoted by scavenges or allocated there), in all. */
  readonly oldSpaceAdded: number
}

const YOUNG_SPACES = new Set(["new_space", "new_large_object_space"])

/** What the old generation holds: every space but the young ones (old, code, large objects…). */
const oldSpaceUsed = (spaces: ReadonlyArray<{ readonly spaceName: string; readonly spaceUsedSize: number }>) =>
  spaces.reduce((sum, space) => (YOUNG_SPACES.has(space.spaceName) ? sum : sum + space.spaceUsedSize), 0)

/**
 * What the collector did between two calls. Old space is read at each collection's start and end: it grows by what
 * enters it (scavenges promote, the program allocates there) and shrinks by a major collection and the sweeping after
 * one, so what entered is the sum of its rises, apart from across a major collection. The first call starts counting.
 */
const heapActivityCounter = () => {
  let profiler: v8.GCProfiler | undefined
  let since = 0
  return (): HeapActivity => {
    const result = profiler?.stop()
    const now = oldSpaceUsed(
      v8
        .getHeapSpaceStatistics()
        .map((space) => ({ spaceName: space.space_name, spaceUsedSize: space.space_used_size }))
    )
    let majorCollections = 0
    let majorMs = 0
    let scavengeMs = 0
    let oldSpaceAdded = 0
    let last = since
    for (const gc of result?.statistics ?? []) {
      const before = oldSpaceUsed(gc.beforeGC.heapSpaceStatistics)
      const after = oldSpaceUsed(gc.afterGC.heapSpaceStatistics)
      oldSpaceAdded += Math.max(0, before - last)
      if (gc.gcType === "Scavenge") {
        oldSpaceAdded += Math.max(0, after - before)
        scavengeMs += gc.cost / 1000
      } else {
        majorCollections += gc.gcType === "MarkSweepCompact" ? 1 : 0
        majorMs += gc.cost / 1000
      }
      last = after
    }
    if (result !== undefined) oldSpaceAdded += Math.max(0, now - last)
    since = now
    profiler = new v8.GCProfiler()
    profiler.start()
    return { majorCollections, majorMs, scavengeMs, oldSpaceAdded }
  }
}

/**
 * For a server script: answers its parent's {@link ServerProcess.cpuMicros} queries with its CPU time so far, its
 * {@link ServerProcess.loopDelay} queries with how late its event loop ran since the last one (sampled every 5 ms),
 * and its {@link ServerProcess.heapActivity} queries with what the collector did since the last one.
 */
export const answerServerQueries = () => {
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  const heapActivity = heapActivityCounter()
  process.on("message", (message) => {
    if (message === CPU_QUERY) {
      const { user, system } = process.cpuUsage()
      process.send?.({ cpuMicros: user + system })
    } else if (message === LOOP_QUERY) {
      const loopDelay: LoopDelay = { p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 }
      delay.reset()
      process.send?.({ loopDelay })
    } else if (message === HEAP_QUERY) {
      process.send?.({ heapActivity: heapActivity() })
    }
  })
}

/**
 * A server child process: what it was ready with, its CPU time so far (µs, user + system), and how late its event
 * loop ran since the last `loopDelay` (a stall of the server's own, apart from time spent queued at the socket).
 */
export type ServerProcess<Ready> = Ready & {
  readonly cpuMicros: Effect.Effect<number>
  readonly loopDelay: Effect.Effect<LoopDelay>
  readonly heapActivity: Effect.Effect<HeapActivity>
}

/** Asks `child` `query` and answers the field `key` of its reply. */
const ask = <A>(child: ChildProcess, query: string, key: string) =>
  Effect.async<A>((resume) => {
    const answer = (message: unknown) => {
      if (typeof message === "object" && message !== null && key in message) {
        child.off("message", answer)
        resume(Effect.succeed((message as Record<string, A>)[key]!))
      }
    }
    child.on("message", answer)
    child.send(query)
  })

/**
 * Starts the server script `script` in a child process with `env` added, and waits for the first message it sends
 * (what it is ready with), with `nodeFlags` after this process's own; the child is killed when the scope closes. `cpuMicros` and `loopDelay` ask the child
 * (which calls {@link answerServerQueries}): its CPU time, the server's own cost per request apart from the load
 * generator's, and how late its event loop ran.
 */
export const serverProcess = <Ready>(
  script: string,
  env: Record<string, string>,
  options: { readonly nodeFlags?: ReadonlyArray<string> } = {}
) =>
  Effect.acquireRelease(
    Effect.async<{ readonly child: ChildProcess; readonly ready: Ready }>((resume) => {
      const child = fork(script, [], {
        env: { ...process.env, ...env },
        execArgv: [...process.execArgv, ...(options.nodeFlags ?? [])],
        stdio: ["ignore", "ignore", "inherit", "ipc"]
      })
      child.once("message", (message) => resume(Effect.succeed({ child, ready: message as Ready })))
      child.once("exit", (code) => resume(Effect.dieMessage(`benchmark server exited with ${code}`)))
    }),
    ({ child }) => Effect.sync(() => child.kill())
  ).pipe(
    Effect.map(
      ({ child, ready }): ServerProcess<Ready> => ({
        ...ready,
        cpuMicros: Effect.map(ask<number>(child, CPU_QUERY, "cpuMicros"), Number),
        loopDelay: ask<LoopDelay>(child, LOOP_QUERY, "loopDelay"),
        heapActivity: ask<HeapActivity>(child, HEAP_QUERY, "heapActivity")
      })
    )
  )
