import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BlobStore, BlobStoreLive } from "../src/Attachments/BlobStore.js"
import { MAX_UPLOAD_BYTES } from "../src/Attachments/PendingAttachments.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, post, TestApp, TestAppLive } from "./support/TestApp.js"

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "hd-uploads-"))

/** Posts a multipart upload with the file under `field` (default `file_upload`). */
const upload = (
  urlPath: string,
  token: string | undefined,
  file: Blob,
  fileName: string,
  extra: { field?: string; fields?: Record<string, string> } = {}
) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    const form = new FormData()
    for (const [key, value] of Object.entries(extra.fields ?? {})) form.append(key, value)
    form.append(extra.field ?? "file_upload", file, fileName)
    const headers: Record<string, string> = token === undefined ? {} : { "x-service-token": token }
    const response = yield* Effect.promise(() =>
      fetch(new URL(urlPath, baseUrl), { method: "POST", headers, body: form })
    )
    const text = yield* Effect.promise(() => response.text())
    return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
  })

const download = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
  })

layer(TestAppLive, { excludeTestServices: true, timeout: "120 seconds" })("uploads over HTTP", (it) => {
  it.effect("given a file, the pending upload answers 201 with the attachment and a working signed link", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* upload(
        `${org.path}pending-attachments/`,
        org.ownerToken,
        new Blob(["hello, attachments"], { type: "text/plain" }),
        "C:\\Users\\me\\notes.txt"
      )
      expect(response.status).toBe(201)
      expect(Object.keys(response.body).sort()).toEqual(["content_type", "download_url", "id", "name", "size"])
      expect(response.body).toMatchObject({ name: "notes.txt", size: 18, content_type: "text/plain" })
      expect(response.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(response.headers.get("location")).toMatch(
        new RegExp(`${org.path}pending-attachments/${response.body.id}/$`)
      )
      const { baseUrl } = yield* TestApp
      expect(
        response.body.download_url.startsWith(`${baseUrl}/attachments/${response.body.id}/download/?expires=`)
      ).toBe(true)

      const file = yield* download(response.body.download_url)
      expect(file.status).toBe(200)
      expect(new TextDecoder().decode(file.bytes)).toBe("hello, attachments")
      expect(file.headers.get("content-type")).toBe("text/plain")
      expect(file.headers.get("content-disposition")).toBe(
        `attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`
      )
      expect(file.headers.get("x-content-type-options")).toBe("nosniff")
    })
  )

  it.effect("a tampered or foreign download link is refused with 403", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const first = yield* upload(`${org.path}pending-attachments/`, org.ownerToken, new Blob(["a"]), "a.bin")
      const second = yield* upload(`${org.path}pending-attachments/`, org.ownerToken, new Blob(["b"]), "b.bin")
      // Another first character, whatever the signature starts with (an "X" replaced by "X" would be no tampering).
      const tampered = first.body.download_url.replace(
        /signature=(.)/,
        (_: string, c: string) => `signature=${c === "X" ? "Y" : "X"}`
      )
      const foreign = first.body.download_url.replace(first.body.id, second.body.id)
      for (const url of [tampered, foreign, first.body.download_url.replace(/expires=\d+/, "expires=1")]) {
        const response = yield* download(url)
        expect(response.status).toBe(403)
        expect(JSON.parse(new TextDecoder().decode(response.bytes))).toEqual({
          detail: "This download link is invalid or has expired."
        })
      }
    })
  )

  it.effect("a genuine link whose file is gone answers 404, blob or row missing, never 403", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const first = yield* upload(`${org.path}pending-attachments/`, org.ownerToken, new Blob(["a"]), "a.bin")
      const second = yield* upload(`${org.path}pending-attachments/`, org.ownerToken, new Blob(["b"]), "b.bin")
      // The service's own store (postgres with DATABASE_URL, files under this file's DATA_DIR without).
      yield* Effect.flatMap(BlobStore, (blobs) => blobs.remove(first.body.id)).pipe(Effect.provide(BlobStoreLive))
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM attachments WHERE id = ${second.body.id}`
      for (const url of [first.body.download_url, second.body.download_url]) {
        const response = yield* download(url)
        expect(response.status).toBe(404)
        expect(response.headers.get("content-type")).toMatch(/^application\/json/)
        expect(JSON.parse(new TextDecoder().decode(response.bytes))).toEqual({ detail: "This file no longer exists." })
      }
    })
  )

  it.effect("non-ASCII file names are kept, with an ASCII fallback for old clients", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* upload(`${org.path}pending-attachments/`, org.ownerToken, new Blob(["x"]), "résumé ✓.pdf")
      expect(response.body.name).toBe("résumé ✓.pdf")
      const file = yield* download(response.body.download_url)
      expect(file.headers.get("content-disposition")).toBe(
        `attachment; filename="r_sum_ _.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E2%9C%93.pdf`
      )
    })
  )

  it.effect("HTML and SVG are refused whether declared or recognised from the content", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const url = `${org.path}pending-attachments/`
      const cases = [
        [new Blob(["<p>hi</p>"], { type: "text/html" }), "a.html"],
        [new Blob(["hi"], { type: "text/html; charset=utf-8" }), "a.txt"],
        [new Blob(["<svg/>"], { type: "image/svg+xml" }), "a.svg"],
        [new Blob(["<!DOCTYPE html><script>alert(1)</script>"], { type: "image/png" }), "cat.png"],
        [new Blob(['<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'], { type: "text/plain" }), "x.txt"]
      ] as const
      for (const [blob, name] of cases) {
        const response = yield* upload(url, org.ownerToken, blob, name)
        expect(response.status).toBe(400)
        expect(response.body.file_upload[0]).toMatch(/not accepted \(HTML and SVG uploads are refused\)/)
      }
    })
  )

  it.effect("a file of exactly 50 MB is accepted and one byte more is refused with 413 naming the limit", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const url = `${org.path}pending-attachments/`
      const atLimit = yield* upload(url, org.ownerToken, new Blob([new Uint8Array(MAX_UPLOAD_BYTES)]), "big.bin")
      expect(atLimit.status).toBe(201)
      expect(atLimit.body.size).toBe(52_428_800)
      const over = yield* upload(url, org.ownerToken, new Blob([new Uint8Array(MAX_UPLOAD_BYTES + 1)]), "big.bin")
      expect(over.status).toBe(413)
      expect(over.body).toEqual({ detail: "File is too large. The limit is 50 MB (52,428,800 bytes)." })
    })
  )

  it.effect("a request without the file, or not multipart, is refused clearly", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const url = `${org.path}pending-attachments/`
      const wrongField = yield* upload(url, org.ownerToken, new Blob(["x"]), "x.txt", { field: "file" })
      expect(wrongField.status).toBe(400)
      expect(wrongField.body).toEqual({
        file_upload: ["No file was submitted. Send it as the multipart field file_upload."]
      })
      const asJson = yield* post(url, { token: org.ownerToken, json: { file_upload: "x" } })
      expect(asJson.status).toBe(415)
      expect(asJson.body).toEqual({ detail: 'Unsupported media type "application/json" in request.' })
      const broken = yield* post(url, {
        token: org.ownerToken,
        body: '--xyz\r\nContent-Disposition: form-data; name="file_upload"; filename="a"\r\n\r\nabc',
        contentType: "multipart/form-data; boundary=xyz"
      })
      expect(broken.status).toBe(400)
      expect(broken.body.detail).toMatch(/^Multipart form parse error - Unexpected end of form/)
    })
  )

  it.effect("callers: no token 401, outsiders 404, members (who attach) and integration tokens upload", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const url = `${org.path}pending-attachments/`
      const anonymous = yield* upload(url, undefined, new Blob(["x"]), "x.txt")
      expect(anonymous.status).toBe(401)
      const outsider = yield* upload(url, yield* Fixtures.outsider, new Blob(["x"]), "x.txt")
      expect(outsider.status).toBe(404)
      const member = yield* Fixtures.member(org, "member")
      expect((yield* upload(url, member.token, new Blob(["x"]), "x.txt")).status).toBe(201)
      const integration = yield* Fixtures.integrationToken(org)
      expect((yield* upload(url, integration, new Blob(["x"]), "x.txt")).status).toBe(201)
    })
  )

  it.effect("uploading to a ticket the organization does not have is 404", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      for (const ticket of ["999999", "abc", "0"]) {
        const response = yield* upload(
          `${org.path}tickets/${ticket}/attachments/`,
          org.ownerToken,
          new Blob(["x"]),
          "x"
        )
        expect(response.status).toBe(404)
      }
      const unslashed = yield* get(`${org.path}pending-attachments`, { token: org.ownerToken })
      expect(unslashed.status).toBe(301)
    })
  )
})
