import { randomBytes, randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { OrganizationId } from "@helpdesk/domain"
import { Chunk, ConfigProvider, Effect, Either, Exit, Fiber, Layer, Option, Stream } from "effect"
import {
  BlobStore,
  type BlobStoreKind,
  blobStoreKind,
  fileBlobStoreLayer,
  HEAD_LENGTH
} from "../src/Attachments/BlobStore.js"
import { PendingAttachments } from "../src/Attachments/PendingAttachments.js"
import { CHUNK_BYTES, postgresBlobStore } from "../src/Attachments/PostgresBlobStore.js"
import { s3BlobStore } from "../src/Attachments/S3BlobStore.js"
import type { Caller } from "../src/Auth/CurrentCaller.js"
import { localS3, S3_TEST_CREDENTIALS } from "./support/S3Server.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

// The S3 SDK takes its credentials from the usual environment variables, as the service does.
Object.assign(process.env, S3_TEST_CREDENTIALS)

const MiB = 1024 * 1024
const alice: Caller = { _tag: "Person", userId: 1, tokenId: 11 }

const collect = (stream: Stream.Stream<Uint8Array>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(Chunk.toArray(chunks)))

/** `bytes` in pieces of `piece` bytes, as a socket would hand them over. */
const streamOf = (bytes: Uint8Array, piece = 64 * 1024) =>
  Stream.fromIterable(
    Array.from({ length: Math.ceil(bytes.length / piece) }, (_, i) => bytes.subarray(i * piece, (i + 1) * piece))
  )

/** An endless stream of 64 KiB pieces that counts how many were pulled. */
const endless = () => {
  const pulled = { pieces: 0 }
  const piece = new Uint8Array(64 * 1024).fill(7)
  const stream = Stream.repeatEffect(
    Effect.sync(() => {
      pulled.pieces += 1
      return piece
    })
  )
  return { pulled, stream }
}

const tempRoot = () => fs.mkdtempSync(path.join(os.tmpdir(), "hd-blobs-"))

interface StoreUnderTest {
  readonly kind: BlobStoreKind
  readonly layer: Layer.Layer<BlobStore, unknown, SqlClient.SqlClient>
  /** Leftovers of unfinished writes, where the store can count them. */
  readonly leftovers: Effect.Effect<number, unknown, SqlClient.SqlClient>
  /** Makes an abandoned write older than an hour, where the store keeps such things. */
  readonly abandon: Option.Option<Effect.Effect<void, unknown, SqlClient.SqlClient>>
}

const fileRoot = tempRoot()
const partials = (root: string) =>
  fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .flatMap((dir) => fs.readdirSync(path.join(root, dir)))
        .filter((name) => name.includes(".partial-")).length
    : 0

const stores: ReadonlyArray<StoreUnderTest> = [
  {
    kind: "file",
    layer: fileBlobStoreLayer(fileRoot),
    leftovers: Effect.sync(() => partials(fileRoot)),
    abandon: Option.some(
      Effect.sync(() => {
        const dir = path.join(fileRoot, "ab")
        fs.mkdirSync(dir, { recursive: true })
        const file = path.join(dir, `abandoned.partial-${randomBytes(3).toString("hex")}`)
        fs.writeFileSync(file, "x")
        const old = new Date(Date.now() - 2 * 3600_000)
        fs.utimesSync(file, old, old)
      })
    )
  },
  {
    kind: "postgres",
    layer: Layer.effect(BlobStore, postgresBlobStore),
    leftovers: Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(
        sql<{ n: number }>`
          SELECT count(*)::int AS n FROM hd_blob_chunks c
          WHERE NOT EXISTS (SELECT 1 FROM hd_blobs b WHERE b.write_id = c.write_id)`,
        (rows) => rows[0]!.n
      )
    ),
    abandon: Option.some(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO hd_blob_chunks (write_id, seq, data, written_at)
            VALUES (${randomUUID()}, 0, ${new Uint8Array([1, 2, 3])}, now() - interval '2 hours')`.pipe(Effect.asVoid)
      )
    )
  },
  {
    kind: "s3",
    layer: Layer.scoped(
      BlobStore,
      Effect.flatMap(localS3, (settings) =>
        s3BlobStore({
          endpoint: Option.some(settings.S3_ENDPOINT),
          bucket: settings.S3_BUCKET,
          region: settings.S3_REGION,
          prefix: "contract/",
          forcePathStyle: true
        })
      )
    ),
    // Multipart uploads are aborted on failure; nothing else to count from outside.
    leftovers: Effect.succeed(0),
    abandon: Option.none()
  }
]

const organization = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`INSERT INTO organizations (id, public_id, name, search_name) VALUES (1, 'one', 'One', 'one') ON CONFLICT DO NOTHING`.pipe(
    Effect.asVoid
  )
)

for (const store of stores) {
  const TestLayer = PendingAttachments.DefaultWithoutDependencies.pipe(
    Layer.provideMerge(store.layer),
    Layer.provideMerge(TestDatabaseLive)
  )

  /** Nothing of a failed write to `key` is kept: the key is not found, and the store holds no leftovers. */
  const keptNothing = (key: string) =>
    Effect.gen(function* () {
      expect((yield* Effect.flatMap(BlobStore, (blobs) => blobs.get(key)).pipe(Effect.flip))._tag).toBe("BlobNotFound")
      expect(yield* store.leftovers).toBe(0)
    })

  layer(TestLayer, { timeout: "120 seconds", excludeTestServices: true })(
    `blob store contract: ${store.kind}`,
    (it) => {
      it.effect("a streamed write reads back whole, with its size and first bytes", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          expect(blobs.kind).toBe(store.kind)
          // Past two chunks of the postgres store and one part of an S3 multipart upload.
          const bytes = randomBytes(9 * MiB + 12345)
          const key = randomUUID()
          const stored = yield* blobs.put(key, streamOf(bytes), { maxBytes: 50 * MiB })
          expect(stored.size).toBe(bytes.length)
          expect(Buffer.from(stored.head).equals(bytes.subarray(0, HEAD_LENGTH))).toBe(true)
          expect(yield* blobs.size(key)).toBe(bytes.length)
          expect((yield* collect(yield* blobs.get(key))).equals(bytes)).toBe(true)
        })
      )

      it.effect("an empty blob and a one-byte blob are blobs", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          const empty = randomUUID()
          expect((yield* blobs.put(empty, Stream.empty, { maxBytes: 10 })).size).toBe(0)
          expect((yield* collect(yield* blobs.get(empty))).length).toBe(0)
          const one = randomUUID()
          yield* blobs.put(one, Stream.make(new Uint8Array([42])), { maxBytes: 1 })
          expect([...(yield* collect(yield* blobs.get(one)))]).toEqual([42])
        })
      )

      it.effect("the limit holds at its edge: exactly maxBytes is stored, one byte more is refused", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          const limit = 2 * MiB + 1
          const atLimit = randomBytes(limit)
          const key = randomUUID()
          expect((yield* blobs.put(key, streamOf(atLimit), { maxBytes: limit })).size).toBe(limit)
          const over = randomUUID()
          const refused = yield* blobs
            .put(over, streamOf(randomBytes(limit + 1)), { maxBytes: limit })
            .pipe(Effect.flip)
          expect(refused).toMatchObject({ _tag: "BlobTooLarge", limitBytes: limit })
          yield* keptNothing(over)
        })
      )

      it.effect("the limit is enforced while streaming: an endless upload stops right after it", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          const { pulled, stream } = endless()
          const key = randomUUID()
          const refused = yield* blobs.put(key, stream, { maxBytes: 3 * MiB }).pipe(Effect.flip)
          expect(refused._tag).toBe("BlobTooLarge")
          // 48 pieces make the limit; the next one passes it. A store may have pulled a little ahead, no more.
          expect(pulled.pieces).toBeGreaterThanOrEqual(49)
          expect(pulled.pieces).toBeLessThanOrEqual(49 + 16)
          yield* keptNothing(key)
        })
      )

      it.effect("a content stream that fails fails the write with its own error, and nothing is kept", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          const key = randomUUID()
          const failing = Stream.concat(streamOf(randomBytes(MiB + 5)), Stream.fail("connection lost" as const))
          const failed = yield* blobs.put(key, failing, { maxBytes: 50 * MiB }).pipe(Effect.flip)
          expect(failed).toBe("connection lost")
          yield* keptNothing(key)
        })
      )

      it.effect("an interrupted write keeps nothing", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          const key = randomUUID()
          const { pulled, stream } = endless()
          const fiber = yield* Effect.fork(blobs.put(key, stream, { maxBytes: 50 * MiB }))
          while (pulled.pieces < 40) yield* Effect.sleep("10 millis")
          expect(Exit.isInterrupted(yield* Fiber.interrupt(fiber))).toBe(true)
          yield* keptNothing(key)
        })
      )

      it.effect("ranges read exactly their bytes, across chunk boundaries, clipped at the end", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          const bytes = randomBytes(3 * MiB + 100)
          const key = randomUUID()
          yield* blobs.put(key, streamOf(bytes), { maxBytes: 50 * MiB })
          const cases: ReadonlyArray<readonly [number, number | undefined]> = [
            [0, 10],
            [CHUNK_BYTES - 5, 10],
            [CHUNK_BYTES, CHUNK_BYTES],
            [5, 2 * CHUNK_BYTES + 7],
            [3 * MiB + 90, 1000],
            [2 * MiB + 3, undefined],
            [bytes.length - 1, 1],
            [bytes.length, 10],
            [bytes.length + 5, undefined],
            [7, 0]
          ]
          for (const [offset, length] of cases) {
            const read = yield* collect(yield* blobs.get(key, length === undefined ? { offset } : { offset, length }))
            const expected = bytes.subarray(offset, length === undefined ? undefined : offset + length)
            expect(read.equals(expected), `offset ${offset} length ${length}`).toBe(true)
          }
        })
      )

      it.effect("writing a key again replaces the blob; removing it is final and may be repeated", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          const key = randomUUID()
          yield* blobs.put(key, Stream.make(new TextEncoder().encode("first version, longer")), { maxBytes: 100 })
          yield* blobs.put(key, Stream.make(new TextEncoder().encode("second")), { maxBytes: 100 })
          expect((yield* collect(yield* blobs.get(key))).toString()).toBe("second")
          expect(yield* blobs.size(key)).toBe(6)
          yield* blobs.remove(key)
          expect((yield* blobs.get(key).pipe(Effect.flip))._tag).toBe("BlobNotFound")
          expect((yield* blobs.size(key).pipe(Effect.flip))._tag).toBe("BlobNotFound")
          yield* blobs.remove(key)
          expect(yield* store.leftovers).toBe(0)
        })
      )

      it.effect("a key the service would not make is refused before it reaches the store", () =>
        Effect.gen(function* () {
          const blobs = yield* BlobStore
          for (const key of ["../etc/passwd", "a/b", "", "x"]) {
            const exit = yield* Effect.exit(blobs.put(key, Stream.make(new Uint8Array([1])), { maxBytes: 10 }))
            expect(Exit.isFailure(exit) && !Exit.isInterrupted(exit), key).toBe(true)
          }
        })
      )

      it.effect("the reaper deletes expired unclaimed uploads and their blobs, and sweeps abandoned writes", () =>
        Effect.gen(function* () {
          yield* organization
          const sql = yield* SqlClient.SqlClient
          const blobs = yield* BlobStore
          const attachments = yield* PendingAttachments
          const upload = () =>
            attachments.upload({
              organizationId: OrganizationId.make("1"),
              caller: alice,
              fileName: "notes.txt",
              contentType: "text/plain",
              content: streamOf(randomBytes(CHUNK_BYTES + 1))
            })
          const stale = yield* upload()
          const fresh = yield* upload()
          yield* sql`UPDATE attachments SET expires_at = now() - interval '1 minute' WHERE id = ${stale.id}`
          while ((yield* attachments.reapExpired(100)) > 0) {}
          expect((yield* blobs.size(stale.id).pipe(Effect.flip))._tag).toBe("BlobNotFound")
          expect(yield* blobs.size(fresh.id)).toBe(CHUNK_BYTES + 1)
          if (Option.isSome(store.abandon)) {
            yield* store.abandon.value
            expect(yield* store.leftovers).toBe(1)
            expect(yield* attachments.sweepAbandonedWrites).toBe(1)
            expect(yield* store.leftovers).toBe(0)
          }
          expect(yield* attachments.sweepAbandonedWrites).toBe(0)
          expect(yield* blobs.size(fresh.id)).toBe(CHUNK_BYTES + 1)
        })
      )
    }
  )
}

describe("BLOB_STORE", () => {
  const kindWith = (env: Record<string, string>) =>
    Effect.runSync(
      Effect.either(Effect.withConfigProvider(blobStoreKind, ConfigProvider.fromMap(new Map(Object.entries(env)))))
    )

  it("defaults to file without DATABASE_URL and to postgres with it; BLOB_STORE overrides both", () => {
    expect(kindWith({})).toEqual(Either.right("file"))
    expect(kindWith({ DATABASE_URL: " " })).toEqual(Either.right("file"))
    expect(kindWith({ DATABASE_URL: "postgres://db/helpdesk" })).toEqual(Either.right("postgres"))
    expect(kindWith({ DATABASE_URL: "postgres://db/helpdesk", BLOB_STORE: "file" })).toEqual(Either.right("file"))
    expect(kindWith({ BLOB_STORE: "s3" })).toEqual(Either.right("s3"))
    expect(kindWith({ BLOB_STORE: "postgres" })).toEqual(Either.right("postgres"))
  })

  it("refuses a store it does not know, naming the variable", () => {
    const refused = kindWith({ BLOB_STORE: "disk" })
    expect(Either.isLeft(refused)).toBe(true)
    expect(String(Either.getLeft(refused).pipe(Option.getOrThrow))).toContain("BLOB_STORE")
  })
})
