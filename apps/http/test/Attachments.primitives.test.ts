import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck, Layer, Stream } from "effect"
import { BlobStore, fileBlobStoreLayer } from "../src/Attachments/BlobStore.js"
import { isRefusedContentType, sniffMarkup } from "../src/Attachments/ContentSniffing.js"
import { signDownload, verifyDownload } from "../src/Attachments/SignedUrl.js"

const bytes = (text: string) => new TextEncoder().encode(text)

describe("refused content types", () => {
  it("refuses text/html with any parameters and image/svg+xml, whatever the case", () => {
    expect(isRefusedContentType("text/html")).toBe(true)
    expect(isRefusedContentType("Text/HTML; charset=utf-8")).toBe(true)
    expect(isRefusedContentType("text/html-sandboxed")).toBe(true)
    expect(isRefusedContentType("image/svg+xml")).toBe(true)
    expect(isRefusedContentType("IMAGE/SVG+XML ; charset=utf-8")).toBe(true)
  })
  it("accepts other types", () => {
    for (const type of ["text/plain", "application/pdf", "image/png", "application/xhtml", "image/svg", ""]) {
      expect(isRefusedContentType(type)).toBe(false)
    }
  })
})

describe("content sniffing", () => {
  it("finds HTML after a BOM and whitespace, in any case", () => {
    expect(sniffMarkup(bytes("<!DOCTYPE html><html></html>"))).toBe("html")
    expect(sniffMarkup(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes("  \n<HTML>")]))).toBe("html")
    expect(sniffMarkup(bytes("<script>alert(1)</script>"))).toBe("html")
    expect(sniffMarkup(bytes("<p>hello"))).toBe("html")
    expect(sniffMarkup(bytes("<!-- comment -->"))).toBe("html")
    expect(sniffMarkup(bytes("<iframe src=x>"))).toBe("html")
  })
  it("finds SVG roots, also after an XML declaration, comment or doctype", () => {
    expect(sniffMarkup(bytes('<svg xmlns="http://www.w3.org/2000/svg">'))).toBe("svg")
    expect(sniffMarkup(bytes('<?xml version="1.0"?>\n<svg>'))).toBe("svg")
    expect(sniffMarkup(bytes('<?xml version="1.0"?><!DOCTYPE svg PUBLIC "x"><svg/>'))).toBe("svg")
  })
  it("leaves other files alone, including tags that only look alike", () => {
    expect(sniffMarkup(bytes("%PDF-1.7"))).toBe(null)
    expect(sniffMarkup(bytes("hello <html>"))).toBe(null)
    expect(sniffMarkup(bytes("<pre>"))).toBe(null) // `<p` followed by `r` is not the tag p
    expect(sniffMarkup(bytes('<?xml version="1.0"?><note/>'))).toBe(null)
    expect(sniffMarkup(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe(null)
    expect(sniffMarkup(new Uint8Array())).toBe(null)
  })
  it.prop(
    "any content that does not start with `<` after whitespace is not markup",
    [FastCheck.uint8Array()],
    ([data]) => {
      const first = data.find((b) => ![0x09, 0x0a, 0x0c, 0x0d, 0x20].includes(b))
      if (first !== 0x3c && !(data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf)) {
        expect(sniffMarkup(data)).toBe(null)
      }
    }
  )
})

describe("signed download links", () => {
  const secret = "s3cret"
  const now = new Date("2026-11-22T10:00:00Z")
  it("verifies a link for its attachment until it expires", () => {
    const link = signDownload(secret, "a1", new Date("2026-11-22T11:00:00Z"))
    expect(verifyDownload(secret, "a1", link.expires, link.signature, now)).toBe(true)
    expect(verifyDownload(secret, "a1", link.expires, link.signature, new Date("2026-11-22T10:59:59Z"))).toBe(true)
    expect(verifyDownload(secret, "a1", link.expires, link.signature, new Date("2026-11-22T11:00:00Z"))).toBe(false)
  })
  it("refuses another attachment, another expiry, another secret or a tampered signature", () => {
    const link = signDownload(secret, "a1", new Date("2026-11-22T11:00:00Z"))
    expect(verifyDownload(secret, "a2", link.expires, link.signature, now)).toBe(false)
    expect(verifyDownload(secret, "a1", link.expires + 1, link.signature, now)).toBe(false)
    expect(verifyDownload("other", "a1", link.expires, link.signature, now)).toBe(false)
    expect(verifyDownload(secret, "a1", link.expires, `${link.signature.slice(0, -1)}A`, now)).toBe(false)
    expect(verifyDownload(secret, "a1", Number.NaN, link.signature, now)).toBe(false)
  })
})

describe(
  "file blob store",
  () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "hd-blobs-"))
    const layer = fileBlobStoreLayer(root).pipe(Layer.provide(NodeFileSystem.layer))
    const chunks = (sizes: ReadonlyArray<number>) =>
      Stream.fromIterable(sizes.map((size, i) => new Uint8Array(size).fill(i + 65)))
    const filesUnder = (dir: string): Array<string> =>
      fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)

    it.effect("stores content up to exactly the limit and reads it back", () =>
      Effect.gen(function* () {
        const store = yield* BlobStore
        const stored = yield* store.put("blob-exact", chunks([600, 600, 800]), { maxBytes: 2000 })
        expect(stored.size).toBe(2000)
        expect(stored.head.length).toBe(1024)
        expect(stored.head[0]).toBe(65)
        expect(stored.head[700]).toBe(66)
        const read = yield* Effect.flatMap(store.get("blob-exact"), Stream.runCollect)
        expect(Chunk.reduce(read, 0, (n, c) => n + c.length)).toBe(2000)
      }).pipe(Effect.provide(layer))
    )

    it.effect("fails one byte past the limit and keeps nothing", () =>
      Effect.gen(function* () {
        const store = yield* BlobStore
        const error = yield* store.put("blob-over", chunks([1000, 1001]), { maxBytes: 2000 }).pipe(Effect.flip)
        expect(error).toMatchObject({ _tag: "BlobTooLarge", limitBytes: 2000 })
        expect(filesUnder(root).filter((name) => name.startsWith("blob-over"))).toEqual([])
        expect((yield* store.get("blob-over").pipe(Effect.flip))._tag).toBe("BlobNotFound")
      }).pipe(Effect.provide(layer))
    )

    it.effect("removes blobs, and removing a missing one is fine", () =>
      Effect.gen(function* () {
        const store = yield* BlobStore
        yield* store.put("blob-gone", chunks([10]), { maxBytes: 100 })
        yield* store.remove("blob-gone")
        yield* store.remove("blob-gone")
        expect((yield* store.get("blob-gone").pipe(Effect.flip))._tag).toBe("BlobNotFound")
      }).pipe(Effect.provide(layer))
    )

    it.effect("refuses keys that could escape its folder", () =>
      Effect.gen(function* () {
        const store = yield* BlobStore
        for (const key of ["../etc", "a/b", "..", "", "x"]) {
          const exit = yield* Effect.exit(store.put(key, chunks([1]), { maxBytes: 10 }))
          expect(exit._tag).toBe("Failure")
        }
      }).pipe(Effect.provide(layer))
    )
  },
  { concurrent: false }
)
