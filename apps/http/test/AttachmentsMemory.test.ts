import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { MAX_UPLOAD_BYTES } from "../src/Attachments/PendingAttachments.js"
import { clientOptions, MigrationsLive } from "../src/Database/Database.js"
import * as PgPool from "../src/Database/PgPool.js"
import { ServicesLive } from "../src/Server.js"
import * as Fixtures from "./support/Fixtures.js"
import { freshDatabase, usesRealPostgres } from "./support/TestDatabase.js"

const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url))
const MiB = 1024 * 1024

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const rssOf = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024
}

/** The service in a process of its own, so its resident memory is measured alone. */
const serviceProcess = (databaseUrl: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const port = await freePort()
      const child = spawn(process.execPath, ["--import", "tsx", cli, "serve"], {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          // An embedded test database runs one session: one connection (see Database.ts).
          DATABASE_POOL_SIZE: usesRealPostgres ? "10" : "1",
          PORT: String(port),
          HOST: "127.0.0.1",
          DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "hd-memory-"))
        },
        stdio: ["ignore", "ignore", "ignore"]
      })
      const baseUrl = `http://127.0.0.1:${port}`
      for (let i = 0; i < 600; i++) {
        const up = await fetch(`${baseUrl}/healthz/`).then(
          (r) => r.ok,
          () => false
        )
        if (up) return { child, baseUrl }
        await new Promise((r) => setTimeout(r, 100))
      }
      child.kill("SIGKILL")
      throw new Error("the service did not start")
    }),
    ({ child }: { readonly child: ChildProcess; readonly baseUrl: string }) => Effect.sync(() => child.kill("SIGKILL"))
  )

/** A multipart body streamed from one reused 64 KiB chunk, so the client holds no copy of the file. */
const streamedUpload = (size: number) => {
  const boundary = "----hd-memory-boundary"
  const head = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file_upload"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`
  )
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`)
  const chunk = new Uint8Array(64 * 1024).fill(7)
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head)
    },
    pull(controller) {
      if (sent >= size) {
        controller.enqueue(tail)
        controller.close()
        return
      }
      const n = Math.min(chunk.length, size - sent)
      controller.enqueue(n === chunk.length ? chunk : chunk.subarray(0, n))
      sent += n
    }
  })
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}

/** The URL of this file's database, for the service process to connect to. */
class DatabaseUrl extends Context.Tag("test/DatabaseUrl")<DatabaseUrl, string>() {}

const DatabaseOfThisFile = Layer.unwrapScoped(
  Effect.map(freshDatabase, ({ url }) =>
    Layer.merge(
      Layer.succeed(DatabaseUrl, url),
      PgPool.layer({
        url: Redacted.make(url),
        maxConnections: usesRealPostgres ? 4 : 1,
        namedStatements: usesRealPostgres,
        ...clientOptions
      })
    )
  )
)

const TestLayer = ServicesLive.pipe(Layer.provideMerge(MigrationsLive), Layer.provideMerge(DatabaseOfThisFile))

layer(TestLayer, { excludeTestServices: true, timeout: "180 seconds" })("upload memory", (it) => {
  it.scoped("a 50 MB upload raises the service's resident memory by less than 20 MB", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { child, baseUrl } = yield* serviceProcess(yield* DatabaseUrl)
      const upload = (size: number) =>
        Effect.promise(async () => {
          const { body, contentType } = streamedUpload(size)
          const response = await fetch(`${baseUrl}${org.path}pending-attachments/`, {
            method: "POST",
            headers: { "x-service-token": org.ownerToken, "content-type": contentType },
            body,
            duplex: "half"
          } as RequestInit)
          return { status: response.status, body: await response.json() }
        })

      // Warm up: first requests load code paths and connection pools.
      for (let i = 0; i < 3; i++) expect((yield* upload(MiB)).status).toBe(201)
      const baseline = rssOf(child.pid!)
      let peak = baseline
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(child.pid!))
      }, 5)
      const result = yield* upload(MAX_UPLOAD_BYTES).pipe(Effect.ensuring(Effect.sync(() => clearInterval(sampler))))
      peak = Math.max(peak, rssOf(child.pid!))
      expect(result.status).toBe(201)
      expect(result.body.size).toBe(MAX_UPLOAD_BYTES)
      expect(peak - baseline).toBeLessThan(20 * MiB)
    })
  )
})
