import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import type Mail from "nodemailer/lib/mailer"
import { BlobStore, BlobStoreLive } from "../src/Attachments/BlobStore.js"
import { MAX_UPLOAD_BYTES } from "../src/Attachments/PendingAttachments.js"
import { MAX_MESSAGE_BYTES } from "../src/InboundMail/InboundMail.js"
import { ReadReceipts } from "../src/Mail/ReadReceipts.js"
import { ServicesLive } from "../src/Services.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import {
  addressOf,
  compose,
  deliveryStatusNotification,
  InboundSmtp,
  InboundSmtpLive,
  inboundRecord,
  postMail,
  sendSmtp,
  smtpDialogue
} from "./InboundMailSupport.js"
import { outboxRows, smtpLayer, testSmtpServer, withOutbox } from "./MailSupport.js"
import * as Fixtures from "./support/Fixtures.js"
import { assertRefused, get, post, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "hd-inbound-"))

const TestLayer = Layer.mergeAll(InboundSmtpLive, BlobStoreLive).pipe(Layer.provideMerge(TestAppLive))

const ReadReceiptsLive = ReadReceipts.Default.pipe(Layer.provide(TicketServicesLive), Layer.provide(ServicesLive))

// Tests that move several 70 MB messages: minutes on a loaded machine with the embedded database.
const HEAVY = 600_000

type Way = "smtp" | "http"

let counter = 0
const messageId = (label: string) => `<${label}-${Date.now()}-${++counter}@mail.example.com>`

/** An organization with an inbox `desk` (its first, so the default) and `billing`. */
const setup = Effect.gen(function* () {
  const org = yield* Tickets.organization
  const desk = yield* Tickets.inbox(org, "Desk", "desk")
  const billing = yield* Tickets.inbox(org, "Billing", "billing")
  return { org, desk: desk.id as number, billing: billing.id as number }
})

/** Delivers a composed mail one way or the other, and checks it was taken (250 / 200). */
const deliver = (way: Way, org: Tickets.TicketOrg, to: string, raw: Buffer, from = "someone@example.com") =>
  way === "http"
    ? Effect.map(postMail(org, raw), (response) => {
        assert.strictEqual(response.status, 200, response.text)
        return response.body as { outcome: string; ticket_id: number | null; duplicate: boolean }
      })
    : Effect.map(sendSmtp({ from, to: [to] }, raw), (answer) => {
        assert.isTrue(answer.accepted, JSON.stringify(answer))
        return undefined
      })

const mail = (options: Mail.Options) => compose({ date: new Date(), ...options })

/**
 * Composes a mail from `from` to the `desk` inbox (with a new Message-ID unless `messageId` is given), delivers it
 * one way or the other, and answers its Message-ID.
 */
const mailDesk = (way: Way, org: Tickets.TicketOrg, options: Mail.Options & { readonly from: string }) =>
  Effect.gen(function* () {
    const id = typeof options.messageId === "string" ? options.messageId : messageId("desk")
    const raw = yield* mail({ to: addressOf(org, "desk"), ...options, messageId: id })
    yield* deliver(way, org, addressOf(org, "desk"), raw, options.from)
    return id
  })

const ticketsOf = (org: Tickets.TicketOrg) =>
  Effect.map(get(`${org.tickets}?page_size=100`, { token: org.ownerToken }), (response) => {
    assert.strictEqual(response.status, 200, response.text)
    return response.body.results as Array<{ id: number; subject: string; customer: { email: string } }>
  })

const messagesOf = (org: Tickets.TicketOrg, ticketId: number) =>
  Effect.map(get(Tickets.ticketPath(org, ticketId, "messages/"), { token: org.ownerToken }), (response) => {
    assert.strictEqual(response.status, 200, response.text)
    return response.body.results as Array<{
      id: number
      role: string
      content: string
      content_html: string
      attachments: Array<{ name: string; size: number }>
      delivery_status: string | null
      delivery_failure_reason: string
    }>
  })

const rawSource = (key: string) =>
  Effect.flatMap(BlobStore, (blobs) =>
    Effect.flatMap(blobs.get(key), (content) =>
      Stream.runFold(content, "", (text, chunk) => text + Buffer.from(chunk).toString("utf8"))
    )
  ).pipe(Effect.orDie)

/** An associate's ticket for `customer` with one e-mailed reply, both sent (their Message-IDs fixed). */
const conversation = (org: Tickets.TicketOrg, customer: string) =>
  Effect.gen(function* () {
    const sink = yield* testSmtpServer()
    const t = yield* Tickets.ticket(org, { subject: "Parcel missing", customer_email: customer })
    const reply = (yield* Tickets.postMessage(org, t.id, { content: "We are looking into it." })).body
    yield* withOutbox(smtpLayer(sink.url), (outbox) => outbox.drainOnce())
    const rows = yield* outboxRows(t.id)
    const created = rows.find((row) => row.kind === "ticket_created")!
    const replied = rows.find((row) => row.kind === "message")!
    assert.isNotNull(replied.rfcMessageId)
    return {
      ticket: t as { id: number; public_id: string },
      replyId: reply.id as number,
      createId: created.rfcMessageId!,
      replyMessageId: replied.rfcMessageId!
    }
  })

const bigFile = (bytes: number) => Buffer.alloc(bytes, 0x61)

layer(TestLayer, { excludeTestServices: true, timeout: "300 seconds" })("inbound e-mail", (it) => {
  for (const way of ["smtp", "http"] as const) {
    it.scoped(
      `${way}: a new mail opens a ticket for the sender, in the inbox it was sent to; again changes nothing`,
      () =>
        Effect.gen(function* () {
          const { org, billing } = yield* setup
          const sender = Fixtures.uniqueEmail("newcomer")
          const id = messageId("new")
          const raw = yield* mail({
            from: { name: "New Comer", address: sender },
            to: addressOf(org, "billing"),
            subject: "Invoice 42 is wrong",
            text: "Hello,\n\nthe invoice lists two licences; we have one.\n\nRegards",
            html: "<p>Hello,</p><p>the invoice lists <b>two</b> licences; we have one.</p><script>alert(1)</script>",
            messageId: id
          })
          const answer = yield* deliver(way, org, addressOf(org, "billing"), raw, sender)
          if (way === "http") {
            assert.strictEqual(answer?.outcome, "ticket")
            assert.isFalse(answer?.duplicate)
          }
          const record = yield* inboundRecord(org, id)
          assert.strictEqual(record?.outcome, "ticket")
          const t = yield* Tickets.readTicketBody(org, Number(record!.ticketId))
          assert.strictEqual(t.subject, "Invoice 42 is wrong")
          assert.strictEqual(t.inbox.id, billing)
          assert.strictEqual(t.origin, "email")
          assert.strictEqual(t.channel.type, "email")
          assert.strictEqual(t.created_by.role, "customer")
          assert.strictEqual(t.customer.email, sender)
          assert.strictEqual(t.customer.name, "New Comer")
          assert.include(t.description, "two licences")
          assert.include(t.description_html, "<b>two</b>")
          assert.notInclude(t.description_html, "script")
          assert.isFalse(t.is_spam)
          // The customer exists now, found by address.
          const customers = yield* get(`${org.path}customers/?search=${encodeURIComponent(sender)}`, {
            token: org.ownerToken
          })
          assert.strictEqual(customers.body.count, 1)
          // The raw source is kept.
          assert.include(yield* rawSource(record!.rawKey!), "Invoice 42 is wrong")

          // The same message again (a retried webhook, a resent mail): nothing new.
          const again = yield* deliver(way, org, addressOf(org, "billing"), raw, sender)
          if (way === "http") {
            assert.strictEqual(again?.outcome, "ticket")
            assert.isTrue(again?.duplicate)
            assert.strictEqual(again?.ticket_id, Number(record!.ticketId))
          }
          const mine = (yield* ticketsOf(org)).filter((one) => one.customer.email === sender)
          assert.strictEqual(mine.length, 1)
        })
    )

    it.scoped(`${way}: a reply threads by In-Reply-To onto its ticket, without the quoted history`, () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const customer = Fixtures.uniqueEmail("jane")
        const c = yield* conversation(org, customer)
        const id = messageId("reply")
        const raw = yield* mail({
          from: customer,
          to: addressOf(org, "desk"),
          subject: `Re: Parcel missing [#${c.ticket.public_id}]`,
          text: [
            "Thanks, it arrived this morning.",
            "",
            "On Tue, 24 Nov 2026 at 10:00, Desk <desk@example.com> wrote:",
            "> We are looking into it.",
            ">",
            "> Old history"
          ].join("\n"),
          messageId: id,
          inReplyTo: c.replyMessageId,
          references: [c.createId, c.replyMessageId]
        })
        yield* deliver(way, org, addressOf(org, "desk"), raw, customer)
        const record = yield* inboundRecord(org, id)
        assert.strictEqual(record?.outcome, "message")
        assert.strictEqual(Number(record!.ticketId), c.ticket.id)
        const messages = yield* messagesOf(org, c.ticket.id)
        const added = messages.find((m) => m.id === Number(record!.messageId))!
        assert.strictEqual(added.role, "customer")
        assert.strictEqual(added.content, "Thanks, it arrived this morning.")
        assert.notInclude(added.content, "Old history")
        // The quoted history is in the raw source.
        assert.include(yield* rawSource(record!.rawKey!), "Old history")

        // A reply to the customer's own mail threads too (its Message-ID was recorded).
        const followUp = yield* mailDesk(way, org, {
          from: customer,
          subject: "One more thing",
          text: "The box was damaged, though.",
          inReplyTo: id
        })
        assert.strictEqual(Number((yield* inboundRecord(org, followUp))!.ticketId), c.ticket.id)
      })
    )

    it.scoped(`${way}: a reply threads by the subject's ticket number from its customer only`, () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const customer = Fixtures.uniqueEmail("sam")
        const t = yield* Tickets.ticket(org, { customer_email: customer })
        const byCustomer = yield* mailDesk(way, org, {
          from: customer,
          subject: `RE: Parcel missing [#${t.public_id}]`,
          text: "Any news?"
        })
        const record = yield* inboundRecord(org, byCustomer)
        assert.strictEqual(record?.outcome, "message")
        assert.strictEqual(Number(record!.ticketId), t.id)
        // Someone else naming the number opens their own ticket.
        const stranger = Fixtures.uniqueEmail("stranger")
        const byStranger = yield* mailDesk(way, org, {
          from: stranger,
          subject: `Re: [#${t.public_id}]`,
          text: "Let me in."
        })
        const strangers = yield* inboundRecord(org, byStranger)
        assert.strictEqual(strangers?.outcome, "ticket")
        assert.notStrictEqual(Number(strangers!.ticketId), t.id)
      })
    )

    it.scoped(`${way}: a reply to a snoozed ticket unsnoozes it (customer_reply)`, () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const customer = Fixtures.uniqueEmail("snoozer")
        const c = yield* conversation(org, customer)
        const until = new Date(Date.now() + 86_400_000).toISOString()
        const snoozed = yield* Tickets.snoozeTicket(org, c.ticket.id, until)
        assert.strictEqual(snoozed.status, 200, snoozed.text)
        assert.isNotNull(snoozed.body.snoozed_until)
        yield* mailDesk(way, org, {
          from: customer,
          subject: "Re: Parcel missing",
          text: "Still waiting.",
          inReplyTo: c.replyMessageId
        })
        const t = yield* Tickets.readTicketBody(org, c.ticket.id)
        assert.isNull(t.snoozed_until)
        assert.strictEqual(t.last_unsnooze_reason, "customer_reply")
      })
    )

    it.scoped(`${way}: a reply to a merged-away ticket goes to the survivor`, () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const customer = Fixtures.uniqueEmail("merged")
        const c = yield* conversation(org, customer)
        const survivor = yield* Tickets.ticket(org, { subject: "Survivor", customer_email: customer })
        const merged = yield* post(Tickets.ticketPath(org, c.ticket.id, "merge/"), {
          token: org.ownerToken,
          json: { into: survivor.id }
        })
        assert.strictEqual(merged.status, 200, merged.text)
        const id = yield* mailDesk(way, org, {
          from: customer,
          subject: "Re: Parcel missing",
          text: "Hello again.",
          inReplyTo: c.replyMessageId
        })
        const messages = yield* messagesOf(org, survivor.id)
        assert.isTrue(
          messages.some((m) => m.role === "customer" && m.content === "Hello again."),
          JSON.stringify(messages.map((m) => m.content))
        )
        assert.strictEqual((yield* inboundRecord(org, id))?.outcome, "message")
      })
    )

    it.scoped(`${way}: auto-replies, bulk mail and our own mail are ignored`, () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const customer = Fixtures.uniqueEmail("away")
        const c = yield* conversation(org, customer)
        const before = (yield* messagesOf(org, c.ticket.id)).length
        const cases: ReadonlyArray<{ headers?: Record<string, string>; messageId: string; reason: string }> = [
          { headers: { "Auto-Submitted": "auto-replied" }, messageId: messageId("ooo"), reason: "Auto-Submitted" },
          { headers: { Precedence: "bulk" }, messageId: messageId("bulk"), reason: "Precedence" },
          { headers: { "X-Autoreply": "yes" }, messageId: messageId("x-auto"), reason: "X-Autoreply" },
          // Our own reply, come back (the inbox was in CC, a forwarding loop).
          { messageId: c.replyMessageId, reason: "Our own mail" }
        ]
        for (const one of cases) {
          yield* mailDesk(way, org, {
            from: customer,
            subject: "Out of office: Re: Parcel missing",
            text: "I am away until Monday.",
            messageId: one.messageId,
            inReplyTo: c.replyMessageId,
            ...(one.headers === undefined ? {} : { headers: one.headers })
          })
          const record = yield* inboundRecord(org, one.messageId)
          assert.strictEqual(record?.outcome, "ignored", one.reason)
          assert.include(record!.reason, one.reason)
        }
        // `Auto-Submitted: no` is a person's mail.
        const person = yield* mailDesk(way, org, {
          from: customer,
          subject: "Re: Parcel missing",
          text: "Back now.",
          inReplyTo: c.replyMessageId,
          headers: { "Auto-Submitted": "no" }
        })
        assert.strictEqual((yield* inboundRecord(org, person))?.outcome, "message")
        assert.strictEqual((yield* messagesOf(org, c.ticket.id)).length, before + 1)
      })
    )

    it.scoped(`${way}: a delivery status notification marks the mail it returns failed, never past read`, () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const customer = Fixtures.uniqueEmail("bounced")
        const c = yield* conversation(org, customer)
        const dsn = (returned: string, id: string, status = "5.1.1", action = "failed") =>
          deliveryStatusNotification({
            to: addressOf(org, "desk"),
            messageId: id,
            date: new Date(),
            boundary: "BOUNDARY",
            recipient: customer,
            action,
            status,
            diagnostic: [
              `Diagnostic-Code: smtp; 550 ${status} <${customer}>: Recipient address`,
              `    rejected: User unknown`
            ],
            returnedHeaders: [
              `From: Desk <${addressOf(org, "desk")}>`,
              `To: ${customer}`,
              `Subject: Re: Parcel missing`,
              `Message-ID: ${returned}`
            ]
          })
        const send = (raw: string) =>
          way === "http"
            ? Effect.map(postMail(org, raw), (response) => assert.strictEqual(response.status, 200, response.text))
            : Effect.map(sendSmtp({ from: "", to: [addressOf(org, "desk")] }, raw), (answer) =>
                assert.isTrue(answer.accepted, JSON.stringify(answer))
              )

        // A delay is not a failure.
        const delayed = messageId("delayed")
        yield* send(dsn(c.replyMessageId, delayed, "4.4.7", "delayed"))
        assert.strictEqual((yield* inboundRecord(org, delayed))?.outcome, "ignored")

        // The reply bounced.
        const bounced = messageId("dsn")
        yield* send(dsn(c.replyMessageId, bounced))
        assert.strictEqual((yield* inboundRecord(org, bounced))?.outcome, "bounce")
        const reply = (yield* messagesOf(org, c.ticket.id)).find((m) => m.id === c.replyId)!
        assert.strictEqual(reply.delivery_status, "failed")
        assert.include(reply.delivery_failure_reason, "5.1.1")
        assert.include(reply.delivery_failure_reason, "User unknown")
        // No ticket and no message came of the bounce.
        assert.strictEqual((yield* messagesOf(org, c.ticket.id)).filter((m) => m.role === "customer").length, 0)

        // The create-email was read (its pixel fetched): a bounce arriving later does not move it back.
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ id: string }>`SELECT id FROM hd_outbox WHERE rfc_message_id = ${c.createId}`
        const token = yield* Effect.flatMap(ReadReceipts, (receipts) => receipts.tokenFor(Number(row!.id))).pipe(
          Effect.provide(ReadReceiptsLive)
        )
        assert.strictEqual((yield* get(`/mail/opened/${token}/`)).status, 200)
        assert.strictEqual((yield* Tickets.readTicketBody(org, c.ticket.id)).delivery_status, "read")
        const late = messageId("late-dsn")
        yield* send(dsn(c.createId, late))
        const t = yield* Tickets.readTicketBody(org, c.ticket.id)
        assert.strictEqual(t.delivery_status, "read")

        // A bounce for mail that is not ours changes nothing.
        const foreign = messageId("foreign-dsn")
        yield* send(dsn("<someone-else@elsewhere.example>", foreign))
        assert.strictEqual((yield* inboundRecord(org, foreign))?.outcome, "ignored")
      })
    )

    it.scoped(`${way}: mail from a spam customer opens a ticket marked spam; an attachment is kept`, () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const spammer = Fixtures.uniqueEmail("spammer")
        const created = yield* post(`${org.path}customers/`, {
          token: org.ownerToken,
          json: { email: spammer, is_spam: true }
        })
        assert.strictEqual(created.status, 201, created.text)
        const id = yield* mailDesk(way, org, {
          from: spammer,
          subject: "Cheap watches",
          text: "Buy now.",
          attachments: [{ filename: "offer.txt", content: "Only today", contentType: "text/plain" }]
        })
        const record = yield* inboundRecord(org, id)
        const t = yield* Tickets.readTicketBody(org, Number(record!.ticketId))
        assert.isTrue(t.is_spam)
        assert.deepStrictEqual(
          t.attachments.map((a: { name: string; size: number }) => [a.name, a.size]),
          [["offer.txt", 10]]
        )
      })
    )
  }

  it.scoped(
    "smtp: SIZE is announced; a declared size over it, an attachment over 50 MB and a message over the limit are refused",
    () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const { port } = yield* InboundSmtp
        const replies = yield* smtpDialogue(port, [
          "EHLO client.example",
          `MAIL FROM:<big@example.com> SIZE=${MAX_MESSAGE_BYTES + 1}`,
          "QUIT"
        ])
        assert.include(replies[1], `SIZE ${MAX_MESSAGE_BYTES}`)
        assert.match(replies[2]!, /^552 /)
        // An unknown mailbox is refused at RCPT (no relaying for others).
        const unknown = yield* smtpDialogue(port, [
          "EHLO client.example",
          "MAIL FROM:<a@example.com>",
          `RCPT TO:<${addressOf(org, "nobody")}>`,
          "RCPT TO:<someone@elsewhere.example>",
          "QUIT"
        ])
        assert.match(unknown[3]!, /^550 /)
        assert.match(unknown[4]!, /^550 /)

        const sender = Fixtures.uniqueEmail("huge")
        const over = yield* sendSmtp(
          { from: sender, to: [addressOf(org, "desk")] },
          yield* mail({
            from: sender,
            to: addressOf(org, "desk"),
            subject: "Big file",
            text: "See attached.",
            attachments: [{ filename: "big.bin", content: bigFile(MAX_UPLOAD_BYTES + 1) }]
          })
        )
        assert.isFalse(over.accepted)
        assert.strictEqual((over as { code: number }).code, 552)
        assert.include((over as { text: string }).text, "big.bin")
        // Past the message limit itself: refused by size while it streams.
        const tooLong = yield* sendSmtp(
          { from: sender, to: [addressOf(org, "desk")] },
          Buffer.concat([
            Buffer.from(`From: ${sender}\r\nTo: ${addressOf(org, "desk")}\r\nSubject: Long\r\n\r\n`),
            Buffer.alloc(MAX_MESSAGE_BYTES, "a\r\n")
          ])
        )
        assert.isFalse(tooLong.accepted)
        assert.strictEqual((tooLong as { code: number }).code, 552)
        assert.strictEqual((yield* ticketsOf(org)).filter((one) => one.customer.email === sender).length, 0)
      }),
    HEAVY
  )

  it.scoped(
    "http: an attachment of exactly 50 MB is taken, one byte more is 413; HTML attachments 400",
    () =>
      Effect.gen(function* () {
        const { org } = yield* setup
        const sender = Fixtures.uniqueEmail("edge")
        const withFile = (bytes: number, filename = "data.bin", contentType = "application/octet-stream") =>
          mail({
            from: sender,
            to: addressOf(org, "desk"),
            subject: "A file",
            text: "See attached.",
            messageId: messageId("file"),
            attachments: [{ filename, content: bigFile(bytes), contentType }]
          })
        const over = yield* postMail(org, yield* withFile(MAX_UPLOAD_BYTES + 1))
        assert.strictEqual(over.status, 413, over.text)
        assert.deepStrictEqual(over.body, {
          detail: `Attachment "data.bin" is too large. The limit is 50 MB (52,428,800 bytes).`
        })
        const html = yield* postMail(org, yield* withFile(10, "page.html", "text/html"))
        assert.strictEqual(html.status, 400, html.text)
        assert.include(html.body.detail, "HTML and SVG")
        assert.strictEqual((yield* ticketsOf(org)).filter((one) => one.customer.email === sender).length, 0)

        const edge = yield* postMail(org, yield* withFile(MAX_UPLOAD_BYTES))
        assert.strictEqual(edge.status, 200, edge.text)
        const t = yield* Tickets.readTicketBody(org, edge.body.ticket_id)
        assert.strictEqual(t.attachments[0].size, MAX_UPLOAD_BYTES)

        const huge = yield* postMail(org, Buffer.alloc(MAX_MESSAGE_BYTES + 1, "a"))
        assert.strictEqual(huge.status, 413, huge.text)
        assert.deepStrictEqual(huge.body, {
          detail: `The message is too large. The limit is 72 MB (${MAX_MESSAGE_BYTES.toLocaleString("en")} bytes).`
        })
      }),
    HEAVY
  )

  it.scoped("http: only integration tokens deliver, only message/rfc822, and a body that is no mail is 400", () =>
    Effect.gen(function* () {
      const { org } = yield* setup
      const raw = yield* mail({ from: "x@example.com", to: addressOf(org, "desk"), subject: "Hi", text: "Hi" })
      const person = yield* postMail(org, raw, { token: org.ownerToken })
      assert.strictEqual(person.status, 403, person.text)
      assert.deepStrictEqual(person.body, { detail: "Only integration tokens may deliver inbound e-mail." })
      const json = yield* postMail(org, "{}", { contentType: "application/json" })
      assert.strictEqual(json.status, 415, json.text)
      const none = yield* postMail(org, raw, { token: "" })
      assert.strictEqual(none.status, 401, none.text)
      const empty = yield* postMail(org, "")
      assert.strictEqual(empty.status, 400, empty.text)
      const noFrom = yield* postMail(org, "Subject: hello\r\n\r\nno sender here\r\n")
      assertRefused(noFrom, { detail: "The message has no From address." })
      // Mail to an address the organization has no inbox for goes to its default inbox.
      const other = yield* postMail(
        org,
        yield* mail({ from: Fixtures.uniqueEmail("x"), to: "help@acme.example", subject: "Hi", text: "Hello" })
      )
      assert.strictEqual(other.status, 200, other.text)
      assert.strictEqual((yield* Tickets.readTicketBody(org, other.body.ticket_id)).inbox.name, "Desk")
      // Forwarded from the organization's own domain: the local part names the inbox.
      const forwarded = yield* postMail(
        org,
        yield* mail({ from: Fixtures.uniqueEmail("x"), to: "billing@acme.example", subject: "Hi", text: "Hello" })
      )
      assert.strictEqual((yield* Tickets.readTicketBody(org, forwarded.body.ticket_id)).inbox.name, "Billing")
    })
  )
})
