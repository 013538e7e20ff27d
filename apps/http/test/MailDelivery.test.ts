import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BlobStore, BlobStoreLive } from "../src/Attachments/BlobStore.js"
import {
  header,
  outboxRows,
  type Received,
  smtpAndTicket,
  smtpLayer,
  testSmtpServer,
  withOutbox
} from "./MailSupport.js"
import { uniqueEmail } from "./support/Fixtures.js"
import { get, post, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

/** The path of the read pixel in a received mail (its HTML part may be quoted-printable). */
const pixelPath = (message: Received) => {
  const decoded = message.raw.replace(/=\r\n/g, "").replace(/=3D/gi, "=")
  const match = /https?:\/\/[^/"\s]+(\/mail\/opened\/[^/"\s]+\/)/.exec(decoded)
  assert.isNotNull(match, "the mail carries a read pixel")
  return match![1]!
}

const messageOf = (org: Tickets.TicketOrg, ticketId: number, messageId: number) =>
  Effect.map(get(Tickets.ticketPath(org, ticketId, "messages/"), { token: org.ownerToken }), (response) =>
    response.body.results.find((m: { id: number }) => m.id === messageId)
  )

layer(TestAppLive, { excludeTestServices: true })("mail delivery: read receipts, merges, CSAT, attachments", (it) => {
  it.scoped("the read pixel records read once, answers the same GIF to anyone, without a token", () =>
    Effect.gen(function* () {
      const { org, smtp, t } = yield* smtpAndTicket("reader")
      const reply = yield* Tickets.postMessage(org, t.id, { content: "Here is the answer." })
      yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      const [createRow, replyRow] = yield* outboxRows(t.id)
      const [created] = smtp.withMessageId(createRow!.rfcMessageId!)
      const path = pixelPath(created!)

      const opened = yield* get(path)
      assert.strictEqual(opened.status, 200)
      assert.strictEqual(opened.headers.get("content-type"), "image/gif")
      assert.include(opened.headers.get("cache-control") ?? "", "no-store")
      assert.isTrue(opened.text.startsWith("GIF89a"))
      const read = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(read.delivery_status, "read")
      assert.match(read.read_at, Tickets.ISO_MS)
      assert.match(read.sent_at, Tickets.ISO_MS)
      // The reply's own delivery is untouched by the create-email's receipt.
      assert.strictEqual((yield* messageOf(org, t.id, reply.body.id)).delivery_status, "sent")

      // Again: the same image, nothing changes.
      const again = yield* get(path)
      assert.strictEqual(again.status, 200)
      assert.strictEqual(again.text, opened.text)
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).read_at, read.read_at)

      // The reply's pixel reads the message.
      const [replied] = smtp.withMessageId(replyRow!.rfcMessageId!)
      assert.notStrictEqual(pixelPath(replied!), path)
      assert.strictEqual((yield* get(pixelPath(replied!))).status, 200)
      const m = yield* messageOf(org, t.id, reply.body.id)
      assert.strictEqual(m.delivery_status, "read")
      assert.match(m.read_at, Tickets.ISO_MS)
    })
  )

  it.scoped("sending and read receipts leave updated_at alone: the list's default order does not change", () =>
    Effect.gen(function* () {
      const { org, smtp, t: older } = yield* smtpAndTicket("older")
      const reply = yield* Tickets.postMessage(org, older.id, { content: "Here is the answer." })
      const before = yield* Tickets.readTicketBody(org, older.id)
      const newer = yield* Tickets.ticket(org, { customer_email: uniqueEmail("newer") })
      yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      const [createRow, replyRow] = yield* outboxRows(older.id)
      assert.strictEqual((yield* get(pixelPath(smtp.withMessageId(createRow!.rfcMessageId!)[0]!))).status, 200)
      assert.strictEqual((yield* get(pixelPath(smtp.withMessageId(replyRow!.rfcMessageId!)[0]!))).status, 200)
      const after = yield* Tickets.readTicketBody(org, older.id)
      assert.strictEqual(after.delivery_status, "read")
      assert.strictEqual(after.updated_at, before.updated_at)
      const message = yield* messageOf(org, older.id, reply.body.id)
      assert.strictEqual(message.delivery_status, "read")
      assert.strictEqual(message.updated_at, reply.body.updated_at)
      const list = yield* get(org.tickets, { token: org.ownerToken })
      assert.deepStrictEqual(Tickets.resultIds(list.body), [newer.id, older.id])
    })
  )

  it.scoped("forged, foreign and malformed pixel tokens get the same GIF and record nothing", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket({ customer_email: uniqueEmail("forger") })
      const [row] = yield* outboxRows(t.id)
      const forged = `${row!.id}.${"A".repeat(43)}`
      const answers = yield* Effect.forEach(
        [forged, "1.x", "not-a-token", "0.AAAA", `${"9".repeat(30)}.${"b".repeat(43)}`],
        (token) => get(`/mail/opened/${encodeURIComponent(token)}/`)
      )
      for (const answer of answers) {
        assert.strictEqual(answer.status, 200)
        assert.strictEqual(answer.headers.get("content-type"), "image/gif")
        assert.strictEqual(answer.text, answers[0]!.text)
      }
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).delivery_status, "pending")
      assert.strictEqual((yield* outboxRows(t.id))[0]!.readAt, null)
      // Another method on the pixel is not served.
      assert.strictEqual((yield* post(`/mail/opened/${forged}/`)).status, 405)
      // Leave nothing due for the next test.
      const smtp = yield* testSmtpServer()
      yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
    })
  )

  it.scoped(
    "a merged-away ticket: its reply's delivery is recorded on the survivor; its create-email's is dropped",
    () =>
      Effect.gen(function* () {
        const { org, smtp, t: source } = yield* smtpAndTicket("merged")
        const reply = yield* Tickets.postMessage(org, source.id, { content: "A reply before the merge." })
        const survivor = yield* Tickets.ticket(
          org,
          { customer_email: uniqueEmail("survivor"), created_by_role: "customer" },
          org.integration
        )
        const merged = yield* post(Tickets.ticketPath(org, source.id, "merge/"), {
          token: org.ownerToken,
          json: { into: survivor.id }
        })
        assert.strictEqual(merged.status, 200, merged.text)

        const round = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
        assert.include(round, { sent: 2, crashed: 0 })
        const rows = yield* outboxRows(source.id)
        assert.deepStrictEqual(
          rows.map((r) => r.status),
          ["sent", "sent"]
        )
        assert.strictEqual(smtp.received.length, 2)
        const carried = yield* messageOf(org, survivor.id, reply.body.id)
        assert.strictEqual(carried.delivery_status, "sent")
        assert.match(carried.sent_at, Tickets.ISO_MS)
        // The merged-away ticket takes no writes: its create-email stays as it was when merged.
        assert.strictEqual((yield* Tickets.readTicketBody(org, source.id)).delivery_status, "pending")
      })
  )

  it.scoped("a csat_survey row is sent like any other mail and records no delivery", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const smtp = yield* testSmtpServer()
      const to = uniqueEmail("survey")
      const t = yield* Tickets.inboundTicket(org, { customer_email: to })
      assert.strictEqual(t.delivery_status, null)
      const sql = yield* SqlClient.SqlClient
      const payload = {
        public_id: t.public_id,
        to,
        cc: [],
        bcc: [],
        subject: "How did we do?",
        text: "Rate us: https://example.com/csat/x/",
        html: "",
        attachment_ids: []
      }
      yield* sql`
        INSERT INTO hd_outbox (organization_id, ticket_id, message_id, kind, payload)
        VALUES (${org.organization.id}, ${t.id}, NULL, 'csat_survey', ${JSON.stringify(payload)}::jsonb)`
      const round = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      assert.include(round, { sent: 1, recorded: 1, crashed: 0 })
      const [row] = yield* outboxRows(t.id)
      assert.strictEqual(row!.status, "sent")
      const [mail] = smtp.to(to)
      assert.strictEqual(header(mail!, "subject"), `How did we do? [#${t.public_id}]`)
      assert.strictEqual(header(mail!, "in-reply-to"), `<ticket-${t.id}@${row!.rfcMessageId!.split("@")[1]}`)
      assert.notInclude(mail!.raw, "/mail/opened/")
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).delivery_status, null)
    })
  )

  it.scoped("sender, subject prefix and attachments: the inbox's name and address, files streamed into the mail", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const smtp = yield* testSmtpServer()
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE organizations SET email_subject_prefix = '[Acme]', email_from_name = 'Acme Support'
                 WHERE id = ${org.organization.id}`
      // First a ticket in the default inbox (provisioned now, "Support", no sender name of its own).
      const plain = yield* Tickets.ticket(org, { customer_email: uniqueEmail("plain") })
      const billing = yield* post(`${org.path}inboxes/`, {
        token: org.ownerToken,
        json: { name: "Billing", email_prefix: "billing", email_from_name: "Acme Billing" }
      })
      assert.strictEqual(billing.status, 201, billing.text)
      const file = yield* Tickets.upload(org, "invoice.txt", "invoice body")
      const to = uniqueEmail("payer")
      const t = yield* Tickets.ticket(org, {
        customer_email: to,
        inbox_id: billing.body.id,
        subject: "Invoice",
        attachment_ids: [file.id]
      })
      yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      const orgDomain = `${org.organization.public_id.toLowerCase()}.helpdesk.localhost`
      const [mail] = smtp.to(to)
      assert.strictEqual(header(mail!, "from"), `Acme Billing <billing@${orgDomain}>`)
      assert.strictEqual(header(mail!, "subject"), `[Acme] Invoice [#${t.public_id}]`)
      assert.match(mail!.raw, /Content-Disposition: attachment; filename=invoice\.txt/)
      assert.isTrue(mail!.raw.includes("invoice body") || mail!.raw.includes("aW52b2ljZSBib2R5"))
      // The default inbox has no name of its own: the organization's sender name.
      const [other] = smtp.to(plain.customer.email)
      assert.strictEqual(header(other!, "from"), `Acme Support <support@${orgDomain}>`)
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).delivery_status, "sent")
    })
  )

  it.scoped("an attachment whose file is gone: failed for good, with the reason", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const smtp = yield* testSmtpServer()
      const file = yield* Tickets.upload(org, "lost.txt", "gone soon")
      const t = yield* Tickets.ticket(org, { customer_email: uniqueEmail("lost"), attachment_ids: [file.id] })
      yield* Effect.flatMap(BlobStore, (blobs) => blobs.remove(file.id)).pipe(Effect.provide(BlobStoreLive))
      const round = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      assert.include(round, { failed: 1 })
      const after = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(after.delivery_status, "failed")
      assert.include(after.delivery_failure_reason, "lost.txt")
      assert.strictEqual(smtp.received.length, 0)
    })
  )
})
