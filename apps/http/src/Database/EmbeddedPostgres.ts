import * as fs from "node:fs"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Context, Effect, Schema, type Scope } from "effect"
import { type SocketEndpoint, tryLockDataDir } from "./DataDirLock.js"

/** The embedded data directory is open in another process, which this one may not join (or not yet). */
export class DataDirInUse extends Schema.TaggedError<DataDirInUse>()("DataDirInUse", {
  dataDir: Schema.String,
  pid: Schema.Number,
  startedAt: Schema.String
}) {
  override get message() {
    return `DATA_DIR ${this.dataDir} is in use by process ${this.pid} (since ${this.startedAt}): stop it or use another DATA_DIR, or set DATABASE_URL to use a PostgreSQL server.`
  }
}

/**
 * Whether a process finding its data directory open in another may join that one through its socket. One-shot
 * CLI commands may (they end in moments); `serve` and `worker` may not (the default): a process that outlives the
 * owner would fail every query from then on (decision 0407).
 */
export class JoinRunningOwner extends Context.Reference<JoinRunningOwner>()(
  "@helpdesk/http/Database/JoinRunningOwner",
  { defaultValue: () => false }
) {}

/** The embedded database could not be opened (a damaged or foreign data directory, for example). */
export class EmbeddedDatabaseError extends Schema.TaggedError<EmbeddedDatabaseError>()("EmbeddedDatabaseError", {
  dataDir: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Could not open the embedded database in ${this.dataDir}: ${this.reason}`
  }
}

/** How to reach an embedded database, and whether this process owns it or shares another's. */
export interface EmbeddedConnection extends SocketEndpoint {
  readonly database: string
  readonly username: string
  readonly ownedByThisProcess: boolean
}

// Unix socket paths are limited to ~104 bytes; deeper data directories fall back to loopback TCP.
const MAX_SOCKET_PATH = 100
const SOCKET_PORT = 5432

/** Serves a PGlite database over the PostgreSQL wire protocol, on a unix socket or loopback TCP. */
export const serveOverSocket = (db: PGlite, where: { readonly socketDir: string } | { readonly tcp: true }) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const socketPath = "socketDir" in where ? path.join(where.socketDir, `.s.PGSQL.${SOCKET_PORT}`) : undefined
      if (socketPath) fs.rmSync(socketPath, { force: true })
      const server = new PGLiteSocketServer(
        socketPath
          ? { db, path: socketPath, maxConnections: 32 }
          : { db, host: "127.0.0.1", port: 0, maxConnections: 32 }
      )
      await server.start()
      const endpoint: SocketEndpoint =
        "socketDir" in where
          ? { host: where.socketDir, port: SOCKET_PORT }
          : { host: "127.0.0.1", port: Number(server.getServerConn().split(":").pop()) }
      return { server, endpoint }
    }),
    ({ server }) => Effect.promise(() => server.stop())
  ).pipe(Effect.map(({ endpoint }) => endpoint))

/**
 * Opens the embedded PostgreSQL (PGlite) of a data directory, or joins the process that has it open.
 *
 * Exactly one process opens the directory: it holds a lock file and serves the database on a socket, through
 * which every client (its own pool included) connects with the ordinary `pg` driver. Another process finding
 * the lock fails with {@link DataDirInUse}, unless {@link JoinRunningOwner} lets it connect through the published
 * socket (not while the owner is still starting).
 */
export const embeddedPostgres = (
  dataDir: string
): Effect.Effect<EmbeddedConnection, DataDirInUse | EmbeddedDatabaseError, Scope.Scope> =>
  Effect.gen(function* () {
    const dir = path.resolve(dataDir)
    const lock = tryLockDataDir(dir)
    if (lock._tag === "HeldBy") {
      const { endpoint, pid, startedAt } = lock.owner
      if (endpoint === null || !(yield* JoinRunningOwner))
        return yield* new DataDirInUse({ dataDir: dir, pid, startedAt })
      return { ...endpoint, database: "postgres", username: "postgres", ownedByThisProcess: false }
    }
    yield* Effect.addFinalizer(() => Effect.sync(lock.release))
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create({ dataDir: path.join(dir, "pgdata") }),
        catch: (error) => new EmbeddedDatabaseError({ dataDir: dir, reason: String(error) })
      }),
      (db) => Effect.promise(() => db.close())
    )
    const socketDir = dir
    const endpoint = yield* serveOverSocket(
      db,
      path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`).length <= MAX_SOCKET_PATH ? { socketDir } : { tcp: true }
    )
    lock.publish(endpoint)
    return { ...endpoint, database: "postgres", username: "postgres", ownedByThisProcess: true }
  })
