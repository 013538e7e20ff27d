import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { PgPool } from "../src/Database/PgPool.js"
import { testPgLive } from "./support/TestDatabase.js"

const CONNECTIONS = 3
// `pg`'s pool closes a connection idle this long unless it is told to keep it.
const PG_IDLE_TIMEOUT_MS = 10_000

// The sessions behind the pool's connections: as many statements at once as it has connections, so each runs on one.
const sessions = Effect.flatMap(PgPool, ({ pool }) =>
  Effect.promise(() =>
    Promise.all(
      Array.from({ length: CONNECTIONS }, () =>
        pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid, pg_sleep(0.1)").then((r) => r.rows[0]!.pid)
      )
    )
  ).pipe(Effect.map((pids) => [...new Set(pids)].sort()))
)

layer(testPgLive(CONNECTIONS), { excludeTestServices: true })("the service's connection pool", (it) => {
  it.effect(
    "given its connections opened by a burst, when no statement runs for longer than pg's idle timeout, then the next burst runs on the same sessions",
    () =>
      Effect.gen(function* () {
        const { pool } = yield* PgPool
        const before = yield* sessions
        assert.strictEqual(pool.totalCount, CONNECTIONS)
        yield* Effect.sleep(PG_IDLE_TIMEOUT_MS + 1_500)
        assert.strictEqual(pool.totalCount, CONNECTIONS)
        // (The embedded database runs one session for every connection, so there this compares one pid.)
        assert.deepStrictEqual(yield* sessions, before)
      }),
    { timeout: 30_000 }
  )
})
