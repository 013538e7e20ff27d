import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { testPgLive } from "./support/TestDatabase.js"

// An interrupted statement is cancelled by a signal to its session's backend, sent from another connection. Two
// connections, both busy, make that cancel wait, so the interrupted statement ends and its connection goes to the
// next caller before the signal is sent: the case where a cancel lands on a statement nobody cancelled.
const CONNECTIONS = 2

// Only a server has a backend to signal: the embedded database answers `pg_cancel_backend` with false and cancels
// nothing, so the race cannot occur there.
describe.runIf(Boolean(process.env.DATABASE_URL))("a cancelled statement's session", () => {
  layer(testPgLive(CONNECTIONS), { excludeTestServices: true })("the service's connection pool", (it) => {
    it.effect(
      "given a statement interrupted while every connection is busy, when it ends before its cancel reaches the server, then the caller that gets its connection next is not cancelled",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const busy = yield* Effect.fork(sql`SELECT pg_sleep(0.6)`)
          const interrupted = yield* Effect.fork(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.3)`)
          yield* Effect.sleep("100 millis")
          // Waits for a connection; the interrupted statement's is the first to come free.
          const next = yield* Effect.fork(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(1)`)
          yield* Effect.sleep("20 millis")
          yield* Fiber.interruptFork(interrupted)

          const answered = yield* Fiber.join(next).pipe(Effect.either)
          assert.isTrue(answered._tag === "Right", `the next caller failed: ${String(answered)}`)
          yield* Fiber.join(busy)
          // The pool still answers on every connection it has.
          const [after] = yield* sql<{ one: number }>`SELECT 1 AS one`
          assert.strictEqual(after?.one, 1)
        }),
      { timeout: 10_000 }
    )
  })
})
