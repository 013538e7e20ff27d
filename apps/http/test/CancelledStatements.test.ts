import * as net from "node:net"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { CANCEL_GRACE_MS, sendCancelRequest, sessionOf } from "../src/Database/CancelSafePool.js"
import { PgPool } from "../src/Database/PgPool.js"
import { testPgLive } from "./support/TestDatabase.js"

// An interrupted statement is cancelled by a signal to its session's backend. Two connections, both busy, once made
// that cancel wait for a connection of its own, so the interrupted statement ended and its connection went to the
// next caller before the signal was sent: the case where a cancel lands on a statement nobody cancelled.
const CONNECTIONS = 2

/** Interrupts `fiber` and answers how long the interruption took (ms). */
const interruptTimed = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
  Effect.gen(function* () {
    const started = Date.now()
    yield* Fiber.interrupt(fiber)
    return Date.now() - started
  })

/** The session running a statement whose text contains `marker`, seen from another connection. */
const sessionRunning = (sql: SqlClient.SqlClient, marker: string) =>
  sql<{ pid: number }>`
    SELECT pid FROM pg_stat_activity
    WHERE datname = current_database() AND state = 'active' AND query LIKE ${`%${marker}%`}
      AND pid <> pg_backend_pid()`.pipe(Effect.map((rows) => rows[0]?.pid))

// Only a server has a backend to signal: the embedded database ignores cancel requests and cancels nothing, so the
// race cannot occur there (its pool sends none: `cancelRequests: false`).
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

    it.effect(
      "given a statement that ends within the grace, when its caller is interrupted, then it is not cancelled but runs to its end",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE IF NOT EXISTS cancel_probe (n int)`
          const short = yield* Effect.fork(
            sql`INSERT INTO cancel_probe SELECT 1 FROM pg_sleep(${CANCEL_GRACE_MS / 2000})`
          )
          yield* Effect.sleep("10 millis")
          yield* Fiber.interrupt(short)
          yield* Effect.sleep(`${CANCEL_GRACE_MS} millis`)
          const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM cancel_probe`
          assert.strictEqual(row?.n, 1, "the interrupted insert ran to its end")
        }),
      { timeout: 10_000 }
    )

    it.effect(
      "given a long statement, when its caller is interrupted, then the server stops it at once and the pool keeps its connection",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const long = yield* Effect.fork(sql`SELECT 'long statement' AS marker, pg_sleep(10)`)
          yield* Effect.sleep("200 millis")
          const pid = yield* sessionRunning(sql, "long statement")
          assert.isDefined(pid, "the long statement is running")

          const took = yield* interruptTimed(long)
          assert.isBelow(took, 3000, "the interruption waited for the statement")
          assert.isUndefined(yield* sessionRunning(sql, "long statement"), "the server stopped the statement")
          const [session] = yield* sql<{ connected: number }>`
            SELECT count(*)::int AS connected FROM pg_stat_activity WHERE pid = ${pid!}`
          assert.strictEqual(session?.connected, 1, "its session is still connected")

          // Every connection of the pool at once: the interrupted statement's session is one of them, not a new one.
          const pids = yield* Effect.all(
            Array.from(
              { length: CONNECTIONS },
              () => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.2)`
            ),
            { concurrency: "unbounded" }
          )
          assert.include(
            pids.map(([row]) => row?.pid),
            pid,
            "the pool handed out the interrupted statement's connection again"
          )
        }),
      { timeout: 20_000 }
    )
  })

  layer(testPgLive(1), { excludeTestServices: true })("a pool of one connection", (it) => {
    it.effect(
      "given a statement of a transaction, when its caller is interrupted, then the transaction ends at once and the connection serves the next statement",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const inTransaction = yield* Effect.fork(
            sql.withTransaction(sql`SELECT 'transaction statement' AS marker, pg_sleep(10)`)
          )
          yield* Effect.sleep("200 millis")

          // Its cancel needs no connection of the pool's, where the only one is the transaction's.
          const took = yield* interruptTimed(inTransaction)
          assert.isBelow(took, 3000, "the interruption waited for the statement")
          const [row] = yield* sql<{ open: number }>`
            SELECT count(*)::int AS open FROM pg_stat_activity
            WHERE datname = current_database() AND state LIKE 'idle in transaction%'`
          assert.strictEqual(row?.open, 0, "no transaction is left open")
        }),
      { timeout: 20_000 }
    )

    it.effect(
      "given a statement that ended before its interruption was handled, when its cancel arrives while its connection runs the next caller's statement, then that statement is not cancelled",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { pool } = yield* PgPool
          // What `@effect/sql-pg` does for a statement: take a connection, keep the process id it would cancel
          // with, run the statement and release the connection as the statement ends.
          const first = yield* Effect.promise(() => pool.connect())
          const cancelWith = sessionOf(first).processID
          yield* Effect.promise(() => first.query("SELECT 1"))
          first.release()
          // The only connection goes to the next caller, whose statement outlasts the grace period.
          const next = yield* Effect.fork(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.6)`)
          yield* Effect.sleep("50 millis")

          // The first statement's interruption handled only now (Effect's scheduler behind): its cancel, as sent.
          yield* Effect.async<void>((resume) => {
            pool.query(`SELECT pg_cancel_backend(${cancelWith})`, () => resume(Effect.void))
          })
          const answered = yield* Fiber.join(next).pipe(Effect.either)
          assert.isTrue(answered._tag === "Right", `the next caller's statement failed: ${String(answered)}`)
        }),
      { timeout: 10_000 }
    )

    it.effect(
      "given callers waiting for the only connection, when the first is handed it while a cancel is still on its way to its session, then it still gets the connection before the callers behind it",
      () =>
        Effect.gen(function* () {
          const { pool } = yield* PgPool
          const order = yield* Effect.promise(async () => {
            const first = await pool.connect()
            // A statement that ends within the grace period: its cancel is answered once its session has run out of
            // work, just after the statement's own callback has released the connection to the first caller waiting.
            first.query("SELECT pg_sleep(0.05)", () => first.release())
            pool.query(`SELECT pg_cancel_backend(${sessionOf(first).processID})`, () => {})
            const order: Array<string> = []
            const waiter = (name: string) =>
              pool.connect().then(async (client) => {
                order.push(name)
                await client.query("SELECT 1")
                client.release()
              })
            await Promise.all([waiter("first waiting"), waiter("second waiting"), waiter("third waiting")])
            return order
          })
          assert.deepStrictEqual(order, ["first waiting", "second waiting", "third waiting"])
          // The connection it also asked the pool for, unneeded, went back: the pool has its one connection, idle.
          yield* Effect.sleep("20 millis")
          assert.strictEqual(pool.idleCount, 1)
          assert.strictEqual(pool.waitingCount, 0)
        }),
      { timeout: 10_000 }
    )
  })
})

describe("a cancel request", () => {
  it.effect("given a server that never closes the request's connection, then it is not known to be taken", () =>
    Effect.gen(function* () {
      const held: Array<net.Socket> = []
      const server = net.createServer((socket) => held.push(socket))
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () =>
          Effect.sync(() => {
            for (const socket of held) socket.destroy()
            server.close()
          })
      )
      const { port } = server.address() as net.AddressInfo
      const taken = yield* Effect.promise(() =>
        sendCancelRequest({ processID: 1, secretKey: 2, host: "127.0.0.1", port }, 200)
      )
      assert.isFalse(taken)
    }).pipe(Effect.scoped)
  )

  it.effect("given no server listening, then it is not known to be taken", () =>
    Effect.gen(function* () {
      // A port just freed: nothing listens there.
      const server = net.createServer()
      yield* Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      })
      const { port } = server.address() as net.AddressInfo
      yield* Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
      })
      const taken = yield* Effect.promise(() =>
        sendCancelRequest({ processID: 1, secretKey: 2, host: "127.0.0.1", port }, 1000)
      )
      assert.isFalse(taken)
    })
  )
})
