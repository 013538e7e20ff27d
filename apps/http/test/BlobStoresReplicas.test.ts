import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { BlobStore, type BlobStoreKind, blobStoreLayer } from "../src/Attachments/BlobStore.js"
import * as Fixtures from "./support/Fixtures.js"
import { localS3, S3_TEST_CREDENTIALS } from "./support/S3Server.js"
import { helpdesk, ServiceProcessTestLive, serve, serviceDatabase } from "./support/ServiceProcess.js"
import { usesRealPostgres } from "./support/TestDatabase.js"

const MiB = 1024 * 1024

// The S3 SDK of this process (removing a blob behind the services' back) reads the usual variables too.
Object.assign(process.env, S3_TEST_CREDENTIALS)

const tempDataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "hd-replica-"))

/** Sends `bytes` as the `file_upload` of a pending upload to `baseUrl`. */
const upload = (baseUrl: string, org: Fixtures.OrgFixture, bytes: Uint8Array, name: string) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("file_upload", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/octet-stream" }), name)
    const response = await fetch(new URL(`${org.path}pending-attachments/`, baseUrl), {
      method: "POST",
      headers: { "x-service-token": org.ownerToken },
      body: form
    })
    return { status: response.status, body: await response.json() }
  })

const createTicket = (baseUrl: string, org: Fixtures.OrgFixture, attachmentIds: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const response = await fetch(new URL(`${org.path}tickets/`, baseUrl), {
      method: "POST",
      headers: { "x-service-token": org.ownerToken, "content-type": "application/json" },
      body: JSON.stringify({
        subject: "Scanned invoice",
        description: "The invoice is attached.",
        customer_email: "jane@example.com",
        attachment_ids: attachmentIds
      })
    })
    return { status: response.status, body: await response.json() }
  })

const download = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) }
  })

/** `url` on another replica: the same path and signature under `baseUrl`. */
const on = (baseUrl: string, url: string) => {
  const parsed = new URL(url)
  return new URL(`${parsed.pathname}${parsed.search}`, baseUrl).toString()
}

/** The store of these settings as the service builds it, in this process (to remove a blob behind its back). */
const storeOf = (kind: BlobStoreKind, settings: Record<string, string>) =>
  blobStoreLayer(kind).pipe(
    Layer.provide(
      Layer.setConfigProvider(
        ConfigProvider.fromMap(new Map(Object.entries(settings))).pipe(
          ConfigProvider.orElse(() => ConfigProvider.fromEnv())
        )
      )
    )
  )

describe.runIf(usesRealPostgres)("two replicas sharing nothing but their storage services", () => {
  layer(ServiceProcessTestLive, { excludeTestServices: true, timeout: "240 seconds" })("replicas", (it) => {
    for (const kind of ["postgres", "s3"] as const) {
      it.scoped(
        `BLOB_STORE=${kind}: uploaded on one replica, claimed and downloaded on the other; a missing file is a 404`,
        () =>
          Effect.gen(function* () {
            const database = yield* serviceDatabase
            const settings: Record<string, string> = kind === "s3" ? { ...(yield* localS3) } : { BLOB_STORE: kind }
            // Each replica has a data directory of its own, as on two machines; one runs the workers (mail by
            // SMTP to a port nobody answers: the .eml outbox is for one machine, see the last test).
            const a = yield* serve({
              ...database,
              ...settings,
              DATA_DIR: tempDataDir(),
              SMTP_URL: "smtp://127.0.0.1:9"
            })
            const b = yield* serve({ ...database, ...settings, DATA_DIR: tempDataDir(), WITHOUT_WORKERS: "true" })
            const org = yield* Fixtures.organization()

            // Past a chunk of the postgres store and a part of an S3 multipart upload.
            const bytes = randomBytes(9 * MiB + 321)
            const uploaded = yield* upload(a.baseUrl, org, bytes, "scan.pdf")
            expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201)

            const created = yield* createTicket(b.baseUrl, org, [uploaded.body.id])
            expect(created.status, JSON.stringify(created.body)).toBe(201)
            const [attachment] = created.body.attachments
            expect(attachment).toMatchObject({ id: uploaded.body.id, name: "scan.pdf", size: bytes.length })
            expect(attachment.download_url.startsWith(b.baseUrl)).toBe(true)

            for (const url of [attachment.download_url, on(a.baseUrl, attachment.download_url)]) {
              const file = yield* download(url)
              expect(file.status).toBe(200)
              expect(file.bytes.equals(bytes)).toBe(true)
            }
            // The link A signed at upload works on B too.
            expect((yield* download(on(b.baseUrl, uploaded.body.download_url))).bytes.equals(bytes)).toBe(true)

            yield* Effect.flatMap(BlobStore, (blobs) => blobs.remove(uploaded.body.id)).pipe(
              Effect.provide(storeOf(kind, { ...database, ...settings }))
            )
            for (const base of [a.baseUrl, b.baseUrl]) {
              const gone = yield* download(on(base, attachment.download_url))
              expect(gone.status).toBe(404)
              expect(JSON.parse(gone.bytes.toString())).toEqual({ detail: "This file no longer exists." })
            }
          })
      )
    }

    it.scoped(
      "the .eml outbox is refused on a second machine: a replica with another DATA_DIR and no SMTP_URL stops with the reason",
      () =>
        Effect.gen(function* () {
          const database = yield* serviceDatabase
          const first = yield* serve({ ...database, DATA_DIR: tempDataDir(), SMTP_URL: "" })
          const second = helpdesk(["serve"], {
            ...database,
            HOST: "127.0.0.1",
            PORT: "0",
            DATA_DIR: tempDataDir(),
            SMTP_URL: ""
          })
          const code = yield* Effect.promise(() => second.exited)
          expect(code).not.toBe(0)
          expect(second.output()).toContain("another process on this database already writes it")
          expect(second.output()).toContain("set SMTP_URL on every replica")
          // The first one still serves, and a replica that sends by SMTP starts beside it.
          expect((yield* Effect.promise(() => fetch(`${first.baseUrl}/healthz`))).status).toBe(200)
          const smtp = yield* serve({ ...database, DATA_DIR: tempDataDir(), SMTP_URL: "smtp://127.0.0.1:9" })
          expect((yield* Effect.promise(() => fetch(`${smtp.baseUrl}/healthz`))).status).toBe(200)
        })
    )
  })
})
