import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { ConfigProvider, Context, Effect, Exit, Layer, Scope } from "effect"
import { clientOptions, PgLive } from "../src/Database/Database.js"
import { tryLockDataDir } from "../src/Database/DataDirLock.js"
import { embeddedPostgres, JoinRunningOwner, serveOverSocket } from "../src/Database/EmbeddedPostgres.js"
import * as PgPool from "../src/Database/PgPool.js"

const sqlOf = (context: Context.Context<SqlClient.SqlClient>) => Context.get(context, SqlClient.SqlClient)

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "hd-embedded-"))

/** An in-memory PGlite behind its socket server, both closed with the scope. */
const inMemoryEndpoint = Effect.acquireRelease(
  Effect.promise(() => PGlite.create()),
  (db) => Effect.promise(() => db.close())
).pipe(Effect.flatMap((db) => serveOverSocket(db, { tcp: true })))

const endpointOptions = (endpoint: { host: string; port: number }) => ({
  host: endpoint.host,
  port: endpoint.port,
  username: "postgres",
  database: "postgres",
  cancelRequests: false,
  ...clientOptions
})

const clientFor = (endpoint: { host: string; port: number }, maxConnections: number) =>
  PgPool.layer({ ...endpointOptions(endpoint), maxConnections, namedStatements: false })

describe("embedded PostgreSQL", () => {
  it.scoped("given several pooled connections, interleaved parameterised queries each get their own answer", () =>
    Effect.gen(function* () {
      const endpoint = yield* inMemoryEndpoint
      const context = yield* Layer.build(clientFor(endpoint, 8))
      const sql = sqlOf(context)
      const answers = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        // Each text differs, so an exchange mixed up with another client's would give a wrong answer.
        (i) =>
          sql
            .unsafe<{ n: number; s: string }>(`SELECT $1::int * ${i % 7} AS n, $2::text AS s`, [i, `v${i}`])
            .pipe(Effect.map((rows) => rows[0]!)),
        { concurrency: 16 }
      )
      expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => ({ n: i * (i % 7), s: `v${i}` })))
    })
  )

  it.scoped("given one session for every connection, a parameterised statement runs on each connection, unnamed", () =>
    Effect.gen(function* () {
      const endpoint = yield* inMemoryEndpoint
      const runOn = (layer: ReturnType<typeof clientFor>, value: number) =>
        Effect.scoped(
          Effect.flatMap(Layer.build(layer), (context) => sqlOf(context)<{ n: number }>`SELECT ${value}::int + 1 AS n`)
        ).pipe(Effect.map((rows) => rows[0]!.n))
      // A connection that replaces an earlier one (the pool's idle timeout) meets the session that one left.
      expect(yield* runOn(clientFor(endpoint, 1), 1)).toBe(2)
      expect(yield* runOn(clientFor(endpoint, 1), 2)).toBe(3)
      // Why the embedded database may not name statements: the session keeps the name past its connection.
      const named = (value: number) =>
        runOn(PgPool.layer({ ...endpointOptions(endpoint), maxConnections: 1, namedStatements: true }), value)
      expect(yield* named(3)).toBe(4)
      const refused = yield* Effect.flip(named(4))
      expect(String(refused.cause)).toContain("already exists")
    })
  )

  it.scoped("given the service's embedded database, a statement still answers after its connection was replaced", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(
        PgLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", tempDir()]])))))
      )
      const sql = sqlOf(context)
      expect((yield* sql<{ n: number }>`SELECT ${2}::int * 2 AS n`)[0]!.n).toBe(4)
      // What the pool does to a connection idle for 10 s: close it, and open another for the next query.
      const { pool } = Context.get(context, PgPool.PgPool)
      yield* Effect.promise(async () => (await pool.connect()).release(true))
      expect((yield* sql<{ n: number }>`SELECT ${3}::int * 2 AS n`)[0]!.n).toBe(6)
    })
  )

  it.scoped("given a transaction on one connection, another connection does not see or join it until commit", () =>
    Effect.gen(function* () {
      const endpoint = yield* inMemoryEndpoint
      const sql = sqlOf(yield* Layer.build(clientFor(endpoint, 4)))
      yield* sql`CREATE TABLE t (n int)`
      const fails = sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`INSERT INTO t VALUES (1)`
          return yield* Effect.fail("rolled back")
        })
      )
      const counts = yield* Effect.all(
        [Effect.exit(fails), sql<{ c: number }>`SELECT count(*)::int AS c FROM t`.pipe(Effect.map((r) => r[0]!.c))],
        { concurrency: 2 }
      )
      expect(Exit.isFailure(counts[0])).toBe(true)
      expect(counts[1]).toBe(0)
    })
  )

  it.scoped("given a data directory, a second opener in the same process shares the owner's socket", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const owner = yield* embeddedPostgres(dir)
      expect(owner.ownedByThisProcess).toBe(true)
      const owned = sqlOf(yield* Layer.build(clientFor(owner, 1)))
      yield* owned`CREATE TABLE shared_marker (v text)`
      yield* owned`INSERT INTO shared_marker VALUES ('from owner')`

      // One-shot CLI commands may join; `serve` and `worker` may not (decision 0407).
      const second = yield* embeddedPostgres(dir).pipe(Effect.provideService(JoinRunningOwner, true))
      expect(second.ownedByThisProcess).toBe(false)
      const shared = sqlOf(yield* Layer.build(clientFor(second, 1)))
      const rows = yield* shared<{ v: string }>`SELECT v FROM shared_marker`
      expect(rows).toEqual([{ v: "from owner" }])
    })
  )

  it.effect("given the owner is still starting, a second opener fails clearly instead of opening the files", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const lock = tryLockDataDir(dir)
      expect(lock._tag).toBe("Acquired")
      const error = yield* Effect.scoped(embeddedPostgres(dir)).pipe(
        Effect.provideService(JoinRunningOwner, true),
        Effect.flip
      )
      expect(error._tag).toBe("DataDirInUse")
      expect(error.message).toContain(`in use by process ${process.pid}`)
      expect(error.message).toContain("DATABASE_URL")
      if (lock._tag === "Acquired") lock.release()
    })
  )

  it.scoped("given a lock left by a process that no longer runs, the next opener takes the directory over", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      fs.writeFileSync(
        path.join(dir, "helpdesk.lock"),
        JSON.stringify({ pid: 2 ** 22 + 12345, startedAt: "x", endpoint: null })
      )
      const opened = yield* embeddedPostgres(dir)
      expect(opened.ownedByThisProcess).toBe(true)
    })
  )

  it.effect("given the owner stops, its lock is released and its data stays", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const scope = yield* Scope.make()
      const first = yield* embeddedPostgres(dir).pipe(Scope.extend(scope))
      const sql = sqlOf(yield* Layer.build(clientFor(first, 1)).pipe(Scope.extend(scope)))
      yield* sql`CREATE TABLE kept (v int)`
      yield* sql`INSERT INTO kept VALUES (42)`
      yield* Scope.close(scope, Exit.void)
      expect(fs.existsSync(path.join(dir, "helpdesk.lock"))).toBe(false)

      const rows = yield* Effect.scoped(
        Effect.gen(function* () {
          const again = yield* embeddedPostgres(dir)
          const sql2 = sqlOf(yield* Layer.build(clientFor(again, 1)))
          return yield* sql2<{ v: number }>`SELECT v FROM kept`
        })
      )
      expect(rows).toEqual([{ v: 42 }])
    })
  )
})
