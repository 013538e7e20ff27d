import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { fileBlobStoreLayer } from "../src/Attachments/BlobStore.js"
import { PendingAttachments } from "../src/Attachments/PendingAttachments.js"
import { signDownload, verifyDownload } from "../src/Attachments/SignedUrl.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const blobRoot = fs.mkdtempSync(path.join(os.tmpdir(), "hd-link-secret-"))
const configured = "a-configured-signing-key"
const TestLayer = PendingAttachments.DefaultWithoutDependencies.pipe(
  Layer.provide(fileBlobStoreLayer(blobRoot).pipe(Layer.provide(NodeFileSystem.layer))),
  Layer.provideMerge(TestDatabaseLive),
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({ ATTACHMENT_URL_SECRET: configured })))
)

const attachmentId = "0b7c3c1e-7f4c-4d5e-9a39-2f6f3f1d9b11"
const query = (link: string) => new URL(link, "http://localhost").searchParams

layer(TestLayer, { timeout: "60 seconds" })("download links with ATTACHMENT_URL_SECRET", (it) => {
  it.effect("given a configured key, links are signed with that key's value, not its redacted text", () =>
    Effect.gen(function* () {
      const attachments = yield* PendingAttachments
      const link = query(yield* attachments.downloadUrl(attachmentId))
      const expires = Number(link.get("expires"))
      const signature = link.get("signature")!
      const at = new Date()
      expect(verifyDownload(configured, attachmentId, expires, signature, at)).toBe(true)
      // Anyone knows the text a Redacted prints; a link forged with it must not verify.
      const forged = signDownload("<redacted>", attachmentId, new Date(expires * 1000))
      expect(forged.signature).not.toBe(signature)
    })
  )
})
