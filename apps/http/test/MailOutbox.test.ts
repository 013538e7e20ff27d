import { assert, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Schedule } from "effect"
import { BlobStoreLive } from "../src/Attachments/BlobStore.js"
import { MailOutbox } from "../src/Mail/MailOutbox.js"
import { smtpTransport } from "../src/Mail/MailTransport.js"
import { mailWorkerLayer } from "../src/Mail/MailWorker.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import {
  afterEachSend,
  crashingAfterFirstSend,
  header,
  later,
  outboxRows,
  outboxWith,
  smtpAndTicket,
  smtpLayer,
  testOptions,
  testSmtpServer,
  withOutbox
} from "./MailSupport.js"
import { uniqueEmail } from "./support/Fixtures.js"
import { get, TestAppLive } from "./support/TestApp.js"
import { ISO_MS, organization, postMessage, readTicket, readTicketBody, ticket, ticketPath } from "./TicketsSupport.js"

layer(TestAppLive, { excludeTestServices: true })("mail outbox over SMTP", (it) => {
  it.scoped(
    "create-email and a reply: headers, threading, CC in headers, BCC only in the envelope; sent recorded",
    () =>
      Effect.gen(function* () {
        const org = yield* organization
        const smtp = yield* testSmtpServer()
        const to = uniqueEmail("jane")
        const t = yield* ticket(org, {
          customer_email: to,
          external_recipient_emails: ["boss@example.com"],
          bcc_recipient_emails: ["audit@example.com"]
        })
        assert.strictEqual(t.delivery_status, "pending")
        const reply = yield* postMessage(org, t.id, {
          content: "We are on it.",
          external_recipient_emails: ["team@example.com"],
          bcc_recipient_emails: ["archive@example.com"]
        })
        assert.strictEqual(reply.status, 201, reply.text)

        const round = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
        assert.include(round, { sent: 2, failed: 0, retried: 0, crashed: 0 })
        assert.isAtLeast(round.recorded, 2)

        const [createRow, replyRow] = yield* outboxRows(t.id)
        assert.strictEqual(createRow!.status, "sent")
        assert.strictEqual(replyRow!.status, "sent")
        const orgDomain = `${org.organization.public_id.toLowerCase().replace(/_/g, "-")}.helpdesk.localhost`
        assert.strictEqual(createRow!.rfcMessageId, `<ticket-${t.id}@${orgDomain}>`)
        assert.strictEqual(replyRow!.rfcMessageId, `<ticket-${t.id}.${replyRow!.id}@${orgDomain}>`)

        const [created] = smtp.withMessageId(createRow!.rfcMessageId!)
        assert.isDefined(created)
        assert.strictEqual(smtp.withMessageId(createRow!.rfcMessageId!).length, 1)
        assert.sameMembers([...created!.envelope.to], [to, "boss@example.com", "audit@example.com"])
        assert.strictEqual(created!.envelope.from, `support@${orgDomain}`)
        assert.strictEqual(header(created!, "from"), `${org.organization.name} <support@${orgDomain}>`)
        assert.strictEqual(header(created!, "to"), to)
        assert.strictEqual(header(created!, "cc"), "boss@example.com")
        assert.isUndefined(header(created!, "bcc"))
        assert.notInclude(created!.raw, "audit@example.com")
        assert.strictEqual(header(created!, "subject"), `Parcel missing [#${t.public_id}]`)
        assert.isUndefined(header(created!, "in-reply-to"))
        assert.include(created!.raw, "/mail/opened/")

        const [replied] = smtp.withMessageId(replyRow!.rfcMessageId!)
        assert.isDefined(replied)
        assert.sameMembers([...replied!.envelope.to], [to, "team@example.com", "archive@example.com"])
        assert.strictEqual(header(replied!, "cc"), "team@example.com")
        assert.isUndefined(header(replied!, "bcc"))
        assert.notInclude(replied!.raw, "archive@example.com")
        assert.strictEqual(header(replied!, "in-reply-to"), createRow!.rfcMessageId!)
        assert.strictEqual(header(replied!, "references"), createRow!.rfcMessageId!)
        assert.strictEqual(header(replied!, "subject"), `Re: Parcel missing [#${t.public_id}]`)

        const after = yield* readTicketBody(org, t.id)
        assert.strictEqual(after.delivery_status, "sent")
        assert.match(after.sent_at, ISO_MS)
        assert.strictEqual(after.failed_at, null)
        const messages = (yield* get(ticketPath(org, t.id, "messages/"), { token: org.ownerToken })).body.results
        const m = messages.find((x: { id: number }) => x.id === reply.body.id)
        assert.strictEqual(m.delivery_status, "sent")
        assert.match(m.sent_at, ISO_MS)

        // Nothing left: another round claims nothing of this ticket and sends nothing.
        yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce({ now: later() }))
        assert.strictEqual(smtp.received.length, 2)
      })
  )

  it.scoped(
    "a CC refused with 550 while To is accepted: sent, with the refused address and why, on ticket and message",
    () =>
      Effect.gen(function* () {
        const org = yield* organization
        const smtp = yield* testSmtpServer({
          onRcptTo: (address) =>
            address.startsWith("gone-") ? { code: 550, message: "5.1.1 Mailbox unavailable" } : "accept"
        })
        const to = uniqueEmail("partly")
        const refusedCc = uniqueEmail("gone")
        const t = yield* ticket(org, { customer_email: to, external_recipient_emails: [refusedCc, "boss@example.com"] })
        const reply = (yield* postMessage(org, t.id, { content: "Answer to all." })).body
        const round = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
        assert.include(round, { sent: 2, failed: 0, recorded: 2 })
        assert.strictEqual(smtp.to(to).length, 2)
        assert.strictEqual(smtp.to(refusedCc).length, 0)
        const after = yield* readTicketBody(org, t.id)
        assert.strictEqual(after.delivery_status, "sent")
        assert.isNull(after.failed_at)
        assert.include(after.delivery_failure_reason, refusedCc)
        assert.include(after.delivery_failure_reason, "550")
        assert.include(after.delivery_failure_reason, "Mailbox unavailable")
        assert.notInclude(after.delivery_failure_reason, "boss@example.com")
        const message = (yield* get(ticketPath(org, t.id, `messages/${reply.id}/`), { token: org.ownerToken })).body
        assert.strictEqual(message.delivery_status, "sent")
        assert.include(message.delivery_failure_reason, refusedCc)
        // Fully delivered mail keeps an empty reason.
        const clean = yield* ticket(org, { customer_email: uniqueEmail("clean") })
        yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
        const cleanAfter = yield* readTicketBody(org, clean.id)
        assert.strictEqual(cleanAfter.delivery_status, "sent")
        assert.strictEqual(cleanAfter.delivery_failure_reason, "")
      })
  )

  it.scoped("a 5xx rejection: failed with the server's reason in GET ticket; never retried", () =>
    Effect.gen(function* () {
      const { org, smtp, t } = yield* smtpAndTicket("nobody", {
        onRcptTo: (address) =>
          address.startsWith("nobody-") ? { code: 550, message: "5.1.1 No such user here" } : "accept"
      })
      const round = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      assert.include(round, { sent: 0, failed: 1, recorded: 1 })
      const after = yield* readTicketBody(org, t.id)
      assert.strictEqual(after.delivery_status, "failed")
      assert.match(after.failed_at, ISO_MS)
      assert.strictEqual(after.sent_at, null)
      assert.include(after.delivery_failure_reason, "550")
      assert.include(after.delivery_failure_reason, "No such user here")
      const [row] = yield* outboxRows(t.id)
      assert.strictEqual(row!.status, "failed")
      assert.strictEqual(row!.attempts, 1)
      const again = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce({ now: later() }))
      assert.strictEqual(again.claimed, 0)
      assert.strictEqual(smtp.received.length, 0)
    })
  )

  it.scoped("a 4xx: retried later with backoff, then sent", () =>
    Effect.gen(function* () {
      const { org, smtp, t } = yield* smtpAndTicket("jo", {
        onData: (attempt) => (attempt === 1 ? { code: 451, message: "4.3.0 Try again later" } : "accept")
      })
      const first = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      assert.include(first, { sent: 0, failed: 0, retried: 1 })
      const [pending] = yield* outboxRows(t.id)
      assert.strictEqual(pending!.status, "pending")
      assert.include(pending!.lastError, "451")
      assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "pending")
      // Not due yet: the retry waits at least half the base delay.
      const early = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      assert.strictEqual(early.claimed, 0)

      const second = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce({ now: later() }))
      assert.include(second, { sent: 1, recorded: 1 })
      const [row] = yield* outboxRows(t.id)
      assert.strictEqual(row!.status, "sent")
      assert.strictEqual(row!.attempts, 2)
      assert.strictEqual(smtp.withMessageId(row!.rfcMessageId!).length, 1)
      assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "sent")
    })
  )

  it.scoped("a connection dropped in the middle of DATA: retried, received exactly once", () =>
    Effect.gen(function* () {
      const { org, smtp, t } = yield* smtpAndTicket("drop", {
        onData: (attempt) => (attempt === 1 ? "drop" : "accept")
      })
      const first = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
      assert.include(first, { sent: 0, retried: 1 })
      const [pending] = yield* outboxRows(t.id)
      assert.strictEqual(pending!.status, "pending")
      assert.notStrictEqual(pending!.lastError, "")
      yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce({ now: later() }))
      const [row] = yield* outboxRows(t.id)
      assert.strictEqual(row!.status, "sent")
      assert.strictEqual(smtp.withMessageId(row!.rfcMessageId!).length, 1)
      assert.strictEqual(smtp.received.length, 1)
      assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "sent")
    })
  )

  it.scoped("a transient failure on every attempt: given up as failed after maxAttempts", () =>
    Effect.gen(function* () {
      const { org, smtp, t } = yield* smtpAndTicket("busy", { onData: () => ({ code: 421, message: "4.7.0 Busy" }) })
      const options = testOptions({ maxAttempts: 3 })
      for (let i = 1; i <= 3; i++)
        yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce({ now: later(i * 2) }), options)
      const [row] = yield* outboxRows(t.id)
      assert.strictEqual(row!.status, "failed")
      assert.strictEqual(row!.attempts, 3)
      const after = yield* readTicketBody(org, t.id)
      assert.strictEqual(after.delivery_status, "failed")
      assert.match(after.delivery_failure_reason, /^Gave up after 3 attempts: .*421/)
    })
  )

  it.scoped("a crash after the SMTP server accepted and the outcome was committed: never resent, sent recorded", () =>
    Effect.gen(function* () {
      const { org, smtp, t } = yield* smtpAndTicket("crash")
      let crashes = 0
      const crashing = testOptions({
        afterOutcome: () =>
          Effect.suspend(() => {
            crashes += 1
            return Effect.die(new Error("injected crash between sending and recording"))
          })
      })
      const first = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce(), crashing)
      assert.include(first, { sent: 1, crashed: 1, recorded: 0 })
      assert.strictEqual(crashes, 1)
      const [leased] = yield* outboxRows(t.id)
      assert.strictEqual(leased!.status, "sending")
      assert.strictEqual(leased!.outcome, "sent")
      assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "pending")
      // Still leased: a round before the lease expires leaves it alone.
      assert.strictEqual((yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())).claimed, 0)

      const second = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce({ now: later() }))
      assert.include(second, { claimed: 1, sent: 0, recorded: 1 })
      const [row] = yield* outboxRows(t.id)
      assert.strictEqual(row!.status, "sent")
      assert.strictEqual(row!.attempts, 1)
      assert.strictEqual(smtp.received.length, 1)
      assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "sent")
    })
  )

  it.scoped(
    "a crash between the SMTP server's 250 and our commit (the real transport wrapped): resent once, same Message-ID",
    () =>
      Effect.gen(function* () {
        const { org, smtp, t } = yield* smtpAndTicket("window")
        const crashAfterSend = crashingAfterFirstSend(smtpTransport(smtp.url), "injected crash after the 250").layer
        const first = yield* withOutbox(crashAfterSend, (outbox) => outbox.drainOnce())
        assert.include(first, { crashed: 1, sent: 0 })
        const [leased] = yield* outboxRows(t.id)
        assert.strictEqual(leased!.status, "sending")
        assert.strictEqual(leased!.outcome, null)
        assert.strictEqual(smtp.received.length, 1)

        yield* withOutbox(crashAfterSend, (outbox) => outbox.drainOnce({ now: later() }))
        const [row] = yield* outboxRows(t.id)
        assert.strictEqual(row!.status, "sent")
        // The documented window: the mail went out twice, under one Message-ID, so receivers can de-duplicate.
        assert.strictEqual(smtp.received.length, 2)
        assert.strictEqual(smtp.withMessageId(row!.rfcMessageId!).length, 2)
        const after = yield* readTicketBody(org, t.id)
        assert.strictEqual(after.delivery_status, "sent")
      })
  )

  it.scoped("a row whose lease passed to another worker while it waited in its batch is not sent again", () =>
    Effect.gen(function* () {
      const { org, smtp, t: first } = yield* smtpAndTicket("slow")
      const second = yield* ticket(org, { customer_email: uniqueEmail("waiting") })
      // Worker A hangs on its first mail past its (short) lease; worker B takes both rows over meanwhile.
      const workerB = yield* Effect.map(Layer.build(outboxWith(smtpLayer(smtp.url))), Context.get(MailOutbox))
      let hung = false
      const hanging = afterEachSend(smtpTransport(smtp.url), (receipt) =>
        hung
          ? Effect.succeed(receipt)
          : Effect.gen(function* () {
              hung = true
              const b = yield* workerB.drainOnce({ now: later() })
              assert.include(b, { claimed: 2, sent: 2 })
              yield* Effect.sleep("300 millis")
              return receipt
            })
      )
      const a = yield* withOutbox(
        hanging,
        (outbox) => outbox.drainOnce(),
        testOptions({ lease: Duration.seconds(1), concurrency: 1 })
      )
      assert.include(a, { claimed: 2, lost: 1 })
      const [firstRow] = yield* outboxRows(first.id)
      const [secondRow] = yield* outboxRows(second.id)
      // The hung mail went out twice (its lease expired while it was being sent); the waiting one only once.
      assert.strictEqual(smtp.withMessageId(firstRow!.rfcMessageId!).length, 2)
      assert.strictEqual(smtp.withMessageId(secondRow!.rfcMessageId!).length, 1)
      assert.strictEqual(secondRow!.status, "sent")
      assert.strictEqual((yield* readTicketBody(org, second.id)).delivery_status, "sent")
    })
  )

  it.scoped("the polling worker sends on its own, within its poll interval", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const smtp = yield* testSmtpServer()
      yield* Layer.build(
        mailWorkerLayer(testOptions({ pollInterval: Duration.millis(50) })).pipe(
          Layer.provide(smtpLayer(smtp.url)),
          Layer.provide(BlobStoreLive),
          Layer.provide(TicketServicesLive)
        )
      )
      const t = yield* ticket(org, { customer_email: uniqueEmail("polled") })
      const status = yield* readTicket(org, t.id).pipe(
        Effect.map((response) => response.body.delivery_status as string),
        Effect.filterOrFail((s) => s === "sent"),
        Effect.retry(Schedule.spaced("50 millis")),
        Effect.timeout("30 seconds")
      )
      assert.strictEqual(status, "sent")
      assert.strictEqual(smtp.received.length, 1)
    })
  )

  it.effect("the pixel is in /openapi.json without a token requirement", () =>
    Effect.gen(function* () {
      const spec = (yield* get("/openapi.json")).body
      const pixel = spec.paths["/mail/opened/{token}/"]
      assert.isDefined(pixel?.get)
      assert.deepStrictEqual(pixel.get.security ?? [], [])
      assert.property(pixel.get.responses["200"].content, "image/gif")
    })
  )
})
