import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import { fileURLToPath } from "node:url"
import { Context, Effect, Layer, Redacted } from "effect"
import { clientOptions, MigrationsLive } from "../../src/Database/Database.js"
import * as PgPool from "../../src/Database/PgPool.js"
import { ServicesLive } from "../../src/Services.js"
import { freshDatabase, usesRealPostgres } from "./TestDatabase.js"

const cli = fileURLToPath(new URL("../../src/cli.ts", import.meta.url))
// Workspace packages resolved to their sources (its `paths`), so the spawned service needs no build.
const sourcesTsconfig = fileURLToPath(new URL("../../tsconfig.test.json", import.meta.url))

/** A TCP port of 127.0.0.1 that nothing listens on (at the time of asking). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Whether the port can be listened on again (no process, orphan or not, holds it). */
export const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/** Whether a process of this pid runs. */
export const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A `helpdesk` process started by a test. */
export interface Helpdesk {
  readonly child: ChildProcess
  /** Its stdout and stderr so far. */
  readonly output: () => string
  /** The exit code once the process has ended (null if a signal ended it). */
  readonly exited: Promise<number | null>
}

/** How a test starts a `helpdesk` process: `stdout`, a file descriptor for its standard output instead of a pipe. */
export interface HelpdeskOptions {
  readonly stdout?: number
}

/**
 * `helpdesk <args>` in a process of its own, as a user starts it (from the sources, through tsx); its output is
 * collected unless `options.stdout` takes it elsewhere.
 */
export const helpdesk = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>,
  options: HelpdeskOptions = {}
): Helpdesk => {
  const child = spawn(process.execPath, ["--import", "tsx", cli, ...args], {
    env: { ...process.env, TSX_TSCONFIG_PATH: sourcesTsconfig, NO_COLOR: "1", ...env },
    stdio: ["ignore", options.stdout ?? "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/**
 * A `helpdesk serve` on a free port of 127.0.0.1, once `/healthz` answers (at most 90 s); killed (SIGKILL) with the
 * scope if still running.
 */
export const serve = (env: Record<string, string | undefined>, options: HelpdeskOptions = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const port = await freePort()
      const service = helpdesk(["serve"], { HOST: "127.0.0.1", PORT: String(port), ...env }, options)
      for (let i = 0; i < 900; i++) {
        const up = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
          (r) => r.ok,
          () => false
        )
        if (up) return { ...service, port, baseUrl: `http://127.0.0.1:${port}` }
        if (service.child.exitCode !== null) break
        await new Promise((r) => setTimeout(r, 100))
      }
      service.child.kill("SIGKILL")
      throw new Error(`the service did not start:\n${service.output()}`)
    }),
    ({ child }) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )

/** The URL of this test file's database, for a service process to connect to. */
export class DatabaseUrl extends Context.Tag("test/DatabaseUrl")<DatabaseUrl, string>() {}

/**
 * The settings of a service process on this test file's database. An embedded test database runs one session, so
 * one connection there (see Database.ts).
 */
export const serviceDatabase = Effect.map(DatabaseUrl, (url) => ({
  DATABASE_URL: url,
  DATABASE_POOL_SIZE: usesRealPostgres ? "10" : "1",
  // PGlite behind its socket is one session for this process's connections and the service's: the case the
  // setting is for (two processes' statement names would meet in it, decision 0314).
  DATABASE_NAMED_STATEMENTS: usesRealPostgres ? "true" : "false",
  // PGlite's socket ignores cancel requests (an interrupted statement runs to its end there).
  DATABASE_CANCEL_REQUESTS: usesRealPostgres ? "true" : "false"
}))

const DatabaseOfThisFile = Layer.unwrapScoped(
  Effect.map(freshDatabase, ({ url }) =>
    Layer.merge(
      Layer.succeed(DatabaseUrl, url),
      PgPool.layer({
        url: Redacted.make(url),
        maxConnections: usesRealPostgres ? 4 : 1,
        namedStatements: usesRealPostgres,
        cancelRequests: usesRealPostgres,
        ...clientOptions
      })
    )
  )
)

/**
 * For tests of service processes: this file's migrated database, its URL ({@link DatabaseUrl}) and the services
 * for fixtures in the test's own process.
 */
export const ServiceProcessTestLive = ServicesLive.pipe(
  Layer.provideMerge(MigrationsLive),
  Layer.provideMerge(DatabaseOfThisFile)
)
