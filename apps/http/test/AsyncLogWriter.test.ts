import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { asyncLogWriter, LOG_BUFFER_BYTES } from "../src/Cli/AsyncLogWriter.js"
import { ServiceProcessTestLive, serve, serviceDatabase } from "./support/ServiceProcess.js"

const scratch = () => fs.mkdtempSync(path.join(os.tmpdir(), "hd-log-"))

/** A named pipe and a write end opened on it (read-write, so that opening waits for no reader). */
const fifo = () => {
  const file = path.join(scratch(), "log.fifo")
  execFileSync("mkfifo", [file])
  return { file, fd: fs.openSync(file, "r+") }
}

/** Reads the pipe until `until` holds for what arrived (at most 20 s). */
const readUntil = (file: string, until: (text: string) => boolean) =>
  new Promise<string>((resolve, reject) => {
    const stream = fs.createReadStream(file, { encoding: "utf8" })
    let text = ""
    const timer = setTimeout(() => {
      stream.destroy()
      reject(new Error(`read ${text.length} characters, then nothing more`))
    }, 20_000)
    stream.on("data", (chunk) => {
      text += chunk
      if (!until(text)) return
      clearTimeout(timer)
      stream.destroy()
      resolve(text)
    })
  })

const line = (n: number) => `${JSON.stringify({ message: "line", n, padding: "x".repeat(180) })}\n`

describe("the asynchronous log writer", () => {
  it.live("given a file, every line arrives once and in order when the writer is released", () =>
    Effect.gen(function* () {
      const file = path.join(scratch(), "log.jsonl")
      const fd = fs.openSync(file, "w")
      yield* Effect.scoped(
        Effect.flatMap(asyncLogWriter(fd), (writer) =>
          Effect.sync(() => {
            for (let n = 0; n < 5_000; n++) writer.write(line(n))
          })
        )
      )
      fs.closeSync(fd)
      const numbers = fs
        .readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((text) => JSON.parse(text).n)
      expect(numbers).toEqual(Array.from({ length: 5_000 }, (_, n) => n))
    })
  )

  it.live(
    "given a reader that stops reading, writing returns at once and what does not fit is dropped, then counted",
    () =>
      Effect.gen(function* () {
        const { file, fd } = fifo()
        const written = 2_000 // about 400 KB, six times what the pipe holds
        const writer = yield* asyncLogWriter(fd, { bufferBytes: 16 * 1024 })
        const started = performance.now()
        for (let n = 0; n < written; n++) writer.write(line(n))
        // Nothing waited on the reader: the writes above only queued, and a timer still fires on time.
        expect(performance.now() - started).toBeLessThan(1_000)
        const late = yield* Effect.promise(() => {
          const due = performance.now() + 20
          return new Promise<number>((resolve) => setTimeout(() => resolve(performance.now() - due), 20))
        })
        expect(late).toBeLessThan(200)
        // The reader comes back: the lines that fit, in order, and warnings counting the others.
        writer.write(line(written))
        const parse = (text: string) => {
          const records = text
            .split("\n")
            .filter((l) => l.endsWith("}"))
            .map((l) => JSON.parse(l))
          const kept = records.filter((record) => record.message === "line").map((record) => record.n as number)
          const warnings = records.filter((record) => record.level === "warn")
          const dropped = warnings.reduce((sum, warning) => sum + warning.dropped_lines, 0)
          return { kept, warnings, dropped }
        }
        const text = yield* Effect.promise(() =>
          readUntil(file, (text) => {
            const { kept, dropped } = parse(text)
            return kept.length + dropped >= written + 1
          })
        )
        const { kept, warnings, dropped } = parse(text)
        expect(warnings.length).toBeGreaterThan(0)
        for (const warning of warnings)
          expect(warning.message).toMatch(/^Dropped \d+ log lines?: the log's reader did not keep up$/)
        expect(dropped).toBeGreaterThan(0)
        expect(kept).toEqual([...kept].sort((a, b) => a - b))
        expect(new Set(kept).size).toBe(kept.length)
        expect(kept.at(-1)).toBe(written)
        expect(kept.length + dropped).toBe(written + 1)
        fs.closeSync(fd)
      }).pipe(Effect.scoped)
  )

  it.live("given a reader gone (EPIPE), the writer gives up quietly and the process goes on", () =>
    Effect.gen(function* () {
      const file = path.join(scratch(), "gone.fifo")
      execFileSync("mkfifo", [file])
      const reader = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
      const fd = fs.openSync(file, fs.constants.O_WRONLY)
      fs.closeSync(reader)
      const writer = yield* asyncLogWriter(fd)
      for (let n = 0; n < 100; n++) writer.write(line(n))
      yield* Effect.sleep("200 millis")
      for (let n = 0; n < 100; n++) writer.write(line(n))
      expect(() => writer.flushSync()).not.toThrow()
      fs.closeSync(fd)
    }).pipe(Effect.scoped)
  )
})

layer(ServiceProcessTestLive, { excludeTestServices: true, timeout: "180 seconds" })(
  "a service whose log reader stalls",
  (it) => {
    it.effect(
      "given nobody reads the pipe that is its stdout, the service answers, holds at most 8 MiB of lines, and counts the lines it dropped",
      () =>
        Effect.gen(function* () {
          // A named pipe, as a container's log is: full at 64 KiB until someone reads it.
          const { file, fd } = fifo()
          yield* Effect.addFinalizer(() => Effect.sync(() => fs.closeSync(fd)))
          const service = yield* serve({ ...(yield* serviceDatabase), LOG_FORMAT: "json" }, { stdout: fd })
          // Each answer's log line quotes its 4,000-character path: 3,000 of them are about 12 MB.
          const requests = 3_000
          const nowhere = `/nowhere/${"x".repeat(4_000)}/`
          const statuses = yield* Effect.promise(async () => {
            const statuses: Array<number> = []
            for (let sent = 0; sent < requests; sent += 50) {
              const batch = await Promise.all(
                Array.from({ length: 50 }, () =>
                  fetch(`${service.baseUrl}${nowhere}`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.status)
                )
              )
              statuses.push(...batch)
            }
            return statuses
          })
          expect(statuses.filter((status) => status === 404)).toHaveLength(requests)
          // Read at last: the lines the service held, and a warning for those it could not.
          const tally = (text: string) => {
            const records = text
              .split("\n")
              .filter((l) => l.endsWith("}"))
              .map((l) => JSON.parse(l))
            return {
              logged: records.filter((record) => record.path === nowhere).length,
              dropped: records
                .filter((record) => record.level === "warn" && typeof record.dropped_lines === "number")
                .reduce((sum, record) => sum + record.dropped_lines, 0)
            }
          }
          const text = yield* Effect.promise(() =>
            readUntil(file, (text) => {
              const { logged, dropped } = tally(text)
              return logged + dropped >= requests
            })
          )
          const { logged, dropped } = tally(text)
          expect(dropped).toBeGreaterThan(0)
          expect(logged).toBeGreaterThan(LOG_BUFFER_BYTES / (nowhere.length + 300))
          expect(logged).toBeLessThan(requests)
          expect(logged + dropped).toBe(requests)
        }).pipe(Effect.scoped)
    )
  }
)
