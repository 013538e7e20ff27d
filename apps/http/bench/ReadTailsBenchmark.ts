import autocannon from "autocannon"
import { Console, Effect } from "effect"
import { runDatabase } from "./BenchDatabase.js"
import type * as Benchmark from "./Benchmark.js"
import { type HeapActivity, machine, median } from "./Benchmark.js"
import { type OpenLoadResult, openLoad } from "./OpenLoad.js"
import { bareProcess, type ServiceReady, serviceProcess } from "./TicketsServer.js"

/**
 * A read's tail latency with no hang-up and no write: whether the service stalls on its own. The service and the
 * bare `node:http` + `pg` baseline answer `GET ticket` at the same constant rate (`BENCH_TAILS_RATE`, default 300
 * req/s) at the same moment for `BENCH_TAILS_SECONDS` (default 20), so a stall of the machine or of PostgreSQL shows
 * in both and one of the service's own only in its column. Each of `BENCH_TAILS_ROUNDS` rounds (default 3) runs the
 * service as served (V8's allocation-site pretenuring off, decision 0823) and, as the comparison, the service with
 * V8's default (`node --allocation-site-pretenuring`; other node flags in `BENCH_TAILS_COMPARED`), each beside the
 * baseline. Per run: p99, the slowest request,
 * stall windows (100 ms windows, by when requests were due, in which one took over 30 ms), and the service's major
 * collections and what entered its old space per request. Every server is warmed with 5 s of autocannon at 50
 * connections first: the bursts that lead V8 to pretenure a request's objects. Last, what the setting costs at full
 * speed: each service alone for 10 s at 50 connections (closed loop), twice in turn, its requests/s and CPU time per
 * request.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const RATE = Number(process.env.BENCH_TAILS_RATE ?? 300)
const SECONDS = Number(process.env.BENCH_TAILS_SECONDS ?? 20)
const ROUNDS = Number(process.env.BENCH_TAILS_ROUNDS ?? 3)
const DEFAULT_COMPARED = "--allocation-site-pretenuring"
const COMPARED = process.env.BENCH_TAILS_COMPARED ?? DEFAULT_COMPARED
const CONNECTIONS = 50
const THROUGHPUT_SECONDS = 10
const WINDOW_MS = 100
const STALL_MS = 30

/** The tail of one open-loop run. */
interface Tail {
  readonly p99: number
  readonly slowest: number
  readonly stallWindows: number
}

const tailOf = (result: OpenLoadResult): Tail => {
  const stalled = new Set<number>()
  let slowest = 0
  for (const [due, latency] of result.timeline) {
    slowest = Math.max(slowest, latency)
    if (latency > STALL_MS) stalled.add(Math.floor(due / WINDOW_MS))
  }
  return { p99: result.p99, slowest: Math.round(slowest), stallWindows: stalled.size }
}

interface Run {
  readonly service: Tail
  readonly bare: Tail
  readonly heap: HeapActivity
  readonly requests: number
}

const tailLine = (tail: Tail) =>
  `p99 ${String(tail.p99).padStart(4)} ms   slowest ${String(tail.slowest).padStart(4)} ms   stall windows ${String(tail.stallWindows).padStart(3)}`

const heapLine = (run: Pick<Run, "heap" | "requests">) =>
  `major GCs ${run.heap.majorCollections} (${run.heap.majorMs.toFixed(0)} ms)   scavenges ${run.heap.scavengeMs.toFixed(0)} ms   old space +${(run.heap.oldSpaceAdded / 1024 / Math.max(1, run.requests)).toFixed(1)} KB/request`

const run = Effect.scoped(
  Effect.gen(function* () {
    const { database, url } = yield* runDatabase("tails", DEFAULT_URL)
    yield* Console.log(`machine: ${machine()}`)
    yield* Console.log(
      `GET ticket at ${RATE} req/s to the service and to the baseline at once, ${SECONDS} s per run, ${CONNECTIONS} connections at most, PostgreSQL database ${database}\n`
    )
    const services = [
      { label: "as served (pretenuring off)", process: yield* serviceProcess(url) },
      {
        label: COMPARED === DEFAULT_COMPARED ? "V8 default (pretenuring on)" : COMPARED,
        process: yield* serviceProcess(url, { nodeFlags: COMPARED.split(" ") })
      }
    ]
    const bare = yield* bareProcess("baseline", url, services[0]!.process.organizationId)
    const ticketOf = (ready: ServiceReady, port: number) =>
      `http://127.0.0.1:${port}${ready.organizationPath}tickets/${ready.ticketIds[0]}/`
    const bareTarget = ticketOf(services[0]!.process, bare.port)
    const warm = (url: string, headers?: Record<string, string>, duration = 5) =>
      Effect.promise(() => autocannon({ url, connections: CONNECTIONS, duration, ...(headers ? { headers } : {}) }))
    yield* warm(bareTarget)
    for (const service of services)
      yield* warm(ticketOf(service.process, service.process.port), { "x-service-token": service.process.token })

    const runs = services.map(() => [] as Array<Run>)
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, service] of services.entries()) {
        const { process } = service
        yield* process.heapActivity
        const [mine, theirs] = yield* Effect.all(
          [
            Effect.promise(() =>
              openLoad({
                url: ticketOf(process, process.port),
                headers: { "x-service-token": process.token },
                rate: RATE,
                seconds: SECONDS,
                connections: CONNECTIONS
              })
            ),
            Effect.promise(() => openLoad({ url: bareTarget, rate: RATE, seconds: SECONDS, connections: CONNECTIONS }))
          ],
          { concurrency: 2 }
        )
        const figures: Run = {
          service: tailOf(mine),
          bare: tailOf(theirs),
          heap: yield* process.heapActivity,
          requests: mine.completed
        }
        runs[i]!.push(figures)
        yield* Console.log(
          `round ${round}, ${service.label.padEnd(28)} ${tailLine(figures.service)}   ${heapLine(figures)}${mine.non2xx + mine.errors > 0 ? `   ${mine.non2xx} non-2xx, ${mine.errors} errors` : ""}`
        )
        yield* Console.log(`round ${round}, ${"baseline beside it".padEnd(28)} ${tailLine(figures.bare)}`)
      }
    }
    // What the setting costs at full speed: each service alone under closed-loop load, its CPU time per request.
    yield* Console.log("")
    for (const service of [...services, ...services]) {
      const { process } = service
      const cpuBefore = yield* process.cpuMicros
      yield* process.heapActivity
      const result = yield* warm(
        ticketOf(process, process.port),
        { "x-service-token": process.token },
        THROUGHPUT_SECONDS
      )
      const cpu = (yield* process.cpuMicros) - cpuBefore
      const heap = yield* process.heapActivity
      yield* Console.log(
        `${service.label} at ${CONNECTIONS} connections (closed loop, ${THROUGHPUT_SECONDS} s): ${result.requests.average.toFixed(0)} req/s   p99 ${result.latency.p99} ms   server CPU ${(cpu / Math.max(1, result.requests.total)).toFixed(0)} µs/request   ${heapLine({ heap, requests: result.requests.total })}`
      )
    }
    yield* Console.log("")
    for (const [i, service] of services.entries()) {
      const list = runs[i]!
      const of = (pick: (run: Run) => number) => median(list.map(pick))
      yield* Console.log(
        `${service.label}: median p99 ${of((r) => r.service.p99)} ms (baseline beside it ${of((r) => r.bare.p99)} ms), stall windows ${list.reduce((n, r) => n + r.service.stallWindows, 0)} (baseline ${list.reduce((n, r) => n + r.bare.stallWindows, 0)}), major GCs ${list.reduce((n, r) => n + r.heap.majorCollections, 0)}, old space +${(of((r) => r.heap.oldSpaceAdded / Math.max(1, r.requests)) / 1024).toFixed(1)} KB/request`
      )
    }
  })
)

export const readTailsBenchmark: Benchmark.Benchmark = {
  name: "read-tails",
  description: "GET ticket at a constant rate beside the bare baseline at the same moment: the service's own stalls",
  run
}
