import type { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import type pg from "pg"
import { CancelSafePool } from "./CancelSafePool.js"
import { NamedStatementsClient } from "./NamedStatements.js"

/**
 * The `pg` pool behind the service's SQL client, and whether its statements may be prepared under a name. Every
 * statement goes through `SqlClient`; the pool itself is for what `@effect/sql` does not offer: its gauges
 * (`Health/Metrics.ts`) and a connection of its own for `LISTEN` (`Auth/AuthCache.ts`).
 */
export interface Pool {
  readonly pool: pg.Pool
  /**
   * False where connections share one session, which would keep a named statement past the connection that
   * prepared it, so the next connection's `Parse` of the same name fails: the embedded PGlite (one session for
   * every connection) and a transaction-mode pooler in front of PostgreSQL.
   */
  readonly namedStatements: boolean
}

export class PgPool extends Context.Tag("@helpdesk/http/Database/PgPool")<PgPool, Pool>() {}

/** What the service connects with: a URL, or the parts of an embedded database's endpoint. */
export type PgConnection = Pick<
  PgClient.PgClientConfig,
  "url" | "host" | "port" | "database" | "username" | "password" | "maxConnections" | "applicationName"
> & {
  /** Whether each connection is a session of its own, which may keep named statements (see {@link Pool}). */
  readonly namedStatements: boolean
  /**
   * Whether the server stops a statement on a cancel request (default true): PostgreSQL and poolers in front of it
   * do; the embedded PGlite ignores them, so none is sent there (`CancelSafePool.ts`).
   */
  readonly cancelRequests?: boolean
}

const CONNECT_TIMEOUT = Duration.seconds(5)

/** The plan cache mode of sessions that keep named statements (decision 0316). */
export const PLAN_CACHE_MODE = "force_generic_plan"

/** A pool connected once (so a wrong address fails at start, as `PgClient.layer` does) and ended with its scope. */
const acquirePool = (connection: PgConnection) =>
  Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new CancelSafePool({
          connectionString: connection.url === undefined ? undefined : Redacted.value(connection.url),
          host: connection.host,
          port: connection.port,
          database: connection.database,
          user: connection.username,
          password: connection.password === undefined ? undefined : Redacted.value(connection.password),
          max: connection.maxConnections,
          cancelRequests: connection.cancelRequests ?? true,
          // A fixed-size pool: a connection once opened is kept, so the first burst after a lull does not wait on
          // a reconnect for every request in flight (and on preparing every named statement again; decision 0317).
          min: connection.maxConnections,
          // Every parameterised statement under a name, its plan kept per connection (NamedStatements.ts), and kept
          // generic: planning it again for each execution's values cost more than running it (decision 0316).
          ...(connection.namedStatements
            ? { Client: NamedStatementsClient, options: `-c plan_cache_mode=${PLAN_CACHE_MODE}` }
            : {}),
          application_name: connection.applicationName ?? "helpdesk"
        })
        // An idle connection's error (the server restarted) is the pool's to handle; unheard, it would crash node.
        pool.on("error", () => {})
        return pool
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    )
    yield* Effect.tryPromise({
      try: () => pool.query("SELECT 1"),
      catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
    }).pipe(
      Effect.timeoutFail({
        duration: CONNECT_TIMEOUT,
        onTimeout: () =>
          new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
      })
    )
    return pool
  })

/**
 * The SQL client (`PgClient`, `SqlClient`) and its {@link PgPool}, one pool for both: `PgClient.layer`'s
 * replacement, taking the same options.
 */
export const layer = (
  config: PgConnection & Omit<PgClient.PgClientFromPoolOptions, "acquire">
): Layer.Layer<PgPool | PgClient.PgClient | SqlClient.SqlClient, SqlError> => {
  const PoolLive = Layer.scoped(
    PgPool,
    Effect.map(acquirePool(config), (pool) => ({ pool, namedStatements: config.namedStatements }))
  )
  const ClientLive = Layer.unwrapEffect(
    Effect.map(PgPool, ({ pool }) =>
      PgClient.layerFromPool({
        acquire: Effect.succeed(pool),
        applicationName: config.applicationName,
        transformQueryNames: config.transformQueryNames,
        transformResultNames: config.transformResultNames,
        transformJson: config.transformJson
      })
    )
  )
  return ClientLive.pipe(Layer.provideMerge(PoolLive))
}
