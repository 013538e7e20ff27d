import { Console, Effect } from "effect"
import pg from "pg"
import { CancelSafePool } from "../src/Database/CancelSafePool.js"
import { runDatabase } from "./BenchDatabase.js"
import type * as Benchmark from "./Benchmark.js"
import { machine, median } from "./Benchmark.js"

/**
 * What a connection's checkout costs in node, with no statement: the service's pool, which hands each checkout out as
 * a proxy of its own (its cancel names it; decision 0822), against the same pool handing connections out as they are
 * (no cancel requests, as on the embedded database) and a bare `pg.Pool`. Each checkout does what `@effect/sql-pg`
 * does around a statement: takes a connection, keeps its process id for a cancel (per connection object), listens
 * for its errors, stops listening and releases it. One connection, so every checkout finds it idle: the figure is
 * CPU alone. `BENCH_CHECKOUT_ROUNDS` rounds (default 3) of the three in turn; the median round counts.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const ROUNDS = Number(process.env.BENCH_CHECKOUT_ROUNDS ?? 3)
const WARMUP = 50_000
const CHECKOUTS = 200_000

const onError = () => {}

/** Nanoseconds per checkout of `pool`, after {@link WARMUP} to warm. */
const nsPerCheckout = (pool: pg.Pool) =>
  Effect.promise(async () => {
    const processIds = new WeakMap<object, number | undefined>()
    const checkout = () =>
      new Promise<void>((resolve, reject) => {
        pool.connect((err, client) => {
          if (err || client === undefined) return reject(err)
          if (!processIds.has(client)) processIds.set(client, (client as unknown as { processID?: number }).processID)
          client.once("error", onError)
          client.off("error", onError)
          client.release()
          resolve()
        })
      })
    for (let i = 0; i < WARMUP; i++) await checkout()
    const started = process.hrtime.bigint()
    for (let i = 0; i < CHECKOUTS; i++) await checkout()
    return Number(process.hrtime.bigint() - started) / CHECKOUTS
  })

const pools = (url: string) =>
  [
    { label: "bare pg.Pool (baseline)", make: () => new pg.Pool({ connectionString: url, max: 1 }) },
    {
      label: "service's pool, connections as they are",
      make: () => new CancelSafePool({ connectionString: url, max: 1, cancelRequests: false })
    },
    {
      label: "service's pool, a proxy per checkout",
      make: () => new CancelSafePool({ connectionString: url, max: 1, cancelRequests: true })
    }
  ] as const

const run = Effect.scoped(
  Effect.gen(function* () {
    const { database, url } = yield* runDatabase("checkouts", DEFAULT_URL)
    yield* Console.log(`machine: ${machine()}`)
    yield* Console.log(
      `${CHECKOUTS.toLocaleString("en-US")} checkouts per pool and round, PostgreSQL database ${database}\n`
    )
    const rounds = pools(url).map(() => [] as Array<number>)
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, { make }] of pools(url).entries()) {
        const ns = yield* Effect.acquireUseRelease(
          Effect.promise(async () => {
            const pool = make()
            await pool.query("SELECT 1")
            return pool
          }),
          nsPerCheckout,
          (pool) => Effect.promise(() => pool.end())
        )
        rounds[i]!.push(ns)
      }
    }
    const baseline = median(rounds[0]!)
    for (const [i, { label }] of pools(url).entries()) {
      const ns = median(rounds[i]!)
      const added = ns - baseline
      const share =
        i === 0
          ? ""
          : `   ${((100 * baseline) / ns).toFixed(1)}% of baseline, ${added < 0 ? "−" : "+"}${Math.abs(added).toFixed(0)} ns`
      yield* Console.log(
        `${label.padEnd(44)} ${ns.toFixed(0).padStart(6)} ns/op ${(1e9 / ns).toFixed(0).padStart(9)} ops/s   (rounds ${rounds[i]!.map((n) => n.toFixed(0)).join(" / ")} ns)${share}`
      )
    }
  })
)

/** Registered in `bench/index.ts`. */
export const checkoutBenchmark: Benchmark.Benchmark = {
  name: "checkouts",
  description: "a connection's checkout in node: the service's pool (a proxy per checkout) against a bare pg.Pool",
  run
}
