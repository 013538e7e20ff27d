import autocannon from "autocannon"
import { Console, Effect } from "effect"
import pg from "pg"
import { runDatabase } from "./BenchDatabase.js"
import type * as Benchmark from "./Benchmark.js"
import { machine, median } from "./Benchmark.js"
import { type OpenLoadResult, openLoad } from "./OpenLoad.js"
import { serviceProcess } from "./TicketsServer.js"

/**
 * Reads right after clients hung up on requests in flight, against reads right after clients that did not. The
 * service as `tickets-http` runs it (`GET ticket`, a pool of 20 on PostgreSQL) answers, in each of `BENCH_HANGUP_ROUNDS`
 * rounds (default 4): 3 s of autocannon at 50 connections, which ends by hanging up on the requests in flight, then
 * at once 5 s at a constant rate; and, as the baseline, 3 s at that constant rate (every request answered), then at
 * once the same 5 s. Each gives the slowest request of the first 1.5 s, the p99, and how many of the pool's
 * connections PostgreSQL started meanwhile (a connection closed after a cancel is one started again; decision 0822).
 * The rate is `BENCH_HANGUP_RATE`, else half what the warm-up answered per second.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const ROUNDS = Number(process.env.BENCH_HANGUP_ROUNDS ?? 4)
const CONNECTIONS = 50
const FIRST_MS = 1500
interface After {
  readonly slowestFirst: number
  readonly p99: number
  readonly started: number
}

const run = Effect.scoped(
  Effect.gen(function* () {
    const { database, url } = yield* runDatabase("hangups", DEFAULT_URL)
    yield* Console.log(`machine: ${machine()}`)
    yield* Console.log(`${CONNECTIONS} connections, PostgreSQL database ${database}\n`)
    const app = yield* serviceProcess(url)
    const target = `http://127.0.0.1:${app.port}${app.organizationPath}tickets/${app.ticketIds[0]}/`
    const headers = { "x-service-token": app.token }
    const client = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        return client
      }),
      (client) => Effect.promise(() => client.end())
    )
    /** The service's connections PostgreSQL started since `since`. */
    const startedSince = (since: Date) =>
      Effect.promise(() =>
        client
          .query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'helpdesk' AND backend_start > $1`,
            [since]
          )
          .then((result) => result.rows[0]!.n)
      )
    const closedLoop = (duration: number) =>
      Effect.promise(() => autocannon({ url: target, headers, connections: CONNECTIONS, duration }))
    const warm = yield* closedLoop(5)
    const rate = Number(process.env.BENCH_HANGUP_RATE ?? Math.max(50, Math.round(warm.requests.average / 2 / 10) * 10))
    const atRate = (seconds: number) =>
      Effect.promise(() => openLoad({ url: target, headers, rate, seconds, connections: CONNECTIONS }))
    const measure = (before: Effect.Effect<unknown>) =>
      Effect.gen(function* () {
        const since = new Date()
        yield* before
        const r: OpenLoadResult = yield* atRate(5)
        const first = r.timeline.filter(([due]) => due < FIRST_MS).map(([, latency]) => latency)
        return { slowestFirst: Math.round(Math.max(0, ...first)), p99: r.p99, started: yield* startedSince(since) }
      })
    const line = (label: string, after: After) =>
      `${label.padEnd(34)} slowest of the first 1.5 s ${String(after.slowestFirst).padStart(4)} ms   p99 ${String(after.p99).padStart(4)} ms   connections started ${after.started}`
    yield* Console.log(`GET ticket at ${rate} req/s for 5 s, right after:`)
    const hangups: Array<After> = []
    const baselines: Array<After> = []
    for (let round = 1; round <= ROUNDS; round++) {
      const hangup = yield* measure(closedLoop(3))
      hangups.push(hangup)
      yield* Console.log(line(`round ${round}, a hang-up`, hangup))
      const baseline = yield* measure(atRate(3))
      baselines.push(baseline)
      yield* Console.log(line(`round ${round}, baseline: no hang-up`, baseline))
    }
    const summary = (list: ReadonlyArray<After>) =>
      `slowest of the first 1.5 s median ${median(list.map((a) => a.slowestFirst))} ms, p99 median ${median(list.map((a) => a.p99))} ms, connections started ${list.reduce((n, a) => n + a.started, 0)}`
    yield* Console.log(`\nafter a hang-up: ${summary(hangups)}`)
    yield* Console.log(`baseline, no hang-up: ${summary(baselines)}`)
  })
)

export const hangupBenchmark: Benchmark.Benchmark = {
  name: "hang-ups",
  description: "GET ticket right after clients hung up on requests in flight, against right after clients that did not",
  run
}
