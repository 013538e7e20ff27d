import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { get, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

layer(TestAppLive, { excludeTestServices: true })("tickets: attachments", (it) => {
  it.effect("attachment_ids are claimed with the ticket and shown with signed download links", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const file = yield* Tickets.upload(org, "invoice.txt", "invoice body")
      const t = yield* Tickets.ticket(org, { attachment_ids: [file.id] })
      assert.strictEqual(t.has_attachments, true)
      assert.strictEqual(t.attachments.length, 1)
      const a = t.attachments[0]
      assert.deepStrictEqual(
        { id: a.id, name: a.name, size: a.size, content_type: a.content_type },
        { id: file.id, name: "invoice.txt", size: 12, content_type: "text/plain" }
      )
      assert.match(a.download_url, /^http:\/\/127\.0\.0\.1:\d+\/attachments\/.+signature=/)
      const read = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(read.attachments[0].id, file.id)
      // Claimed once: a second ticket cannot take it.
      const again = yield* Tickets.createTicket(org, {
        subject: "x",
        description: "y",
        customer_email: "a@example.com",
        attachment_ids: [file.id]
      })
      Tickets.assertInvalid(again, "attachment_ids")
    })
  )

  it.effect("one bad id fails the whole creation and claims nothing (no public id used either)", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const good = yield* Tickets.upload(org, "a.txt")
      const refused = yield* Tickets.createTicket(org, {
        subject: "x",
        description: "y",
        customer_email: "a@example.com",
        attachment_ids: [good.id, "00000000-0000-4000-8000-000000000000"]
      })
      assert.strictEqual(refused.status, 400)
      assert.deepStrictEqual(Object.keys(refused.body), ["attachment_ids"])
      assert.include(refused.body.attachment_ids.join(" "), "00000000-0000-4000-8000-000000000000")
      const t = yield* Tickets.ticket(org, { attachment_ids: [good.id] })
      assert.strictEqual(t.public_id, "1")
      assert.strictEqual(t.attachments[0].id, good.id)
    })
  )

  it.effect("a message claims its attachments; the ticket then has attachments", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket()
      assert.strictEqual(t.has_attachments, false)
      const file = yield* Tickets.upload(org, "photo.txt")
      const onlyFile = yield* Tickets.postMessage(org, t.id, { attachment_ids: [file.id] })
      assert.strictEqual(onlyFile.status, 201, onlyFile.text)
      assert.strictEqual(onlyFile.body.attachments[0].id, file.id)
      assert.isString(onlyFile.body.attachments[0].download_url)
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).has_attachments, true)
      const listed = yield* get(`${org.tickets}${t.id}/messages/`, { token: org.ownerToken })
      assert.strictEqual(listed.body.results[0].attachments[0].name, "photo.txt")
      const bad = yield* Tickets.postMessage(org, t.id, { content: "x", attachment_ids: ["nope"] })
      Tickets.assertInvalid(bad, "attachment_ids")
    })
  )
})
