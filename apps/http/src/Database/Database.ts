import { NodeContext } from "@effect/platform-node"
import { PgMigrator } from "@effect/sql-pg"
import { Config, Effect, Layer, Option } from "effect"
import { columnOfField, fieldOfColumn } from "./ColumnNames.js"
import { embeddedPostgres } from "./EmbeddedPostgres.js"
import { migrations } from "./migrations/index.js"
import * as PgPool from "./PgPool.js"

/** Client options every connection of the service uses: snake_case columns, camelCase in code. */
export const clientOptions = {
  transformQueryNames: columnOfField,
  transformResultNames: fieldOfColumn,
  // jsonb payloads (event data) keep their own keys.
  transformJson: false,
  applicationName: "helpdesk"
} as const

/**
 * The SQL client: the PostgreSQL of `DATABASE_URL` when set, otherwise the embedded PGlite under `DATA_DIR`
 * (default `.data`) reached through its socket, so both go through the same `pg` code path.
 */
export const PgLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const url = yield* Config.option(Config.redacted("DATABASE_URL"))
    const maxConnections = yield* Config.integer("DATABASE_POOL_SIZE").pipe(Config.withDefault(10))
    const namedStatements = yield* Config.boolean("DATABASE_NAMED_STATEMENTS").pipe(Config.withDefault(true))
    const cancelRequests = yield* Config.boolean("DATABASE_CANCEL_REQUESTS").pipe(Config.withDefault(true))
    if (Option.isSome(url))
      return PgPool.layer({ url: url.value, maxConnections, namedStatements, cancelRequests, ...clientOptions })
    const dataDir = yield* Config.string("DATA_DIR").pipe(Config.withDefault(".data"))
    const embedded = yield* embeddedPostgres(dataDir)
    yield* Effect.logInfo(
      embedded.ownedByThisProcess
        ? `Embedded PostgreSQL (PGlite) in ${dataDir}`
        : `Embedded PostgreSQL (PGlite) in ${dataDir}, shared with the process that has it open`
    )
    // PGlite runs one session, and pglite-socket can mix up exchanges of concurrent connections (a valid
    // token was seen to read as missing): one connection per process keeps each exchange whole. That one
    // session outlives every connection (the pool replaces one that failed), so no named statements. It ignores
    // cancel requests: an interrupted statement runs to its end.
    return PgPool.layer({
      ...embedded,
      maxConnections: 1,
      namedStatements: false,
      cancelRequests: false,
      ...clientOptions
    })
  })
)

/** Runs every pending migration; concurrent runners wait on the migrator's table lock. */
export const MigrationsLive = PgMigrator.layer({ loader: PgMigrator.fromRecord(migrations) }).pipe(
  Layer.provide(NodeContext.layer)
)

/** The SQL client with the schema migrated. */
export const DatabaseLive = MigrationsLive.pipe(Layer.provideMerge(PgLive))
