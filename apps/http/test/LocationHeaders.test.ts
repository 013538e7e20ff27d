import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { get, TestApp, TestAppLive, type TestResponse } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "hd-locations-"))

/** Uploads a small text file to `urlPath` as `token`. */
const upload = (urlPath: string, token: string) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    const form = new FormData()
    form.append("file_upload", new Blob(["located"], { type: "text/plain" }), "located.txt")
    const response = yield* Effect.promise(() =>
      fetch(new URL(urlPath, baseUrl), { method: "POST", headers: { "x-service-token": token }, body: form })
    )
    return {
      status: response.status,
      location: response.headers.get("location"),
      body: yield* Effect.promise(() => response.json())
    }
  })

/** GETs an absolute `Location` as `token`. */
const follow = (location: string | null, token: string): Effect.Effect<TestResponse, never, TestApp> =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    assert.isString(location)
    assert.isTrue(location!.startsWith(baseUrl), location!)
    return yield* get(location!.slice(baseUrl.length), { token })
  })

layer(TestAppLive, { excludeTestServices: true, timeout: "120 seconds" })("Location headers answer 200", (it) => {
  it.effect("a pending upload's Location answers its attachment in the organization, 404 outside it", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const uploaded = yield* upload(`${org.path}pending-attachments/`, org.ownerToken)
      assert.strictEqual(uploaded.status, 201)
      const read = yield* follow(uploaded.location, org.ownerToken)
      assert.strictEqual(read.status, 200, read.text)
      assert.strictEqual(read.body.id, uploaded.body.id)
      assert.deepStrictEqual(Object.keys(read.body).sort(), ["content_type", "download_url", "id", "name", "size"])
      assert.strictEqual(read.body.name, "located.txt")
      // Another caller of the same organization reads it too (only claiming is the uploader's); another organization
      // does not find it.
      assert.strictEqual((yield* follow(uploaded.location, org.integration)).status, 200)
      const other = yield* Fixtures.organization()
      assert.strictEqual(
        (yield* get(`${other.path}pending-attachments/${uploaded.body.id}/`, { token: other.ownerToken })).status,
        404
      )
      assert.strictEqual(
        (yield* get(`${org.path}pending-attachments/not-a-uuid/`, { token: org.ownerToken })).status,
        404
      )
      // Claimed by a ticket, it still answers (the attachment exists; the ticket shows it too).
      const t = yield* Tickets.ticket(org, { attachment_ids: [uploaded.body.id] })
      assert.strictEqual((yield* follow(uploaded.location, org.ownerToken)).status, 200)
      assert.strictEqual(t.attachments[0].id, uploaded.body.id)
    })
  )

  it.effect("an upload to a ticket answers at its Location for anyone who reads the ticket", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket()
      const uploaded = yield* upload(Tickets.ticketPath(org, t.id, "attachments/"), org.ownerToken)
      assert.strictEqual(uploaded.status, 201)
      const read = yield* follow(uploaded.location, org.integration)
      assert.strictEqual(read.status, 200, read.text)
      assert.strictEqual(read.body.id, uploaded.body.id)
      const other = yield* Tickets.ticket(org)
      assert.strictEqual(
        (yield* get(Tickets.ticketPath(org, other.id, `attachments/${uploaded.body.id}/`), { token: org.ownerToken }))
          .status,
        404
      )
    })
  )

  it.effect("a created ticket and a created message answer at their Location", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const created = yield* Tickets.createTicket(org, {
        subject: "Where",
        description: Tickets.ENGLISH,
        customer_email: "where@example.com"
      })
      assert.strictEqual(created.status, 201)
      const t = yield* follow(created.headers.get("location"), org.ownerToken)
      assert.strictEqual(t.status, 200)
      assert.deepStrictEqual(t.body, created.body)

      const reply = yield* Tickets.postMessage(org, created.body.id, { content: "Looking into it" })
      assert.strictEqual(reply.status, 201, reply.text)
      assert.match(reply.headers.get("location") ?? "", new RegExp(`/messages/${reply.body.id}/$`))
      const message = yield* follow(reply.headers.get("location"), org.ownerToken)
      assert.strictEqual(message.status, 200, message.text)
      assert.deepStrictEqual(message.body, reply.body)

      // Another ticket's message id under this ticket, and unknown ids: not found.
      const other = yield* Tickets.ticket(org)
      assert.strictEqual(
        (yield* get(Tickets.ticketPath(org, other.id, `messages/${reply.body.id}/`), { token: org.ownerToken })).status,
        404
      )
      assert.strictEqual(
        (yield* get(Tickets.ticketPath(org, created.body.id, "messages/0/"), { token: org.ownerToken })).status,
        404
      )
      const outsider = yield* Fixtures.organization()
      assert.strictEqual(
        (yield* get(`${outsider.path}tickets/${created.body.id}/messages/${reply.body.id}/`, {
          token: outsider.ownerToken
        })).status,
        404
      )
    })
  )
})
