import type { IncomingMessage } from "node:http"
import type { Readable } from "node:stream"
import { NodeStream } from "@effect/platform-node"
import busboy from "busboy"
import { Data, Deferred, Effect, Exit, Stream } from "effect"

/** The multipart body could not be read: malformed, truncated, or the connection dropped. */
export class MalformedMultipart extends Data.TaggedError("MalformedMultipart")<{ readonly reason: string }> {}

/** The file part of an upload, its bytes still on the wire. */
export interface IncomingFile {
  readonly fileName: string
  readonly contentType: string
  /** The file's bytes; it fails unless the whole multipart body after them also parses. */
  readonly content: Stream.Stream<Uint8Array, MalformedMultipart>
}

/**
 * Finds the file part named `field` in a multipart request and hands it over as a stream, without buffering:
 * the caller stores it while it arrives. Other parts are read past. `null` when the body has no such file.
 * The stream ends only when the whole body has parsed, so a truncated body fails instead of storing a stub.
 */
export const incomingFile = (
  request: IncomingMessage,
  field: string
): Effect.Effect<IncomingFile | null, MalformedMultipart> =>
  Effect.gen(function* () {
    const finished = yield* Deferred.make<void, MalformedMultipart>()
    return yield* Effect.async<IncomingFile | null, MalformedMultipart>((resume) => {
      let parser: busboy.Busboy
      try {
        parser = busboy({ headers: request.headers, defParamCharset: "utf8", limits: { files: 1, fields: 100 } })
      } catch (error) {
        resume(Effect.fail(new MalformedMultipart({ reason: (error as Error).message })))
        return
      }
      let settled = false
      const settle = (outcome: Effect.Effect<IncomingFile | null, MalformedMultipart>) => {
        if (settled) return
        settled = true
        resume(outcome)
      }
      const fail = (error: Error) => {
        const failure = new MalformedMultipart({ reason: error.message })
        Deferred.unsafeDone(finished, Exit.fail(failure))
        settle(Effect.fail(failure))
      }
      parser.on("file", (name: string, file: Readable, info: busboy.FileInfo) => {
        if (name !== field || settled) {
          file.resume()
          return
        }
        file.on("error", fail)
        const bytes = NodeStream.fromReadable<MalformedMultipart, Uint8Array>(
          () => file,
          (error) => new MalformedMultipart({ reason: (error as Error).message })
        )
        settle(
          Effect.succeed({
            fileName: info.filename ?? "",
            contentType: info.mimeType,
            content: Stream.concat(bytes, Stream.drain(Stream.fromEffect(Deferred.await(finished))))
          })
        )
      })
      parser.on("error", fail)
      parser.on("close", () => {
        Deferred.unsafeDone(finished, Exit.void)
        settle(Effect.succeed(null))
      })
      request.on("aborted", () => fail(new Error("the connection closed before the body ended")))
      request.pipe(parser)
      return Effect.sync(() => {
        request.unpipe(parser)
      })
    })
  })
