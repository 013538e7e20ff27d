import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { pipeline } from "node:stream/promises"
import { runInNewContext } from "node:vm"
import { NodeStream } from "@effect/platform-node"
import { Console, Context, Effect, Layer, Option, Redacted, Stream } from "effect"
import { BlobStore, fileBlobStoreLayer } from "../src/Attachments/BlobStore.js"
import { MAX_UPLOAD_BYTES } from "../src/Attachments/PendingAttachments.js"
import { postgresBlobStore } from "../src/Attachments/PostgresBlobStore.js"
import { s3BlobStore } from "../src/Attachments/S3BlobStore.js"
import { makeUploadCollector } from "../src/Attachments/UploadMemory.js"
import { clientOptions, MigrationsLive } from "../src/Database/Database.js"
import * as PgPool from "../src/Database/PgPool.js"
import { withDatabase } from "../test/support/ServerDatabases.js"
import { benchDatabase, loadAverage } from "./BenchDatabase.js"
import { type Benchmark, machine, median } from "./Benchmark.js"

/**
 * Blob stores: a 50 MB (MAX_UPLOAD_BYTES) file streamed into each store from disk in 64 KiB pieces and streamed
 * back out, both with the service's garbage collector every 8 MiB (as uploads and downloads run), beside a plain file copy and file read of the
 * same file in the same run. Throughput in MiB/s and the process's peak resident memory above its level before
 * each operation (sampled every 10 ms). `postgres`: a database created for the run on `DATABASE_URL` (or the local
 * test server); `s3`: `s3rver` in a process of its own on a local port, so its memory is not counted.
 * `BENCH_BLOB_ROUNDS` (default 3) rounds; the median and best are printed.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const ROUNDS = Number(process.env.BENCH_BLOB_ROUNDS ?? 3)
const SIZE = MAX_UPLOAD_BYTES
const PIECE = 64 * 1024
const MiB = 1024 * 1024

// UploadMemory (imported above) has exposed the collector.
const collectGarbage = runInNewContext("gc") as () => void

interface Measure {
  readonly seconds: number
  readonly peakRssAbove: number
}

/** Runs `operation` once, sampling RSS every 10 ms; garbage is collected first so rounds start alike. */
const measured = <E, R>(operation: Effect.Effect<unknown, E, R>): Effect.Effect<Measure, E, R> =>
  Effect.gen(function* () {
    collectGarbage()
    const before = process.memoryUsage.rss()
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss())
    }, 10)
    const start = performance.now()
    yield* operation.pipe(Effect.ensuring(Effect.sync(() => clearInterval(sampler))))
    const seconds = (performance.now() - start) / 1000
    peak = Math.max(peak, process.memoryUsage.rss())
    return { seconds, peakRssAbove: peak - before }
  })

const line = (label: string, rounds: ReadonlyArray<Measure>, baseline?: ReadonlyArray<Measure>) => {
  const rates = rounds.map((m) => SIZE / MiB / m.seconds)
  const rss = rounds.map((m) => m.peakRssAbove / MiB)
  const share =
    baseline === undefined
      ? ""
      : `   ${((100 * median(rates)) / median(baseline.map((m) => SIZE / MiB / m.seconds))).toFixed(0)}% of baseline`
  return `${label.padEnd(44)} median ${median(rates).toFixed(0).padStart(5)} MiB/s  best ${Math.max(...rates)
    .toFixed(0)
    .padStart(
      5
    )} MiB/s   peak RSS +${median(rss).toFixed(1).padStart(5)} MiB (max +${Math.max(...rss).toFixed(1)})${share}`
}

const fileStream = (file: string) =>
  NodeStream.fromReadable<Error, Uint8Array>(
    () => fs.createReadStream(file, { highWaterMark: PIECE }),
    (error) => error as Error
  )

const discard = (stream: Stream.Stream<Uint8Array>) => Stream.runDrain(stream)

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** `s3rver` in a child process with one bucket; killed with the scope. */
const s3rverProcess = Effect.acquireRelease(
  Effect.promise(async () => {
    const port = await freePort()
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "hd-bench-s3-"))
    const bin = createRequire(import.meta.url).resolve("s3rver/bin/s3rver.js")
    const child = spawn(
      process.execPath,
      [bin, "-d", directory, "-a", "127.0.0.1", "-p", String(port), "-s", "--configure-bucket", "bench"],
      { stdio: "ignore" }
    )
    for (let i = 0; i < 100; i++) {
      const up = await fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false
      )
      if (up) break
      await new Promise((r) => setTimeout(r, 100))
    }
    return { child, directory, endpoint: `http://127.0.0.1:${port}` }
  }),
  ({ child, directory }) =>
    Effect.sync(() => {
      child.kill("SIGKILL")
      fs.rmSync(directory, { recursive: true, force: true })
    })
)

const storeLayers = (databaseUrl: string) =>
  Effect.gen(function* () {
    const blobRoot = fs.mkdtempSync(path.join(os.tmpdir(), "hd-bench-blobs-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(blobRoot, { recursive: true, force: true })))
    const s3 = yield* s3rverProcess
    process.env.AWS_ACCESS_KEY_ID ??= "S3RVER"
    process.env.AWS_SECRET_ACCESS_KEY ??= "S3RVER"
    const pg = PgPool.layer({
      url: Redacted.make(databaseUrl),
      maxConnections: 4,
      namedStatements: true,
      ...clientOptions
    })
    return [
      { kind: "file", layer: fileBlobStoreLayer(blobRoot) },
      {
        kind: "postgres",
        layer: Layer.effect(BlobStore, postgresBlobStore).pipe(Layer.provide(MigrationsLive), Layer.provide(pg))
      },
      {
        kind: "s3",
        layer: Layer.scoped(
          BlobStore,
          s3BlobStore({
            endpoint: Option.some(s3.endpoint),
            bucket: "bench",
            region: "us-east-1",
            prefix: "",
            forcePathStyle: true
          })
        )
      }
    ] as const
  })

const run = Effect.scoped(
  Effect.gen(function* () {
    const baseUrl = process.env.DATABASE_URL ?? DEFAULT_URL
    const database = yield* benchDatabase(baseUrl, "blobs")
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "hd-bench-copy-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(work, { recursive: true, force: true })))
    const source = path.join(work, "source.bin")
    // Random bytes, as uploads mostly are (compressed formats): nothing for a store to compress.
    yield* Effect.promise(async () => {
      const out = fs.createWriteStream(source)
      for (let written = 0; written < SIZE; written += MiB) {
        if (!out.write(randomBytes(MiB))) await new Promise<void>((r) => out.once("drain", () => r()))
      }
      await new Promise<void>((r) => out.end(() => r()))
    })
    yield* Console.log(`machine:   ${machine()}`)
    yield* Console.log(`load:      ${loadAverage()} (1, 5, 15 min) — the machine is shared; figures vary with its load`)
    yield* Console.log(`file:      ${(SIZE / MiB).toFixed(0)} MiB, ${ROUNDS} rounds, ${PIECE / 1024} KiB pieces`)
    yield* Console.log(`postgres:  ${withDatabase(baseUrl, database).replace(/\/\/[^@]*@/, "//")}\n`)

    const copies: Array<Measure> = []
    const reads: Array<Measure> = []
    for (let round = 0; round < ROUNDS; round++) {
      const target = path.join(work, `copy-${round}.bin`)
      copies.push(
        yield* measured(
          Effect.promise(() =>
            pipeline(fs.createReadStream(source, { highWaterMark: PIECE }), fs.createWriteStream(target))
          )
        )
      )
      reads.push(yield* measured(discard(fileStream(target).pipe(Stream.orDie))))
      fs.rmSync(target)
    }
    yield* Console.log(line("baseline: file copy (stream, 64 KiB)", copies))
    yield* Console.log(line("baseline: file read (stream, 64 KiB)", reads))

    for (const store of yield* storeLayers(withDatabase(baseUrl, database))) {
      const blobs = Context.get(yield* Layer.build(store.layer), BlobStore)
      const writes: Array<Measure> = []
      const downloads: Array<Measure> = []
      for (let round = 0; round < ROUNDS; round++) {
        const key = `bench-${store.kind}-${round}`
        const collect = makeUploadCollector()
        writes.push(
          yield* measured(blobs.put(key, Stream.map(fileStream(source), collect), { maxBytes: MAX_UPLOAD_BYTES }))
        )
        downloads.push(
          yield* measured(
            Effect.flatMap(blobs.get(key), (content) => discard(Stream.map(content, makeUploadCollector())))
          )
        )
        yield* blobs.remove(key)
      }
      if (store.kind === "file") {
        const bare: Array<Measure> = []
        for (let round = 0; round < ROUNDS; round++) {
          bare.push(yield* measured(blobs.put("bench-bare", fileStream(source), { maxBytes: MAX_UPLOAD_BYTES })))
          yield* blobs.remove("bench-bare")
        }
        yield* Console.log(line("reference: file put without the collector", bare, copies))
      }
      yield* Console.log(line(`${store.kind}: upload (put)`, writes, copies))
      yield* Console.log(line(`${store.kind}: download (get)`, downloads, reads))
    }
  })
)

/** The `blobs` benchmark. */
export const blobStoreBenchmark: Benchmark = {
  name: "blobs",
  description: "50 MB upload and download through each blob store beside a plain file copy",
  run
}
