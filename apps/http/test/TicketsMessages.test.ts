import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { get, TestApp, TestAppLive } from "./support/TestApp.js"
import { usesRealPostgres } from "./support/TestDatabase.js"
import * as Tickets from "./TicketsSupport.js"

const MESSAGE_FIELDS = [
  "id",
  "author",
  "role",
  "sender",
  "next_assignee",
  "next_priority",
  "next_action",
  "kind",
  "has_raw_content",
  "created_at",
  "updated_at",
  "delivery_status",
  "sent_at",
  "read_at",
  "failed_at",
  "delivery_failure_reason",
  "merged_from_ticket",
  "attachments",
  "content",
  "content_html",
  "is_visible_to_customer",
  "external_recipient_emails",
  "bcc_recipient_emails"
]

layer(TestAppLive, { excludeTestServices: true })("tickets: messages", (it) => {
  it.effect(
    "an associate's reply: 201 with every field, e-mailed, activates the ticket and waits on the customer",
    () =>
      Effect.gen(function* () {
        const org = yield* Tickets.organization
        const { baseUrl } = yield* TestApp
        const t = yield* Tickets.inboundTicket(org)
        const response = yield* Tickets.postMessage(org, t.id, {
          content: "We are looking into it.",
          content_html: "<p>We are looking into it.</p>",
          next_action: "check with the carrier"
        })
        assert.strictEqual(response.status, 201, response.text)
        assert.strictEqual(
          response.headers.get("location"),
          `${baseUrl}${Tickets.ticketPath(org, t.id, `messages/${response.body.id}/`)}`
        )
        const m = response.body
        assert.deepStrictEqual(Object.keys(m).sort(), [...MESSAGE_FIELDS].sort())
        assert.isNumber(m.id)
        const owner = { id: org.ownerId, email: org.ownerEmail, profile_picture_url: "", name: "Owner" }
        assert.deepStrictEqual(m.author, owner)
        assert.strictEqual(m.role, "associate")
        assert.deepStrictEqual(m.sender, {
          email: org.ownerEmail,
          name: "Owner",
          user_id: org.ownerId,
          profile_picture: ""
        })
        assert.strictEqual(m.next_assignee, null)
        assert.strictEqual(m.next_priority, null)
        assert.strictEqual(m.next_action, "check with the carrier")
        assert.strictEqual(m.kind, "text")
        assert.strictEqual(m.has_raw_content, false)
        assert.match(m.created_at, Tickets.ISO_MS)
        assert.strictEqual(m.updated_at, m.created_at)
        assert.strictEqual(m.delivery_status, "pending")
        for (const key of ["sent_at", "read_at", "failed_at", "merged_from_ticket"])
          assert.strictEqual(m[key], null, key)
        assert.strictEqual(m.delivery_failure_reason, "")
        assert.deepStrictEqual(m.attachments, [])
        assert.strictEqual(m.content, "We are looking into it.")
        assert.strictEqual(m.content_html, "<p>We are looking into it.</p>")
        assert.strictEqual(m.is_visible_to_customer, true)
        assert.deepStrictEqual(m.external_recipient_emails, [])
        assert.deepStrictEqual(m.bcc_recipient_emails, [])

        const after = yield* Tickets.readTicketBody(org, t.id)
        assert.strictEqual(after.status, "active")
        assert.strictEqual(after.waiting_on, "customer")
        assert.strictEqual(after.customer_visible_reply_count, 1)
        const rows = yield* Tickets.outbox(t.id)
        assert.deepStrictEqual(
          rows.map((r) => [r.kind, Number(r.messageId)]),
          [["message", m.id]]
        )
        const listed = yield* get(Tickets.ticketPath(org, t.id, "messages/"), { token: org.ownerToken })
        assert.strictEqual(listed.status, 200)
        assert.deepStrictEqual(listed.body, { count: 1, next: null, previous: null, results: [m] })
      })
  )

  it.effect("CC snapshots: creation-time CC, then the last customer-visible message's; BCC is never inherited", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket({
        external_recipient_emails: ["cc1@example.com"],
        bcc_recipient_emails: ["bcc@example.com"]
      })
      const first = (yield* Tickets.postMessage(org, t.id, { content: "First reply" })).body
      assert.deepStrictEqual(first.external_recipient_emails, ["cc1@example.com"])
      assert.deepStrictEqual(first.bcc_recipient_emails, [])
      const second = (yield* Tickets.postMessage(org, t.id, {
        content: "Second reply",
        external_recipient_emails: ["cc2@example.com"],
        bcc_recipient_emails: ["secret@example.com"]
      })).body
      assert.deepStrictEqual(second.external_recipient_emails, ["cc2@example.com"])
      assert.deepStrictEqual(second.bcc_recipient_emails, ["secret@example.com"])
      const note = (yield* Tickets.postMessage(org, t.id, {
        content: "Internal note",
        is_visible_to_customer: false,
        external_recipient_emails: ["ignored@example.com"],
        bcc_recipient_emails: ["ignored@example.com"]
      })).body
      assert.strictEqual(note.is_visible_to_customer, false)
      assert.deepStrictEqual(note.external_recipient_emails, [])
      assert.deepStrictEqual(note.bcc_recipient_emails, [])
      assert.strictEqual(note.delivery_status, null)
      const third = (yield* Tickets.postMessage(org, t.id, { content: "Third reply" })).body
      assert.deepStrictEqual(third.external_recipient_emails, ["cc2@example.com"])
      assert.deepStrictEqual(third.bcc_recipient_emails, [])
      const cleared = (yield* Tickets.postMessage(org, t.id, { content: "Fourth", external_recipient_emails: [] })).body
      assert.deepStrictEqual(cleared.external_recipient_emails, [])
      assert.deepStrictEqual(
        (yield* Tickets.postMessage(org, t.id, { content: "Fifth" })).body.external_recipient_emails,
        []
      )
      // The internal note was not e-mailed: outbox rows for the create-email and the four replies only.
      assert.strictEqual((yield* Tickets.outbox(t.id)).length, 6)
    })
  )

  it.effect(
    "the customer's replies (integration tokens, role customer): sender is the customer, waiting on associate",
    () =>
      Effect.gen(function* () {
        const { org, t } = yield* Tickets.organizationWithTicket({
          customer_email: "kim@example.com",
          customer_name: "Kim"
        })
        const reply = yield* Tickets.customerReply(org, t.id, "Any news?")
        assert.strictEqual(reply.status, 201, reply.text)
        assert.strictEqual(reply.body.role, "customer")
        assert.strictEqual(reply.body.author, null)
        assert.deepStrictEqual(reply.body.sender, {
          email: "kim@example.com",
          name: "Kim",
          user_id: null,
          profile_picture: ""
        })
        assert.strictEqual(reply.body.delivery_status, null)
        assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).waiting_on, "associate")
        const byPerson = yield* Tickets.postMessage(org, t.id, { content: "x", role: "customer" })
        Tickets.assertInvalid(byPerson, "role")
        const internal = yield* Tickets.postMessage(
          org,
          t.id,
          { content: "x", role: "customer", is_visible_to_customer: false },
          org.integration
        )
        Tickets.assertInvalid(internal, "is_visible_to_customer")
      })
  )

  it.effect("a customer's reply sets the language of a ticket that has none", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket({ subject: "Hi", description: "Hello" })
      assert.strictEqual(t.language, "")
      yield* Tickets.customerReply(org, t.id, Tickets.FRENCH)
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).language, "fr")
    })
  )

  it.effect("next_assignee and next_priority change the ticket; a non-member is refused", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const admin = yield* Fixtures.member(org, "admin")
      const t = yield* Tickets.ticket(org)
      const m = yield* Tickets.postMessage(org, t.id, {
        content: "Handing over",
        is_visible_to_customer: false,
        next_assignee_id: admin.userId,
        next_priority: "urgent"
      })
      assert.strictEqual(m.status, 201, m.text)
      assert.strictEqual(m.body.next_assignee.id, admin.userId)
      assert.strictEqual(m.body.next_priority, "urgent")
      const after = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(after.assignee.id, admin.userId)
      assert.strictEqual(after.priority, "urgent")
      const outsider = yield* Fixtures.organization()
      const refused = yield* Tickets.postMessage(org, t.id, { content: "x", next_assignee_id: outsider.ownerId })
      Tickets.assertInvalid(refused, "next_assignee_id")
    })
  )

  it.effect("paging and ordering of messages; bad parameters are 4xx", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket()
      const ids: Array<number> = []
      for (let i = 0; i < 5; i++) ids.push((yield* Tickets.postMessage(org, t.id, { content: `Reply ${i}` })).body.id)
      const path = Tickets.ticketPath(org, t.id, "messages/")
      const first = yield* get(`${path}?page_size=2`, { token: org.ownerToken })
      assert.strictEqual(first.body.count, 5)
      assert.deepStrictEqual(Tickets.resultIds(first.body), ids.slice(0, 2))
      assert.match(first.body.next, /page=2/)
      assert.strictEqual(first.body.previous, null)
      const last = yield* get(`${path}?page_size=2&page=3`, { token: org.ownerToken })
      assert.deepStrictEqual(Tickets.resultIds(last.body), ids.slice(4))
      assert.strictEqual(last.body.next, null)
      const newest = yield* get(`${path}?ordering=-created_at`, { token: org.ownerToken })
      assert.deepStrictEqual(Tickets.resultIds(newest.body), [...ids].reverse())
      const byId = yield* get(`${path}?ordering=-id`, { token: org.ownerToken })
      assert.deepStrictEqual(Tickets.resultIds(byId.body), [...ids].reverse())
      assert.strictEqual((yield* get(`${path}?ordering=content`, { token: org.ownerToken })).status, 400)
      assert.strictEqual((yield* get(`${path}?page=9`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* get(`${path}?page_size=x`, { token: org.ownerToken })).status, 400)
    })
  )

  it.effect("bad messages are 400 with the field concerned; other organizations' tickets are 404", () =>
    Effect.gen(function* () {
      const [org, other] = yield* Tickets.organizationAndAnother
      const member = yield* Fixtures.member(org, "member")
      const t = yield* Tickets.ticket(org)
      for (const [field, body] of [
        ["content", { content: "   " }],
        ["external_recipient_emails", { content: "x", external_recipient_emails: ["nope"] }],
        ["next_priority", { content: "x", next_priority: "soon" }],
        ["next_action", { content: "x", next_action: "a".repeat(256) }]
      ] as const)
        Tickets.assertInvalid(yield* Tickets.postMessage(org, t.id, body), field, field)
      assert.strictEqual((yield* Tickets.postMessage(org, t.id, { content: "x" }, member.token)).status, 201)
      assert.strictEqual((yield* Tickets.postMessage(org, t.id, { content: "x" }, other.ownerToken)).status, 404)
      assert.strictEqual(
        (yield* get(Tickets.ticketPath(other, t.id, "messages/"), { token: other.ownerToken })).status,
        404
      )
      // Another organization's ticket is not found whatever the page; a page past an existing ticket's messages is.
      const otherPage = yield* get(Tickets.ticketPath(other, t.id, "messages/?page=2"), { token: other.ownerToken })
      assert.deepStrictEqual([otherPage.status, otherPage.body], [404, { detail: "Not found." }])
      const pastEnd = yield* get(Tickets.ticketPath(org, t.id, "messages/?page=9"), { token: org.ownerToken })
      assert.deepStrictEqual([pastEnd.status, pastEnd.body], [404, { detail: "Invalid page." }])
      assert.strictEqual((yield* Tickets.postMessage(org, 987654321, { content: "x" })).status, 404)
    })
  )

  it.effect("concurrent replies to one ticket all land (conflicts are retried)", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket()
      // On embedded PGlite (one session for every connection) concurrent transactions are not isolated; see
      // TicketsCreate.test.ts. PostgreSQL runs them truly in parallel.
      const responses = yield* Effect.forEach(
        Array.from({ length: 6 }, (_, i) => i),
        (i) => Tickets.postMessage(org, t.id, { content: `Parallel ${i}`, is_visible_to_customer: false }),
        { concurrency: usesRealPostgres ? 6 : 1 }
      )
      for (const r of responses) assert.oneOf(r.status, [201, 409])
      const created = responses.filter((r) => r.status === 201).length
      const listed = yield* get(Tickets.ticketPath(org, t.id, "messages/"), { token: org.ownerToken })
      assert.strictEqual(listed.body.count, created)
      assert.isAtLeast(created, 1)
    })
  )
})
