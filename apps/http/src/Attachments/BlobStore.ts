import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { Config, type ConfigError, Context, Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import { postgresBlobStore } from "./PostgresBlobStore.js"
import { s3BlobStore, s3BlobStoreOptions } from "./S3BlobStore.js"

/** The content went past the size limit while it was being stored; nothing was kept. */
export class BlobTooLarge extends Schema.TaggedError<BlobTooLarge>()("BlobTooLarge", {
  limitBytes: Schema.Number
}) {}

/** No blob is stored under that key. */
export class BlobNotFound extends Schema.TaggedError<BlobNotFound>()("BlobNotFound", {
  key: Schema.String
}) {}

/** What storing a blob measured: its size and its first bytes (for content sniffing). */
export interface StoredBlob {
  readonly size: number
  readonly head: Uint8Array
}

/** How many leading bytes {@link StoredBlob.head} keeps. */
export const HEAD_LENGTH = 1024

/** Part of a blob: `length` bytes from `offset` (to its end without `length`); past the end reads nothing. */
export interface ByteRange {
  readonly offset: number
  readonly length?: number
}

/** Where uploaded files live. Keys are opaque ids chosen by the service, never user-supplied names. */
export class BlobStore extends Context.Tag("@helpdesk/http/Attachments/BlobStore")<
  BlobStore,
  {
    /** `file`, `postgres` or `s3` (logs, the CLI). */
    readonly kind: BlobStoreKind
    /**
     * Streams `content` into the store, failing with {@link BlobTooLarge} as soon as it passes `maxBytes`. A blob
     * becomes readable only once complete; storing under a key that exists replaces it.
     */
    readonly put: <E>(
      key: string,
      content: Stream.Stream<Uint8Array, E>,
      options: { readonly maxBytes: number }
    ) => Effect.Effect<StoredBlob, BlobTooLarge | E>
    /** The blob's bytes, or those of `range`, streamed as they are read. */
    readonly get: (key: string, range?: ByteRange) => Effect.Effect<Stream.Stream<Uint8Array>, BlobNotFound>
    /** The blob's size in bytes. */
    readonly size: (key: string) => Effect.Effect<number, BlobNotFound>
    /** Removes a blob; removing one that is not there is not an error. */
    readonly remove: (key: string) => Effect.Effect<void>
    /** Removes what writes of stopped processes left behind, untouched for `olderThan`; how many were removed. */
    readonly sweepAbandoned: (olderThan: Duration.Duration) => Effect.Effect<number>
  }
>() {}

/** The kinds of {@link BlobStore}, as `BLOB_STORE` names them. */
export const BLOB_STORE_KINDS = ["file", "postgres", "s3"] as const

/** One of {@link BLOB_STORE_KINDS}. */
export type BlobStoreKind = (typeof BLOB_STORE_KINDS)[number]

/**
 * Counts `content` as it passes, keeping its first {@link HEAD_LENGTH} bytes, and fails with {@link BlobTooLarge}
 * on the chunk that passes `maxBytes`. `measured()` reads the figures once the stream has run.
 */
export const measuring = <E>(content: Stream.Stream<Uint8Array, E>, maxBytes: number) => {
  let size = 0
  const head = new Uint8Array(HEAD_LENGTH)
  let headLength = 0
  const stream = content.pipe(
    Stream.mapEffect((chunk) => {
      if (headLength < HEAD_LENGTH) {
        const take = chunk.subarray(0, HEAD_LENGTH - headLength)
        head.set(take, headLength)
        headLength += take.length
      }
      size += chunk.length
      return size > maxBytes ? Effect.fail(new BlobTooLarge({ limitBytes: maxBytes })) : Effect.succeed(chunk)
    })
  )
  return { stream, measured: (): StoredBlob => ({ size, head: head.slice(0, headLength) }) }
}

/** The `[start, end)` byte positions of `range` in a blob of `size` bytes. */
export const rangeBounds = (size: number, range: ByteRange | undefined) => {
  const start = Math.min(size, Math.max(0, range?.offset ?? 0))
  const end = range?.length === undefined ? size : Math.min(size, start + Math.max(0, range.length))
  return { start, end }
}

/**
 * A store's `get` over its `sizeOf` and `read`: the blob's size first (a missing blob fails there), then `read` of
 * the `[start, end)` bytes `range` names in it; an empty range reads nothing.
 */
export const rangedGet =
  (
    sizeOf: (key: string) => Effect.Effect<number, BlobNotFound>,
    read: (
      key: string,
      bounds: { readonly start: number; readonly end: number; readonly size: number }
    ) => Effect.Effect<Stream.Stream<Uint8Array>, BlobNotFound>
  ) =>
  (key: string, range?: ByteRange): Effect.Effect<Stream.Stream<Uint8Array>, BlobNotFound> =>
    Effect.gen(function* () {
      const size = yield* sizeOf(key)
      const { start, end } = rangeBounds(size, range)
      if (start >= end) return Stream.empty
      return yield* read(key, { start, end, size })
    })

const SAFE_KEY = /^[a-zA-Z0-9][a-zA-Z0-9_-]{2,127}$/

/** Throws on a key that is not one the service makes (so no key ever names a path or object of its choosing). */
export const checkedKey = (key: string): string => {
  if (!SAFE_KEY.test(key)) throw new Error(`unsafe blob key ${JSON.stringify(key)}`)
  return key
}

const PARTIAL = ".partial-"

/** A {@link BlobStore} of files under `root`, written to a temporary name and renamed when complete. */
export const fileBlobStore = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const pathOf = (key: string) => path.join(root, checkedKey(key).slice(0, 2), key)
    const sizeOf = (key: string) =>
      fs.stat(pathOf(key)).pipe(
        Effect.map((info) => Number(info.size)),
        Effect.catchTag("SystemError", (error) =>
          error.reason === "NotFound" ? Effect.fail(new BlobNotFound({ key })) : Effect.die(error)
        ),
        Effect.catchTag("BadArgument", Effect.die)
      )
    return BlobStore.of({
      kind: "file",
      put: (key, content, { maxBytes }) =>
        Effect.gen(function* () {
          const target = pathOf(key)
          const partial = `${target}${PARTIAL}${randomBytes(6).toString("hex")}`
          yield* fs.makeDirectory(path.dirname(target), { recursive: true }).pipe(Effect.orDie)
          const counted = measuring(content, maxBytes)
          yield* Stream.run(counted.stream, fs.sink(partial)).pipe(
            Effect.catchTag("SystemError", "BadArgument", (error) => Effect.die(error)),
            Effect.tapError(() => fs.remove(partial, { force: true }).pipe(Effect.ignore)),
            Effect.onInterrupt(() => fs.remove(partial, { force: true }).pipe(Effect.ignore))
          )
          yield* fs.rename(partial, target).pipe(Effect.orDie)
          return counted.measured()
        }),
      get: rangedGet(sizeOf, (key, { start, end }) =>
        Effect.succeed(fs.stream(pathOf(key), { offset: start, bytesToRead: end - start }).pipe(Stream.orDie))
      ),
      size: sizeOf,
      remove: (key) => fs.remove(pathOf(key), { force: true }).pipe(Effect.orDie),
      sweepAbandoned: (olderThan) =>
        Effect.gen(function* () {
          if (!(yield* fs.exists(root))) return 0
          const cutoff = Date.now() - Duration.toMillis(olderThan)
          let removed = 0
          for (const directory of yield* fs.readDirectory(root)) {
            const folder = path.join(root, directory)
            if ((yield* fs.stat(folder)).type !== "Directory") continue
            for (const name of yield* fs.readDirectory(folder)) {
              if (!name.includes(PARTIAL)) continue
              const file = path.join(folder, name)
              const modified = Option.getOrElse((yield* fs.stat(file)).mtime, () => new Date(0))
              if (modified.getTime() < cutoff) {
                yield* fs.remove(file, { force: true })
                removed += 1
              }
            }
          }
          return removed
        }).pipe(Effect.orDie)
    })
  })

/** The file-system {@link BlobStore} under `root`. */
export const fileBlobStoreLayer = (root: string) =>
  Layer.effect(BlobStore, fileBlobStore(root)).pipe(Layer.provide(NodeFileSystem.layer))

/** `BLOB_STORE`, by default `postgres` when `DATABASE_URL` is set and `file` otherwise. */
export const blobStoreKind: Config.Config<BlobStoreKind> = Config.all([
  Config.option(Config.literal(...BLOB_STORE_KINDS)("BLOB_STORE")),
  Config.string("DATABASE_URL").pipe(Config.withDefault(""))
]).pipe(
  Config.map(([chosen, databaseUrl]) =>
    Option.getOrElse(chosen, (): BlobStoreKind => (databaseUrl.trim() === "" ? "file" : "postgres"))
  )
)

/**
 * The {@link BlobStore} of this `kind` as configured: `file` under `DATA_DIR/blobs` (default `.data/blobs`),
 * `postgres` in the service's database (needs the `SqlClient`), `s3` in `S3_BUCKET` (see {@link s3BlobStoreOptions}).
 */
export const blobStoreLayer = (
  kind: BlobStoreKind
): Layer.Layer<BlobStore, ConfigError.ConfigError, SqlClient.SqlClient> => {
  switch (kind) {
    case "file":
      return Layer.unwrapEffect(
        Effect.map(Config.string("DATA_DIR").pipe(Config.withDefault(".data")), (dataDir) =>
          fileBlobStoreLayer(path.resolve(dataDir, "blobs"))
        )
      )
    case "postgres":
      return Layer.effect(BlobStore, postgresBlobStore)
    case "s3":
      return Layer.scoped(BlobStore, Effect.flatMap(s3BlobStoreOptions, s3BlobStore))
  }
}

/** The {@link BlobStore} of the service, of the kind {@link blobStoreKind} chooses. Needs the `SqlClient`. */
export const BlobStoreLive = Layer.unwrapEffect(Effect.map(blobStoreKind, blobStoreLayer)).pipe(Layer.orDie)
