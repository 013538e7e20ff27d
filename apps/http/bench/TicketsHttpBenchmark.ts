import autocannon from "autocannon"
import { Console, Effect } from "effect"
import { runDatabase } from "./BenchDatabase.js"
import type * as Benchmark from "./Benchmark.js"
import { machine } from "./Benchmark.js"
import { openLoad } from "./OpenLoad.js"
import { type BareReady, bareProcess, serviceProcess } from "./TicketsServer.js"

/**
 * The reads and `POST message` over HTTP against the running service on PostgreSQL, with autocannon, each beside a
 * minimal baseline measured in the same run: bare `node:http` + `pg` sending the query the service sends for that read
 * (the ticket's view, organization, customer, a page of 25 messages, a page of 25 tickets), and performing
 * `POST message`'s writes (event, stream version, message and ticket rows, outbox row) in one transaction, without
 * authentication or framework. Servers run in child processes so the load generator does not share their event loop.
 * `GET ticket` and its baseline alternate for `BENCH_ROUNDS` rounds (default 5; the median round is the figure), with
 * the pinned stack's floor between them (`BENCH_MODE=floor`: a one-endpoint `HttpApi` on `@effect/sql-pg`, no auth);
 * `BENCH_ONLY=ticket` stops after those rounds. Each
 * scenario runs `BENCH_SECONDS` (default 10) at `BENCH_CONNECTIONS` (default 50) connections; each server writes for
 * `BENCH_WRITE_WARMUP` seconds (default 20) before its write scenario is measured. Targets: `GET` ticket,
 * organization and customer ≥ 50% of their baselines' requests/s, messages and tickets ≥ 40%, every read's p99 under
 * 20 ms; `POST message` ≥ 40% of the bare write's.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const WRITE_WARMUP = Number(process.env.BENCH_WRITE_WARMUP ?? 20)

interface Figures {
  readonly label: string
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly total: number
  readonly non2xx: number
  readonly errors: number
  /** The server process's CPU time per request (µs): its own cost, whatever the load generator takes. */
  readonly cpuPerRequest?: number
}

const load = (label: string, options: autocannon.Options, server?: Benchmark.ServerProcess<BareReady>) =>
  Effect.gen(function* () {
    const cpuBefore = server === undefined ? 0 : yield* server.cpuMicros
    const result = yield* Effect.promise(() => autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options }))
    const cpu = server === undefined ? undefined : (yield* server.cpuMicros) - cpuBefore
    return {
      label,
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      total: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      ...(cpu === undefined || result.requests.total === 0 ? {} : { cpuPerRequest: cpu / result.requests.total })
    } satisfies Figures
  })

const line = (f: Figures, baseline?: Figures) =>
  `${f.label.padEnd(44)} ${f.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${String(f.p50).padStart(3)} ms   p99 ${String(f.p99).padStart(3)} ms   (${f.total} requests, ${f.non2xx} non-2xx, ${f.errors} errors)${f.cpuPerRequest === undefined ? "" : `   server CPU ${f.cpuPerRequest.toFixed(0)} µs/req`}${baseline === undefined ? "" : `   ${((100 * f.requestsPerSecond) / baseline.requestsPerSecond).toFixed(1)}% of baseline`}`

/** A read's throughput under closed-loop load and its baseline's, measured side by side. */
interface Throughput {
  readonly service: Figures
  readonly bare: Figures
}

const run = Effect.scoped(
  Effect.gen(function* () {
    const { database, url } = yield* runDatabase("tickets", DEFAULT_URL)
    yield* Console.log(`machine: ${machine()}`)
    yield* Console.log(`${CONNECTIONS} connections, ${SECONDS} s per scenario, PostgreSQL database ${database}\n`)
    const app = yield* serviceProcess(url)
    const base = yield* bareProcess("baseline", url, app.organizationId)
    const floor = yield* bareProcess("floor", url, app.organizationId)
    const ticketIds = app.ticketIds
    const ticketPath = `${app.organizationPath}tickets/${ticketIds[0]}/`
    const headers = { "x-service-token": app.token }

    // Under closed-loop load each connection sends its next request as soon as it has an answer: the server is
    // always saturated, and latency is mostly queueing (50 connections / requests per second), for the baseline
    // too. A read's latency is measured at a constant offered rate instead, the same for both servers: half the
    // service's maximum for that read. Each server is sent the same reads at that rate for 3 s just before (`rewarm`):
    // after seconds idle the service's first second is slower (see "Latency after a lull" in docs/benchmarks.md),
    // which the line after the write scenarios measures on purpose.
    const latency = (label: string, path: string, service: Figures, rewarm = true) =>
      Effect.gen(function* () {
        const rate = Math.max(50, Math.round(service.requestsPerSecond / 2 / 10) * 10)
        // The server's event-loop delay over the run tells a stall of its own (a long task, a collection) from
        // time a request spent queued behind others.
        const atRate = (
          server: string,
          process: Benchmark.ServerProcess<BareReady>,
          withHeaders?: Record<string, string>
        ) =>
          Effect.gen(function* () {
            const url = `http://127.0.0.1:${process.port}${path}`
            const atThisRate = (seconds: number) =>
              Effect.promise(() =>
                openLoad({
                  url,
                  rate,
                  seconds,
                  connections: CONNECTIONS,
                  ...(withHeaders ? { headers: withHeaders } : {})
                })
              )
            // At the same rate: autocannon ends by hanging up on the requests in flight, and the server's reconnects
            // (decision 0819) would be inside the measurement ("reads after a hang-up" measures them on purpose).
            if (rewarm) yield* atThisRate(3)
            yield* process.loopDelay
            const r = yield* atThisRate(SECONDS)
            const delay = yield* process.loopDelay
            const figures: Figures = {
              label: `${server} at ${rate} req/s (open loop)`,
              requestsPerSecond: r.requestsPerSecond,
              p50: r.p50,
              p99: r.p99,
              total: r.completed,
              non2xx: r.non2xx,
              errors: r.errors
            }
            yield* Console.log(
              `${line(figures)}   server loop delay p99 ${delay.p99.toFixed(0)} ms, max ${delay.max.toFixed(0)} ms`
            )
            return figures
          })
        const bare = yield* atRate(`baseline: ${label}`, base)
        return { rate, bare, service: yield* atRate(label, app, headers) }
      })
    /** Measures one read against its baseline: throughput, then latency at a constant rate. */
    const measureRead = (label: string, path: string, target: number, throughput: Effect.Effect<Throughput>) =>
      Effect.gen(function* () {
        const { service, bare } = yield* throughput
        const { rate, bare: bareAtRate, service: serviceAtRate } = yield* latency(label, path, service)
        const share = service.requestsPerSecond / bare.requestsPerSecond
        return `${label}: ${(100 * share).toFixed(1)}% of its baseline's requests/s (target ≥ ${100 * target}%); p99 ${serviceAtRate.p99} ms at ${rate} req/s (baseline ${bareAtRate.p99} ms; target < 20 ms): ${share >= target && serviceAtRate.p99 < 20 ? "met" : "NOT met"}`
      })

    /** A read's throughput, and its baseline's, both warmed first (JIT, connection pools, PostgreSQL's cache). */
    const throughputOf = (label: string, path: string, rounds = 1, withFloor = false) =>
      Effect.gen(function* () {
        const serviceUrl = `http://127.0.0.1:${app.port}${path}`
        const bareUrl = `http://127.0.0.1:${base.port}${path}`
        const floorUrl = `http://127.0.0.1:${floor.port}${path}`
        yield* Console.log("")
        yield* load("warm-up", { url: bareUrl, duration: 3 })
        if (withFloor) yield* load("warm-up", { url: floorUrl, duration: 3 })
        yield* load("warm-up", { url: serviceUrl, headers, duration: 3 })
        // With several rounds the two alternate, so a drift of the machine's speed weighs on both alike; the median
        // round counts.
        const measured: Array<Throughput> = []
        for (let round = 1; round <= rounds; round++) {
          const of = rounds === 1 ? "" : ` (${round}/${rounds})`
          const bare = yield* load(`baseline: node:http + pg, ${label}${of}`, { url: bareUrl }, base)
          yield* Console.log(line(bare))
          if (withFloor) {
            const floored = yield* load(`floor: HttpApi + @effect/sql-pg, no auth${of}`, { url: floorUrl }, floor)
            yield* Console.log(line(floored, bare))
          }
          const service = yield* load(`${label}${of}`, { url: serviceUrl, headers }, app)
          yield* Console.log(line(service, bare))
          measured.push({ service, bare })
        }
        return [...measured].sort(
          (a, b) =>
            a.service.requestsPerSecond / a.bare.requestsPerSecond -
            b.service.requestsPerSecond / b.bare.requestsPerSecond
        )[Math.floor(rounds / 2)]!
      })

    const ticketThroughput = yield* throughputOf("GET …/tickets/{id}/", ticketPath, ROUNDS, true)
    const getTicket = ticketThroughput.service
    const verdicts = [
      yield* measureRead(`GET ticket (median of ${ROUNDS} rounds)`, ticketPath, 0.5, Effect.succeed(ticketThroughput))
    ]
    // The service's own ceiling: the HTTP stack with no authentication and no database.
    const healthz = yield* load(
      "service GET /healthz (no auth, no database)",
      { url: `http://127.0.0.1:${app.port}/healthz` },
      app
    )
    yield* Console.log(line(healthz, ticketThroughput.bare))
    if (process.env.BENCH_ONLY === "ticket") return
    const otherReads = [
      { label: "GET /organizations/{id}/", path: app.organizationPath, target: 0.5 },
      { label: "GET …/customers/{id}/", path: `${app.organizationPath}customers/${app.customerIds[0]}/`, target: 0.5 },
      { label: "GET …/tickets/{id}/messages/ (page of 25)", path: `${ticketPath}messages/`, target: 0.4 },
      {
        label: `GET …/tickets/ (page of 25 of ${ticketIds.length})`,
        path: `${app.organizationPath}tickets/`,
        target: 0.4
      }
    ]
    for (const read of otherReads)
      verdicts.push(yield* measureRead(read.label, read.path, read.target, throughputOf(read.label, read.path)))
    // The service's replies first: the baseline's writes below do not go through the domain, so the service must not
    // read its streams after them.
    const postMessages = (label: string, server: Benchmark.ServerProcess<BareReady>, duration = SECONDS) => {
      let next = 0
      return load(
        label,
        {
          duration,
          url: `http://127.0.0.1:${server.port}`,
          requests: [
            {
              method: "POST",
              headers: { ...headers, "content-type": "application/json" },
              setupRequest: (request) => ({
                ...request,
                path: `${app.organizationPath}tickets/${ticketIds[next++ % ticketIds.length]}/messages/`,
                body: JSON.stringify({ content: "Thanks for waiting, we are on it.", is_visible_to_customer: true })
              })
            }
          ]
        },
        server
      )
    }
    // Each server is warmed with the same writes first, as a running service is: a write path is several times the
    // code of a read, and V8 is still compiling it well after the reads' warm-up.
    yield* Console.log(`(each write scenario after ${WRITE_WARMUP} s of the same writes to warm the server)`)
    yield* postMessages("warm-up", app, WRITE_WARMUP)
    const postMessage = yield* postMessages(`POST …/messages/ (round-robin over ${ticketIds.length} tickets)`, app)
    yield* postMessages("warm-up", base, WRITE_WARMUP)
    const postBaseline = yield* postMessages("baseline: node:http + pg, the same writes in one transaction", base)
    yield* Console.log(line(postBaseline))
    yield* Console.log(line(postMessage, postBaseline))
    const writeRatio = postMessage.requestsPerSecond / postBaseline.requestsPerSecond
    yield* Console.log(
      `POST message: ${(100 * writeRatio).toFixed(1)}% of the bare write's requests/s (target ≥ 40%): ${writeRatio >= 0.4 ? "met" : "NOT met"}`
    )
    yield* Console.log("")
    for (const one of verdicts) yield* Console.log(one)

    // The same latency after the write scenarios and the idle time of the baseline's: a lull after load, which a
    // running service also sees (docs/benchmarks.md, "Latency after a lull").
    const afterWrites = yield* latency(`GET ticket after the write scenarios`, ticketPath, getTicket, false)
    yield* Console.log(
      `GET ticket after the write scenarios: p99 ${afterWrites.service.p99} ms at ${afterWrites.rate} req/s (baseline ${afterWrites.bare.p99} ms; target < 20 ms): ${afterWrites.service.p99 < 20 ? "met" : "NOT met"}`
    )
  })
)

/** The tickets HTTP load test. */
export const ticketsHttpBenchmark: Benchmark.Benchmark = {
  name: "tickets-http",
  description: "The reads and POST message over HTTP (autocannon), each against a bare node:http + pg baseline",
  run
}
