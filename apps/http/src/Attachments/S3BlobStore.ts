import type { Readable } from "node:stream"
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3"
import { Upload } from "@aws-sdk/lib-storage"
import { NodeStream } from "@effect/platform-node"
import { Config, Effect, Option, Stream } from "effect"
import { BlobNotFound, BlobStore, type BlobTooLarge, checkedKey, measuring, rangedGet } from "./BlobStore.js"

/** Where the `s3` store keeps blobs. Credentials come from the SDK's usual chain (`AWS_ACCESS_KEY_ID`, …). */
export interface S3BlobStoreOptions {
  /** An S3-compatible service's URL; none for AWS itself. */
  readonly endpoint: Option.Option<string>
  readonly bucket: string
  readonly region: string
  /** Prepended to every key, so one bucket can serve several deployments. */
  readonly prefix: string
  /** `bucket` in the path rather than the host name (what most S3-compatible services need). */
  readonly forcePathStyle: boolean
}

/**
 * `S3_ENDPOINT` (optional), `S3_BUCKET`, `S3_REGION` (default `us-east-1`), `S3_PREFIX` (default none) and
 * `S3_FORCE_PATH_STYLE` (default: true when `S3_ENDPOINT` is set).
 */
export const s3BlobStoreOptions: Config.Config<S3BlobStoreOptions> = Config.all({
  endpoint: Config.option(Config.string("S3_ENDPOINT")).pipe(
    Config.map(Option.filter((endpoint) => endpoint.trim() !== ""))
  ),
  bucket: Config.nonEmptyString("S3_BUCKET"),
  region: Config.string("S3_REGION").pipe(Config.withDefault("us-east-1")),
  prefix: Config.string("S3_PREFIX").pipe(Config.withDefault("")),
  forcePathStyle: Config.option(Config.boolean("S3_FORCE_PATH_STYLE"))
}).pipe(
  Config.map(({ forcePathStyle, ...options }) => ({
    ...options,
    forcePathStyle: Option.getOrElse(forcePathStyle, () => Option.isSome(options.endpoint))
  }))
)

/** Parts of a multipart upload: S3's minimum is 5 MiB; two in flight at a time bound the memory of a write. */
const PART_BYTES = 8 * 1024 * 1024
const PARTS_IN_FLIGHT = 2

const isMissing = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } }
  return e.name === "NoSuchKey" || e.name === "NotFound" || e.$metadata?.httpStatusCode === 404
}

/**
 * A {@link BlobStore} in an S3 bucket through the official SDK: writes stream into a multipart upload (one
 * `PutObject` below a part's size), aborted when the content fails or passes its limit; reads stream the object's
 * body, ranges as HTTP ranges. The client is closed with the scope.
 */
export const s3BlobStore = (options: S3BlobStoreOptions) =>
  Effect.gen(function* () {
    const client = yield* Effect.acquireRelease(
      Effect.sync(
        () =>
          new S3Client({
            region: options.region,
            forcePathStyle: options.forcePathStyle,
            // Checksums only where S3 requires them: several S3-compatible services reject the newer headers.
            requestChecksumCalculation: "WHEN_REQUIRED",
            responseChecksumValidation: "WHEN_REQUIRED",
            ...(Option.isSome(options.endpoint) ? { endpoint: options.endpoint.value } : {})
          })
      ),
      (client) => Effect.sync(() => client.destroy())
    )
    const Bucket = options.bucket
    const keyOf = (key: string) => `${options.prefix}${checkedKey(key)}`

    const sizeOf = (key: string) =>
      Effect.tryPromise({
        try: (signal) => client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }), { abortSignal: signal }),
        catch: (error) => error
      }).pipe(
        Effect.map((head) => head.ContentLength ?? 0),
        Effect.catchAll((error) => (isMissing(error) ? Effect.fail(new BlobNotFound({ key })) : Effect.die(error)))
      )

    return BlobStore.of({
      kind: "s3",
      put: <E>(key: string, content: Stream.Stream<Uint8Array, E>, { maxBytes }: { readonly maxBytes: number }) =>
        Effect.gen(function* () {
          const Key = keyOf(key)
          const counted = measuring(content, maxBytes)
          // The content's own failure (or the limit), kept to be returned as it is rather than as the SDK's error.
          let failure: Option.Option<unknown> = Option.none()
          const body = yield* NodeStream.toReadable(
            counted.stream.pipe(
              Stream.tapError((error) =>
                Effect.sync(() => {
                  failure = Option.some(error)
                })
              )
            )
          )
          const upload = new Upload({
            client,
            params: { Bucket, Key, Body: body as Readable },
            partSize: PART_BYTES,
            queueSize: PARTS_IN_FLIGHT,
            leavePartsOnError: false
          })
          yield* Effect.async<void, unknown>((resume) => {
            upload.done().then(
              () => resume(Effect.void),
              (error) => resume(Effect.fail(error))
            )
            return Effect.promise(() => upload.abort().catch(() => undefined))
          }).pipe(
            Effect.catchAll((error) =>
              Option.isSome(failure) ? Effect.fail(failure.value as E | BlobTooLarge) : Effect.die(error)
            )
          )
          return counted.measured()
        }),
      get: rangedGet(sizeOf, (key, { start, end, size }) =>
        Effect.gen(function* () {
          const whole = start === 0 && end === size
          const object = yield* Effect.tryPromise({
            try: () =>
              client.send(
                new GetObjectCommand({
                  Bucket,
                  Key: keyOf(key),
                  ...(whole ? {} : { Range: `bytes=${start}-${end - 1}` })
                })
              ),
            catch: (error) => error
          }).pipe(
            Effect.catchAll((error) => (isMissing(error) ? Effect.fail(new BlobNotFound({ key })) : Effect.die(error)))
          )
          const readable = object.Body as Readable
          return NodeStream.fromReadable<never, Uint8Array>(
            () => readable,
            (error) => error as never
          ).pipe(Stream.orDie)
        })
      ),
      size: sizeOf,
      remove: (key) =>
        Effect.tryPromise(() => client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }))).pipe(
          Effect.orDie,
          Effect.asVoid
        ),
      // Failed uploads are aborted as they fail; parts of a process killed mid-upload need the bucket's
      // lifecycle rule (AbortIncompleteMultipartUpload, docs/operations.md).
      sweepAbandoned: () => Effect.succeed(0)
    })
  })
