import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

// V8 frees the buffers of a streamed upload only when its external-memory trigger (~64 MB) fires, so a
// single 50 MB upload would raise resident memory by as much. Collecting every few MiB keeps it flat.
setFlagsFromString("--expose-gc")
const collect = runInNewContext("gc") as () => void

/** How many bytes pass between two collections while an upload streams in. */
export const COLLECT_EVERY_BYTES = 8 * 1024 * 1024

/** Counts streamed bytes and collects garbage every {@link COLLECT_EVERY_BYTES} (uploads and downloads alike). */
export const makeUploadCollector = () => {
  let sinceLast = 0
  return (chunk: Uint8Array) => {
    sinceLast += chunk.length
    if (sinceLast >= COLLECT_EVERY_BYTES) {
      sinceLast = 0
      collect()
    }
    return chunk
  }
}
