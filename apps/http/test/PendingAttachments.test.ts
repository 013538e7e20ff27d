import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { OrganizationId } from "@helpdesk/domain"
import { Chunk, Effect, Layer, Stream } from "effect"
import { fileBlobStoreLayer } from "../src/Attachments/BlobStore.js"
import { PendingAttachments } from "../src/Attachments/PendingAttachments.js"
import type { Caller } from "../src/Auth/CurrentCaller.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const blobRoot = fs.mkdtempSync(path.join(os.tmpdir(), "hd-pending-"))
const TestLayer = PendingAttachments.DefaultWithoutDependencies.pipe(
  Layer.provide(fileBlobStoreLayer(blobRoot).pipe(Layer.provide(NodeFileSystem.layer))),
  Layer.provideMerge(TestDatabaseLive)
)

const alice: Caller = { _tag: "Person", userId: 1, tokenId: 11 }
const bob: Caller = { _tag: "Person", userId: 2, tokenId: 12 }
const integration: Caller = { _tag: "Integration", organizationId: OrganizationId.make("1"), tokenId: 13 }

const text = (content: string) => Stream.make(new TextEncoder().encode(content))
const blobExists = (id: string) => fs.existsSync(path.join(blobRoot, id.slice(0, 2), id))

const organizations = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO organizations (id, public_id, name, search_name) VALUES (1, 'one', 'One', 'one'), (2, 'two', 'Two', 'two')
             ON CONFLICT DO NOTHING`
})

/** An upload by `caller` of "hello" as notes.txt (text/plain) to organization 1, but for what `fields` say. */
const uploadAs = (
  caller: Caller,
  fields: {
    readonly organizationId?: OrganizationId
    readonly uploadTicketId?: number
    readonly fileName?: string
    readonly contentType?: string
    readonly content?: string
  } = {}
) =>
  Effect.flatMap(PendingAttachments, (attachments) =>
    attachments.upload({
      organizationId: OrganizationId.make("1"),
      fileName: "notes.txt",
      contentType: "text/plain",
      ...fields,
      caller,
      content: text(fields.content ?? "hello")
    })
  )

const claimAs = (
  caller: Caller,
  ids: ReadonlyArray<string>,
  ticketId = 100,
  organizationId = OrganizationId.make("1")
) => Effect.flatMap(PendingAttachments, (attachments) => attachments.claim({ organizationId, caller, ids, ticketId }))

layer(TestLayer, { timeout: "60 seconds" })("pending attachments", (it) => {
  it.effect("given an upload, it is stored with a safe name, its size and declared type", () =>
    Effect.gen(function* () {
      yield* organizations
      const stored = yield* uploadAs(alice, {
        fileName: "../../etc/pass\u0000wd.txt",
        contentType: "text/plain; charset=utf-8",
        content: "hello world"
      })
      expect(stored).toMatchObject({
        name: "pass_wd.txt",
        size: 11,
        contentType: "text/plain; charset=utf-8",
        ticketId: null
      })
      expect(blobExists(stored.id)).toBe(true)
    })
  )

  it.effect(
    "refuses declared HTML and SVG without storing anything, and sniffed markup whatever the declared type",
    () =>
      Effect.gen(function* () {
        yield* organizations
        const declared = yield* uploadAs(alice, { fileName: "x.svg", contentType: "image/svg+xml", content: "x" }).pipe(
          Effect.flip
        )
        expect(declared).toMatchObject({ _tag: "ContentRefused", kind: "declared" })
        const sniffed = yield* uploadAs(alice, {
          fileName: "a.png",
          contentType: "image/png",
          content: "<html><script>"
        }).pipe(Effect.flip)
        expect(sniffed).toMatchObject({ _tag: "ContentRefused", kind: "sniffed", contentType: "text/html" })
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`SELECT id FROM attachments WHERE name IN ('x.svg', 'a.png')`
        expect(rows).toEqual([])
      })
  )

  it.effect("given pending uploads of the caller, a claim attaches them all to the ticket, once", () =>
    Effect.gen(function* () {
      yield* organizations
      const a = yield* uploadAs(alice)
      const b = yield* uploadAs(alice)
      const claimed = yield* claimAs(alice, [a.id, b.id.toUpperCase()])
      expect(claimed.map((x) => x.id)).toEqual([a.id, b.id])
      const again = yield* claimAs(alice, [a.id], 101).pipe(Effect.flip)
      expect(again.problems).toEqual([{ id: a.id, problem: "claimed" }])
      expect(again.messages).toEqual([`Attachment ${a.id} is already attached elsewhere.`])
    })
  )

  it.effect("given one bad id among good ones, nothing is claimed and every problem is named", () =>
    Effect.gen(function* () {
      yield* organizations
      const sql = yield* SqlClient.SqlClient
      const good = yield* uploadAs(alice)
      const bobs = yield* uploadAs(bob)
      const otherOrg = yield* uploadAs(alice, { organizationId: OrganizationId.make("2") })
      const expired = yield* uploadAs(alice)
      yield* sql`UPDATE attachments SET expires_at = now() - interval '1 second' WHERE id = ${expired.id}`
      const missing = "00000000-0000-4000-8000-000000000000"
      const refused = yield* claimAs(alice, [good.id, bobs.id, otherOrg.id, expired.id, missing, "not-a-uuid"]).pipe(
        Effect.flip
      )
      expect(refused.problems).toEqual([
        { id: bobs.id, problem: "other_caller" },
        { id: otherOrg.id, problem: "unknown" },
        { id: expired.id, problem: "expired" },
        { id: missing, problem: "unknown" },
        { id: "not-a-uuid", problem: "unknown" }
      ])
      const [row] = yield* sql<{ claimedAt: Date | null }>`SELECT claimed_at FROM attachments WHERE id = ${good.id}`
      expect(row!.claimedAt).toBe(null)
    })
  )

  it.effect("a claim inside a transaction that rolls back leaves the upload claimable", () =>
    Effect.gen(function* () {
      yield* organizations
      const sql = yield* SqlClient.SqlClient
      const upload = yield* uploadAs(integration)
      const failed = yield* sql
        .withTransaction(Effect.zipRight(claimAs(integration, [upload.id]), Effect.fail("append failed" as const)))
        .pipe(Effect.flip)
      expect(failed).toBe("append failed")
      const claimed = yield* claimAs(integration, [upload.id], 200)
      expect(claimed.map((x) => x.id)).toEqual([upload.id])
    })
  )

  it.effect("given concurrent claims of the same upload, exactly one succeeds", () =>
    Effect.gen(function* () {
      yield* organizations
      const sql = yield* SqlClient.SqlClient
      const upload = yield* uploadAs(alice)
      const results = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) =>
          sql.withTransaction(claimAs(alice, [upload.id], 300 + i)).pipe(Effect.either)
        ),
        { concurrency: "unbounded" }
      )
      expect(results.filter((r) => r._tag === "Right")).toHaveLength(1)
    })
  )

  it.effect("an upload made to one ticket cannot be claimed by another", () =>
    Effect.gen(function* () {
      yield* organizations
      const upload = yield* uploadAs(alice, { uploadTicketId: 7, fileName: "r.txt", content: "reply" })
      const refused = yield* claimAs(alice, [upload.id], 8).pipe(Effect.flip)
      expect(refused.problems).toEqual([{ id: upload.id, problem: "other_ticket" }])
      expect((yield* claimAs(alice, [upload.id], 7)).map((x) => x.id)).toEqual([upload.id])
    })
  )

  it.effect("the reaper deletes expired unclaimed uploads, row and file, and nothing else", () =>
    Effect.gen(function* () {
      yield* organizations
      const sql = yield* SqlClient.SqlClient
      const attachments = yield* PendingAttachments
      const stale = yield* uploadAs(alice)
      const fresh = yield* uploadAs(alice)
      const kept = yield* uploadAs(alice)
      yield* claimAs(alice, [kept.id], 400)
      yield* sql`UPDATE attachments SET expires_at = now() - interval '1 hour' WHERE id IN (${stale.id}, ${kept.id})`
      let reaped = 0
      for (;;) {
        const n = yield* attachments.reapExpired(100)
        if (n === 0) break
        reaped += n
      }
      expect(reaped).toBeGreaterThanOrEqual(1)
      const left = yield* sql<{
        id: string
      }>`SELECT id FROM attachments WHERE id IN (${stale.id}, ${fresh.id}, ${kept.id})`
      expect(left.map((r) => r.id).sort()).toEqual([fresh.id, kept.id].sort())
      expect(blobExists(stale.id)).toBe(false)
      expect(blobExists(fresh.id)).toBe(true)
    })
  )

  it.effect("a genuine download link opens the file; a tampered one does not", () =>
    Effect.gen(function* () {
      yield* organizations
      const attachments = yield* PendingAttachments
      const upload = yield* uploadAs(alice, { content: "file body" })
      const signed = new URL(yield* attachments.signedDownloadPath(upload.id), "http://x")
      const link = {
        expires: Number(signed.searchParams.get("expires")),
        signature: signed.searchParams.get("signature")!
      }
      expect(signed.pathname).toBe(`/attachments/${upload.id}/download/`)
      const opened = yield* attachments.download(upload.id, link.expires, link.signature)
      const body = Chunk.toArray(yield* Stream.runCollect(opened.content))
      expect(new TextDecoder().decode(Buffer.concat(body))).toBe("file body")
      const refused = yield* attachments.download(upload.id, link.expires + 1, link.signature).pipe(Effect.flip)
      expect(refused._tag).toBe("DownloadLinkInvalid")
    })
  )
})
