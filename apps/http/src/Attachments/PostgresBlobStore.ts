import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Stream } from "effect"
import { BlobNotFound, BlobStore, checkedKey, measuring, rangeBounds } from "./BlobStore.js"
import { makeUploadCollector } from "./UploadMemory.js"

/** The size of the rows a blob is cut into (the last one may be shorter). */
export const CHUNK_BYTES = 1024 * 1024

/**
 * Cuts a stream into chunks of exactly `size` bytes (the last shorter), handing each to `write` before reading
 * on: one chunk in memory at a time.
 */
const inChunksOf = <E, E2>(
  content: Stream.Stream<Uint8Array, E>,
  size: number,
  write: (chunk: Uint8Array) => Effect.Effect<void, E2>
): Effect.Effect<void, E | E2> =>
  Effect.gen(function* () {
    let buffer = new Uint8Array(size)
    let filled = 0
    yield* Stream.runForEach(content, (bytes) =>
      Effect.gen(function* () {
        let from = 0
        while (from < bytes.length) {
          const take = Math.min(size - filled, bytes.length - from)
          buffer.set(bytes.subarray(from, from + take), filled)
          filled += take
          from += take
          if (filled === size) {
            yield* write(buffer)
            buffer = new Uint8Array(size)
            filled = 0
          }
        }
      })
    )
    if (filled > 0) yield* write(buffer.subarray(0, filled))
  })

/**
 * A {@link BlobStore} in the service's own database (docs/decisions/0701-blob-stores.md): a blob is rows of
 * {@link CHUNK_BYTES} in `hd_blob_chunks` under an id of its write, and becomes visible when its `hd_blobs` row
 * names that write. Writes and reads go a chunk at a time, so memory stays flat whatever the size.
 */
export const postgresBlobStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The migrator runs only migrations numbered past the last applied one: say so rather than fail at each upload.
  const [tables] = yield* sql<{ present: boolean }>`SELECT to_regclass('hd_blobs') IS NOT NULL AS present`.pipe(
    Effect.orDie
  )
  if (tables?.present !== true)
    return yield* Effect.dieMessage(
      "The postgres blob store's tables (migration 0095_blob_stores) are missing: this database was migrated past 0095 before that migration existed. Apply apps/http/src/Database/migrations/0095_blob_stores.ts by hand, or set BLOB_STORE=file."
    )

  const dropWrite = (writeId: string) =>
    sql`DELETE FROM hd_blob_chunks WHERE write_id = ${writeId}`.pipe(Effect.orDie, Effect.asVoid)

  const find = (key: string) =>
    Effect.flatMap(
      sql<{ writeId: string; size: string; chunkBytes: number }>`
        SELECT write_id, size, chunk_bytes FROM hd_blobs WHERE key = ${checkedKey(key)}`.pipe(Effect.orDie),
      (rows) =>
        rows[0] === undefined
          ? Effect.fail(new BlobNotFound({ key }))
          : Effect.succeed({ writeId: rows[0].writeId, size: Number(rows[0].size), chunkBytes: rows[0].chunkBytes })
    )

  return BlobStore.of({
    kind: "postgres",
    put: (key, content, { maxBytes }) =>
      Effect.gen(function* () {
        checkedKey(key)
        const writeId = randomUUID()
        const counted = measuring(content, maxBytes)
        let seq = 0
        // Each insert leaves its chunk and the driver's copies of it (its message buffer grows by doubling) to the
        // collector: counted three times, so they are collected before they pile up.
        const collect = makeUploadCollector()
        yield* inChunksOf(counted.stream, CHUNK_BYTES, (chunk) =>
          sql`INSERT INTO hd_blob_chunks (write_id, seq, data) VALUES (${writeId}, ${seq++}, ${chunk})`.pipe(
            Effect.orDie,
            Effect.tap(() => {
              for (let i = 0; i < 3; i++) collect(chunk)
            })
          )
        ).pipe(
          Effect.tapError(() => dropWrite(writeId)),
          Effect.onInterrupt(() => dropWrite(writeId))
        )
        const stored = counted.measured()
        // The blob appears whole in one commit; the write it replaces (if any) goes with it.
        yield* sql
          .withTransaction(
            Effect.gen(function* () {
              // A write stalled past the sweep's age may have lost its chunks: refuse to publish a hole.
              const [written] = yield* sql<{ chunks: number }>`
                SELECT count(*)::int AS chunks FROM hd_blob_chunks WHERE write_id = ${writeId}`
              if (written?.chunks !== seq)
                return yield* Effect.dieMessage(`blob ${key} lost chunks while being written`)
              const previous = yield* sql<{ writeId: string }>`
                SELECT write_id FROM hd_blobs WHERE key = ${key} FOR UPDATE`
              yield* sql`
                INSERT INTO hd_blobs (key, write_id, size, chunk_bytes) VALUES (${key}, ${writeId}, ${stored.size}, ${CHUNK_BYTES})
                ON CONFLICT (key) DO UPDATE SET write_id = EXCLUDED.write_id, size = EXCLUDED.size,
                  chunk_bytes = EXCLUDED.chunk_bytes, created_at = now()`
              if (previous[0] !== undefined)
                yield* sql`DELETE FROM hd_blob_chunks WHERE write_id = ${previous[0].writeId}`
            })
          )
          .pipe(
            Effect.orDie,
            Effect.tapDefect(() => dropWrite(writeId))
          )
        return stored
      }),
    get: (key, range) =>
      Effect.gen(function* () {
        const blob = yield* find(key)
        const { start, end } = rangeBounds(blob.size, range)
        if (start >= end) return Stream.empty
        const first = Math.floor(start / blob.chunkBytes)
        const last = Math.floor((end - 1) / blob.chunkBytes)
        // Each chunk is one query; `substring` of an uncompressed external value reads only the bytes asked for.
        const chunk = (seq: number) => {
          const from = Math.max(start, seq * blob.chunkBytes)
          const to = Math.min(end, (seq + 1) * blob.chunkBytes)
          return sql<{ data: Uint8Array }>`
            SELECT substring(data FROM ${from - seq * blob.chunkBytes + 1} FOR ${to - from}) AS data
            FROM hd_blob_chunks WHERE write_id = ${blob.writeId} AND seq = ${seq}`.pipe(
            Effect.orDie,
            Effect.flatMap((rows) =>
              rows[0] === undefined
                ? Effect.dieMessage(`blob ${key} was removed while it was being read`)
                : Effect.succeed(rows[0].data)
            )
          )
        }
        // The driver reads a chunk as hex text (twice its size) before decoding it: that garbage counts too.
        const collect = makeUploadCollector()
        const allocated = (data: Uint8Array) => {
          for (let i = 0; i < 3; i++) collect(data)
          return data
        }
        // One chunk read ahead while the previous one is being sent.
        return Stream.range(first, last).pipe(Stream.mapEffect(chunk, { concurrency: 2 }), Stream.map(allocated))
      }),
    size: (key) => Effect.map(find(key), (blob) => blob.size),
    remove: (key) =>
      sql`
        WITH gone AS (DELETE FROM hd_blobs WHERE key = ${checkedKey(key)} RETURNING write_id)
        DELETE FROM hd_blob_chunks WHERE write_id IN (SELECT write_id FROM gone)`.pipe(Effect.orDie, Effect.asVoid),
    sweepAbandoned: (olderThan) =>
      sql<{ writeId: string }>`
        WITH abandoned AS (
          SELECT c.write_id FROM hd_blob_chunks c
          WHERE NOT EXISTS (SELECT 1 FROM hd_blobs b WHERE b.write_id = c.write_id)
          GROUP BY c.write_id
          HAVING max(c.written_at) < now() - ${Duration.toMillis(olderThan)} * interval '1 millisecond')
        DELETE FROM hd_blob_chunks WHERE write_id IN (SELECT write_id FROM abandoned) RETURNING write_id`.pipe(
        Effect.map((rows) => new Set(rows.map((row) => row.writeId)).size),
        Effect.orDie
      )
  })
})
