import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Config, Context, Effect, Layer, Schema, Stream } from "effect"

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

/** Where uploaded files live. Keys are opaque ids chosen by the service, never user-supplied names. */
export class BlobStore extends Context.Tag("@helpdesk/http/Attachments/BlobStore")<
  BlobStore,
  {
    /** Streams `content` into the store, failing with {@link BlobTooLarge} as soon as it passes `maxBytes`. */
    readonly put: <E>(
      key: string,
      content: Stream.Stream<Uint8Array, E>,
      options: { readonly maxBytes: number }
    ) => Effect.Effect<StoredBlob, BlobTooLarge | E>
    readonly get: (key: string) => Effect.Effect<Stream.Stream<Uint8Array>, BlobNotFound>
    /** Removes a blob; removing one that is not there is not an error. */
    readonly remove: (key: string) => Effect.Effect<void>
  }
>() {}

const SAFE_KEY = /^[a-zA-Z0-9][a-zA-Z0-9_-]{2,127}$/

/** A {@link BlobStore} of files under `root`, written to a temporary name and renamed when complete. */
export const fileBlobStore = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const pathOf = (key: string) => {
      if (!SAFE_KEY.test(key)) throw new Error(`unsafe blob key ${JSON.stringify(key)}`)
      return path.join(root, key.slice(0, 2), key)
    }
    return BlobStore.of({
      put: (key, content, { maxBytes }) =>
        Effect.gen(function* () {
          const target = pathOf(key)
          const partial = `${target}.partial-${randomBytes(6).toString("hex")}`
          yield* fs.makeDirectory(path.dirname(target), { recursive: true }).pipe(Effect.orDie)
          let size = 0
          const head = new Uint8Array(HEAD_LENGTH)
          let headLength = 0
          const counted = content.pipe(
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
          yield* Stream.run(counted, fs.sink(partial)).pipe(
            Effect.catchTag("SystemError", "BadArgument", (error) => Effect.die(error)),
            Effect.tapError(() => fs.remove(partial, { force: true }).pipe(Effect.ignore)),
            Effect.onInterrupt(() => fs.remove(partial, { force: true }).pipe(Effect.ignore))
          )
          yield* fs.rename(partial, target).pipe(Effect.orDie)
          return { size, head: head.slice(0, headLength) }
        }),
      get: (key) =>
        Effect.gen(function* () {
          const file = pathOf(key)
          if (!(yield* fs.exists(file).pipe(Effect.orDie))) return yield* new BlobNotFound({ key })
          return fs.stream(file).pipe(Stream.orDie)
        }),
      remove: (key) => fs.remove(pathOf(key), { force: true }).pipe(Effect.orDie)
    })
  })

/** The file-system {@link BlobStore} under `root`. */
export const fileBlobStoreLayer = (root: string) => Layer.effect(BlobStore, fileBlobStore(root))

/** The {@link BlobStore} of the service: files under `DATA_DIR/blobs` (default `.data/blobs`). */
export const BlobStoreLive = Layer.unwrapEffect(
  Effect.map(Config.string("DATA_DIR").pipe(Config.withDefault(".data")), (dataDir) =>
    fileBlobStoreLayer(path.resolve(dataDir, "blobs"))
  )
).pipe(Layer.provide(NodeFileSystem.layer))
