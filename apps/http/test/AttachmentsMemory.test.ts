import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_UPLOAD_BYTES } from "../src/Attachments/PendingAttachments.js"
import * as Fixtures from "./support/Fixtures.js"
import { ServiceProcessTestLive, serve, serviceDatabase } from "./support/ServiceProcess.js"

const MiB = 1024 * 1024

const rssOf = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024
}

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

layer(ServiceProcessTestLive, { excludeTestServices: true, timeout: "180 seconds" })("upload memory", (it) => {
  it.scoped("a 50 MB upload raises the service's resident memory by less than 20 MB", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      // The service in a process of its own, so its resident memory is measured alone.
      const { child, baseUrl } = yield* serve({
        ...(yield* serviceDatabase),
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "hd-memory-"))
      })
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
