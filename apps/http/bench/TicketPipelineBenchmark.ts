import { fileURLToPath } from "node:url"
import { Console, Effect } from "effect"
import { withDatabase } from "../test/support/ServerDatabases.js"
import { benchDatabase } from "./BenchDatabase.js"
import type * as Benchmark from "./Benchmark.js"
import { machine, median } from "./Benchmark.js"
import { type BareReady, bareProcess, serviceProcess } from "./TicketsServer.js"

/**
 * The cost of a write as a ticket grows, and writers of one ticket at once, over HTTP against the service on
 * PostgreSQL (docs/decisions/0305-one-command-pipeline.md):
 * - one client posts `BENCH_REPLIES` (default 1,000) replies to one ticket, one after another; the median latency of
 *   replies 1–100 and of the last 100 (target: ≤ 4 ms, and the last within 1.3× of the first). Before, the server
 *   is warmed with `BENCH_WARMUP` (default 1,000) replies to another ticket, so the figures are the ticket's length
 *   and not the JIT compiling the write path;
 * - the baseline: a bare `node:http` + `pg` server (`BENCH_MODE=baseline`) making the same writes in one
 *   transaction, warmed and measured the same way by one client, on a ticket of its own;
 * - `BENCH_WRITERS` (default 50) clients post one reply each to one fresh ticket at the same moment (target: every
 *   answer 201, each reply stored once).
 * The server runs in a child process (`TicketsHttpServer.ts`) so the client does not share its event loop.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const REPLIES = Number(process.env.BENCH_REPLIES ?? 1000)
const WRITERS = Number(process.env.BENCH_WRITERS ?? 50)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000)
// Replies the bare baseline is measured over (its cost does not grow with the ticket).
const BARE_REPLIES = 300
const run = Effect.scoped(
  Effect.gen(function* () {
    const baseUrl = process.env.DATABASE_URL ?? DEFAULT_URL
    const database = yield* benchDatabase(baseUrl, "pipeline")
    yield* Console.log(`machine: ${machine()}`)
    yield* Console.log(`PostgreSQL database ${database}\n`)
    const app = yield* serviceProcess(withDatabase(baseUrl, database), {
      env: { BENCH_TICKETS: "4", BENCH_MESSAGES: "0" }
    })
    const base = `http://127.0.0.1:${app.port}${app.organizationPath}tickets/`
    const postTo = (port: number, path: string, body: unknown) =>
      Effect.promise(async () => {
        const begun = performance.now()
        const response = await fetch(`http://127.0.0.1:${port}${app.organizationPath}tickets/${path}`, {
          method: "POST",
          headers: { "x-service-token": app.token, "content-type": "application/json" },
          body: JSON.stringify(body)
        })
        await response.arrayBuffer()
        return { status: response.status, ms: performance.now() - begun }
      })
    const post = (path: string, body: unknown) => postTo(app.port, path, body)
    const reply = (i: number) => ({
      content: `Reply number ${i}: thanks for waiting, we are looking into the delivery.`,
      is_visible_to_customer: true
    })
    /**
     * One client's replies to one ticket of `server`, one after another: their latencies and statuses, and the
     * server process's CPU time per reply (µs, user + system, all its threads).
     */
    const replies = (server: Benchmark.ServerProcess<BareReady>, ticketId: number, count: number) =>
      Effect.gen(function* () {
        const latencies: Array<number> = []
        const statuses = new Map<number, number>()
        const cpuBefore = yield* server.cpuMicros
        for (let i = 0; i < count; i++) {
          const { status, ms } = yield* postTo(server.port, `${ticketId}/messages/`, reply(i))
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
          latencies.push(ms)
        }
        const cpuPerReply = ((yield* server.cpuMicros) - cpuBefore) / count
        return { latencies, statuses: JSON.stringify(Object.fromEntries(statuses)), cpuPerReply }
      })

    const [ticket, contended, warm, bareTicket] = app.ticketIds as [number, number, number, number]
    // The floor: a read of the same ticket over the same HTTP stack and authentication, one after another.
    const reads: Array<number> = []
    for (let i = 0; i < 300; i++) {
      const begun = performance.now()
      const response = yield* Effect.promise(() =>
        fetch(`${base}${ticket}/`, { headers: { "x-service-token": app.token } })
      )
      yield* Effect.promise(() => response.arrayBuffer())
      if (i >= 100) reads.push(performance.now() - begun)
    }
    yield* Console.log(
      `GET …/tickets/{id}/, one client (the HTTP stack's floor): median ${median(reads).toFixed(2)} ms\n`
    )

    // The baseline, warmed as the service is, then one client on a ticket of its own.
    const bare = yield* bareProcess("baseline", withDatabase(baseUrl, database), app.organizationId)
    yield* replies(bare, warm, WARMUP)
    const bareRun = yield* replies(bare, bareTicket, BARE_REPLIES)
    const bareMedian = median(bareRun.latencies)
    yield* Console.log(
      `baseline: bare node:http + pg, the same writes in one transaction, one client, ${BARE_REPLIES} replies after ${WARMUP} to warm it (statuses ${bareRun.statuses}): median ${bareMedian.toFixed(2)} ms, server CPU ${bareRun.cpuPerReply.toFixed(0)} µs per reply\n`
    )

    // The service, warmed with replies to another ticket; then one client, one ticket, one reply after another.
    yield* replies(app, warm, WARMUP)
    const { latencies, statuses, cpuPerReply } = yield* replies(app, ticket, REPLIES)
    const first = median(latencies.slice(0, 100))
    const last = median(latencies.slice(-100))
    yield* Console.log(
      `POST …/messages/, one client, one ticket, ${REPLIES} replies after ${WARMUP} to another ticket to warm it (statuses ${statuses}):`
    )
    for (let from = 0; from < REPLIES; from += Math.max(100, Math.floor(REPLIES / 5))) {
      const slice = latencies.slice(from, from + 100)
      yield* Console.log(
        `  replies ${from + 1}–${from + slice.length}: median ${median(slice).toFixed(2)} ms (${(median(slice) / bareMedian).toFixed(2)}× the baseline)`
      )
    }
    yield* Console.log(
      `  median of replies 1–100 ${first.toFixed(2)} ms, of replies ${REPLIES - 99}–${REPLIES} ${last.toFixed(2)} ms (${(last / first).toFixed(2)}×; target ≤ 4 ms and ≤ 1.3×): ${last <= 4 && last / first <= 1.3 ? "met" : "NOT met"}`
    )
    yield* Console.log(
      `  server CPU ${cpuPerReply.toFixed(0)} µs per reply (${(cpuPerReply / bareRun.cpuPerReply).toFixed(2)}× the baseline's)`
    )

    // Many clients, one ticket, at once.
    const begun = performance.now()
    const answers = yield* Effect.forEach(
      Array.from({ length: WRITERS }, (_, i) => i),
      (i) => post(`${contended}/messages/`, { content: `Concurrent reply ${i}`, is_visible_to_customer: true }),
      { concurrency: "unbounded" }
    )
    const seconds = (performance.now() - begun) / 1000
    const counts = new Map<number, number>()
    for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1)
    const ok = counts.get(201) ?? 0
    yield* Console.log(
      `\n${WRITERS} concurrent POST …/messages/ on one ticket: ${JSON.stringify(Object.fromEntries(counts))} in ${seconds.toFixed(2)} s, median ${median(answers.map((a) => a.ms)).toFixed(1)} ms, slowest ${Math.max(...answers.map((a) => a.ms)).toFixed(1)} ms (target: all 201): ${ok === WRITERS ? "met" : "NOT met"}`
    )
  })
)

/** The command pipeline's write cost and contention benchmark. */
export const ticketPipelineBenchmark: Benchmark.Benchmark = {
  name: "ticket-pipeline",
  description: "POST message: cost at 1–100 vs 901–1,000 messages on one ticket, and 50 concurrent replies",
  run
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { NodeRuntime } = await import("@effect/platform-node")
  NodeRuntime.runMain(Effect.andThen(Console.log(`## ${ticketPipelineBenchmark.name}\n`), run))
}
