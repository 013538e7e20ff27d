import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Console, DateTime, Effect, Exit, Fiber, Scope } from "effect"
import { commandProcess, commandWordOf } from "../src/CommandProcess.js"
import { PgLive } from "../src/Database/Database.js"
import { embeddedPostgres } from "../src/Database/EmbeddedPostgres.js"
import { drain } from "../src/Timers/Sweep.js"
import * as Fixtures from "./support/Fixtures.js"
import {
  bindable,
  freePort,
  type Helpdesk,
  helpdesk,
  isRunning,
  ServiceProcessTestLive,
  serve,
  serviceDatabase
} from "./support/ServiceProcess.js"

/** Whether a TCP connection to the port is refused (nothing listens). */
const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"))
  })

/** Resolves with the exit code, or fails after `seconds`. */
const exitWithin = (service: Helpdesk, seconds: number) =>
  Effect.promise(() => service.exited).pipe(
    Effect.timeoutFail({
      duration: `${seconds} seconds`,
      onTimeout: () => new Error(`still running after ${seconds} s:\n${service.output()}`)
    })
  )

/**
 * An upload whose body trickles in over `chunks` × `every` ms, so that it is in flight while the service is told
 * to stop. Resolves with the status and the headers of the answer.
 */
const slowUpload = (port: number, requestPath: string, token: string, chunks: number, every: number) =>
  new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    const boundary = "----hd-shutdown-boundary"
    let timer: ReturnType<typeof setInterval> | undefined
    const request = http.request({
      host: "127.0.0.1",
      port,
      path: requestPath,
      method: "POST",
      agent: false,
      headers: { "x-service-token": token, "content-type": `multipart/form-data; boundary=${boundary}` }
    })
    request.on("response", (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on("end", () => resolve({ status: response.statusCode!, connection: response.headers.connection, body }))
    })
    request.on("error", (error) => {
      clearInterval(timer)
      reject(error)
    })
    request.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="file_upload"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`
    )
    let sent = 0
    timer = setInterval(() => {
      request.write("x".repeat(1024))
      if (++sent < chunks) return
      clearInterval(timer)
      request.end(`\r\n--${boundary}--\r\n`)
    }, every)
  })

const tempDirs: Array<string> = []
const tempDataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hd-shutdown-"))
  tempDirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true })
})

layer(ServiceProcessTestLive, { excludeTestServices: true, timeout: "180 seconds" })("stopping the service", (it) => {
  it.scoped(
    "given SIGTERM while an upload is in flight, the upload is answered, new connections are refused and the process exits 0 leaving its port free",
    () =>
      Effect.gen(function* () {
        const org = yield* Fixtures.organization()
        const service = yield* serve({ ...(yield* serviceDatabase), DATA_DIR: tempDataDir() })
        const upload = slowUpload(service.port, `${org.path}pending-attachments/`, org.ownerToken, 20, 100)
        yield* Effect.sleep("500 millis")
        service.child.kill("SIGTERM")
        yield* Effect.sleep("300 millis")
        // Stopped listening at once, while the upload still trickles in.
        expect(yield* Effect.promise(() => refused(service.port))).toBe(true)
        const answer = yield* Effect.promise(() => upload)
        expect(answer.status, answer.body).toBe(201)
        expect(answer.connection).toBe("close")
        expect(yield* exitWithin(service, 15)).toBe(0)
        expect(isRunning(service.child.pid!)).toBe(false)
        expect(yield* Effect.promise(() => bindable(service.port))).toBe(true)
      })
  )

  it.scoped(
    "given a request longer than SHUTDOWN_TIMEOUT, its connection is cut when the timeout ends and the process still exits 0",
    () =>
      Effect.gen(function* () {
        const org = yield* Fixtures.organization()
        const service = yield* serve({
          ...(yield* serviceDatabase),
          DATA_DIR: tempDataDir(),
          SHUTDOWN_TIMEOUT: "1 second"
        })
        // 30 s of trickling body: far past the timeout.
        const upload = slowUpload(service.port, `${org.path}pending-attachments/`, org.ownerToken, 300, 100).then(
          (answer) => `answered ${answer.status}`,
          (error: Error) => `cut: ${error.message}`
        )
        yield* Effect.sleep("500 millis")
        const stoppedAt = Date.now()
        service.child.kill("SIGTERM")
        expect(yield* exitWithin(service, 10), service.output()).toBe(0)
        expect(Date.now() - stoppedAt).toBeLessThan(6_000)
        expect(yield* Effect.promise(() => upload)).toMatch(/^cut: /)
        expect(service.output()).toContain("still in flight after SHUTDOWN_TIMEOUT")
      })
  )
})

describe("the embedded DATA_DIR", () => {
  // Without DATABASE_URL, whichever database the tests use: the service opens DATA_DIR itself.
  const embedded = (dataDir: string) => ({ DATABASE_URL: undefined, DATA_DIR: dataDir })

  it.scoped(
    "given a running serve, another serve or worker refuses it naming the owner, a one-shot command joins it, and SIGTERM releases it",
    () =>
      Effect.gen(function* () {
        const dataDir = tempDataDir()
        const lockFile = path.join(dataDir, "helpdesk.lock")
        const owner = yield* serve(embedded(dataDir))
        const pid = owner.child.pid!

        const [secondServe, worker, migrate] = [
          helpdesk(["serve"], { ...embedded(dataDir), PORT: String(yield* Effect.promise(freePort)) }),
          helpdesk(["worker"], embedded(dataDir)),
          helpdesk(["migrate"], embedded(dataDir))
        ]
        for (const refusedOne of [secondServe, worker]) {
          expect(yield* exitWithin(refusedOne, 60)).toBe(1)
          expect(refusedOne.output()).toContain(`Error: DATA_DIR ${dataDir} is in use by process ${pid}`)
          expect(refusedOne.output()).toContain("use another DATA_DIR, or set DATABASE_URL")
        }
        expect(yield* exitWithin(migrate, 60), migrate.output()).toBe(0)

        owner.child.kill("SIGTERM")
        expect(yield* exitWithin(owner, 15), owner.output()).toBe(0)
        expect(fs.existsSync(lockFile)).toBe(false)
        expect(yield* Effect.promise(() => bindable(owner.port))).toBe(true)

        // The directory is free again: a worker now owns it, and SIGTERM releases it too.
        const next = helpdesk(["worker"], embedded(dataDir))
        yield* Effect.addFinalizer(() => Effect.sync(() => next.child.exitCode === null && next.child.kill("SIGKILL")))
        const published = yield* Effect.promise(async () => {
          for (let i = 0; i < 900 && next.child.exitCode === null; i++) {
            const owner = fs.existsSync(lockFile) ? JSON.parse(fs.readFileSync(lockFile, "utf8")) : null
            if (owner?.endpoint) return owner
            await new Promise((r) => setTimeout(r, 100))
          }
          throw new Error(`the worker did not open DATA_DIR:\n${next.output()}`)
        })
        expect(published.pid).toBe(next.child.pid)
        next.child.kill("SIGTERM")
        expect(yield* exitWithin(next, 15), next.output()).toBe(0)
        expect(fs.existsSync(lockFile)).toBe(false)
      }),
    180_000
  )

  it.scoped("given a one-shot command joined to the owner, it fails in one line when the owner stops", () =>
    Effect.gen(function* () {
      const dataDir = tempDataDir()
      const ownerScope = yield* Scope.make()
      yield* embeddedPostgres(dataDir).pipe(Scope.extend(ownerScope))
      const printed: Array<string> = []
      const error = (...args: ReadonlyArray<unknown>) => Effect.sync(() => void printed.push(args.join(" ")))
      const console = new Proxy(yield* Console.consoleWith(Effect.succeed), {
        get: (target, key) => (key === "error" ? error : Reflect.get(target, key))
      })
      const command = Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`SELECT 1`
        yield* Scope.close(ownerScope, Exit.void)
        yield* sql`SELECT 1`.pipe(Effect.orDie)
      }).pipe(Effect.provide(PgLive))
      const exitCode = process.exitCode
      yield* Effect.addFinalizer(() => Effect.sync(() => (process.exitCode = exitCode)))
      const outcome = yield* commandProcess(["node", "helpdesk", "org", "create"])(command).pipe(
        Effect.withConsole(console),
        // No DATABASE_URL, whichever database the other tests use.
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", dataDir]]))),
        Effect.timeout("20 seconds"),
        Effect.exit
      )
      expect(Exit.isSuccess(outcome), String(outcome)).toBe(true)
      expect(process.exitCode).toBe(1)
      expect(printed).toEqual([
        `Error: the embedded database in DATA_DIR ${dataDir} went away while this command ran: the process that had it open stopped. Run the command again.`
      ])
    })
  )

  it("given options before the command, the command word that decides whether it may join is still found", () => {
    expect(commandWordOf(["node", "helpdesk", "--log-level", "debug", "serve"])).toBe("serve")
    expect(commandWordOf(["node", "helpdesk", "--log-level=debug", "worker"])).toBe("worker")
    expect(commandWordOf(["node", "helpdesk", "org", "create", "--name", "serve"])).toBe("org")
  })

  it.effect("given a command that may not join (serve, worker), a DATA_DIR open in another process is refused", () =>
    Effect.gen(function* () {
      const dataDir = tempDataDir()
      yield* embeddedPostgres(dataDir)
      const error = yield* Effect.flip(Effect.scoped(embeddedPostgres(dataDir)))
      expect(error._tag).toBe("DataDirInUse")
      expect(error.message).toContain(`DATA_DIR ${dataDir} is in use by process ${process.pid}`)
    }).pipe(Effect.scoped)
  )

  it("given a lock left by a killed process whose pid now runs another program, the directory is taken over", () => {
    const dataDir = tempDataDir()
    // What a container restarted after `docker kill` finds: its own pid (1, say) in the lock, with another start.
    fs.writeFileSync(
      path.join(dataDir, "helpdesk.lock"),
      JSON.stringify({ pid: process.pid, startedAt: "earlier", processStart: "1", endpoint: null })
    )
    return Effect.runPromise(
      Effect.scoped(embeddedPostgres(dataDir)).pipe(
        Effect.map((opened) => expect(opened.ownedByThisProcess).toBe(true))
      )
    )
  })
})

describe("a worker's round when the process stops", () => {
  it.live("given a stop in the middle of a batch, the batch runs to its end and no other starts", () =>
    Effect.gen(function* () {
      const finished: Array<number> = []
      const batch = () =>
        Effect.sleep("300 millis").pipe(
          Effect.andThen(() => finished.push(finished.length)),
          Effect.as({ claimed: 25, acted: 25, failed: 0 })
        )
      const round = yield* Effect.fork(drain(DateTime.now, batch, 25))
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(round)
      expect(finished).toEqual([0])
    })
  )
})
