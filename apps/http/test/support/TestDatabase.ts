import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer, Redacted } from "effect"
import { clientOptions, MigrationsLive } from "../../src/Database/Database.js"
import { serveOverSocket } from "../../src/Database/EmbeddedPostgres.js"
import * as PgPool from "../../src/Database/PgPool.js"
import { admin, withDatabase } from "./ServerDatabases.js"

/** True when tests run against a real PostgreSQL server (CI), false on embedded PGlite. */
export const usesRealPostgres = Boolean(process.env.DATABASE_URL)

/**
 * A database of this test file's own: with `DATABASE_URL`, a fresh database created beside it (named after it,
 * so CI drops it with its own) and dropped afterwards; without, an in-memory PGlite behind its socket server.
 */
export const freshDatabase = Effect.gen(function* () {
  const url = process.env.DATABASE_URL
  if (url) {
    const base = new URL(url).pathname.slice(1) || "postgres"
    const name = `${base}_t${randomBytes(5).toString("hex")}`
    yield* Effect.acquireRelease(
      Effect.promise(() => admin(url, `CREATE DATABASE "${name}"`)),
      () => Effect.promise(() => admin(url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
    )
    return { url: withDatabase(url, name) }
  }
  const db = yield* Effect.acquireRelease(
    Effect.promise(() => PGlite.create()),
    (db) => Effect.promise(() => db.close())
  )
  const endpoint = yield* serveOverSocket(db, { tcp: true })
  return { url: `postgres://postgres:postgres@${endpoint.host}:${endpoint.port}/postgres?sslmode=disable` }
})

/**
 * The SQL client on a fresh, unmigrated database, with `connections` in its pool (default 20, or 4 on PGlite).
 */
export const testPgLive = (connections = usesRealPostgres ? 20 : 4) =>
  Layer.unwrapScoped(
    Effect.map(freshDatabase, ({ url }) =>
      // Several connections even on PGlite: the projection rebuild holds one for its advisory lock while it works
      // on another. (The service itself uses one connection to PGlite, see Database.ts.)
      PgPool.layer({
        url: Redacted.make(url),
        maxConnections: connections,
        namedStatements: usesRealPostgres,
        cancelRequests: usesRealPostgres,
        ...clientOptions
      })
    )
  )

/** The SQL client on a fresh, unmigrated database. */
export const TestPgLive = testPgLive()

/** The SQL client on a fresh database with every migration applied (`connections`: see {@link testPgLive}). */
export const testDatabaseLive = (connections?: number) =>
  MigrationsLive.pipe(Layer.provideMerge(testPgLive(connections)))

/** The SQL client on a fresh database with every migration applied. */
export const TestDatabaseLive = MigrationsLive.pipe(Layer.provideMerge(TestPgLive))

/** The URL of the test's own database (a fresh one beside `DATABASE_URL`), for workers with pools of their own. */
export const databaseUrl = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ name: string }>`SELECT current_database() AS name`
  return withDatabase(process.env.DATABASE_URL!, row!.name)
}).pipe(Effect.orDie)
