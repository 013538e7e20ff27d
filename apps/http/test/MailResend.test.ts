import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { BlobStoreLive } from "../src/Attachments/BlobStore.js"
import { deliveryStatusNotification, inboundRecord, postMail } from "./InboundMailSupport.js"
import { later, outboxRows, smtpLayer, testSmtpServer, withOutbox } from "./MailSupport.js"
import * as Fixtures from "./support/Fixtures.js"
import { post, TestAppLive } from "./support/TestApp.js"
import { organization, organizationWithTicket, readTicketBody, ticket, ticketPath } from "./TicketsSupport.js"

const customer = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.com`

/** A delivery status notification returning the mail `returned` sent to `recipient`. */
const bounceOf = (returned: string, recipient: string, id: string) =>
  deliveryStatusNotification({
    to: "desk@example.net",
    messageId: id,
    boundary: "B",
    recipient,
    action: "failed",
    status: "5.1.1",
    diagnostic: ["Diagnostic-Code: smtp; 550 5.1.1 User unknown"],
    returnedHeaders: [`To: ${recipient}`, `Message-ID: ${returned}`]
  })

layer(Layer.provideMerge(BlobStoreLive, TestAppLive), { excludeTestServices: true })(
  "resending a failed create-email (decision 0663)",
  (it) => {
    it.scoped("refused with 550, resent by a member: pending again, then sent with a new Message-ID", () =>
      Effect.gen(function* () {
        const org = yield* organization
        let refusing = true
        const smtp = yield* testSmtpServer({
          onRcptTo: (address) =>
            refusing && address.startsWith("moved-") ? { code: 550, message: "5.1.1 No such user here" } : "accept"
        })
        const t = yield* ticket(org, { customer_email: customer("moved") })
        const first = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce())
        assert.include(first, { sent: 0, failed: 1 })
        assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "failed")

        refusing = false
        const agent = yield* Fixtures.member(org, "member")
        const resent = yield* post(ticketPath(org, t.id, "resend-email/"), { token: agent.token })
        assert.strictEqual(resent.status, 200, resent.text)
        assert.strictEqual(resent.body.id, t.id)
        assert.strictEqual(resent.body.delivery_status, "pending")
        assert.strictEqual(resent.body.failed_at, null)
        assert.strictEqual(resent.body.delivery_failure_reason, "")

        const second = yield* withOutbox(smtpLayer(smtp.url), (outbox) => outbox.drainOnce({ now: later() }))
        assert.include(second, { sent: 1, failed: 0 })
        const [failedRow, resentRow] = yield* outboxRows(t.id)
        assert.strictEqual(failedRow!.status, "failed")
        assert.strictEqual(resentRow!.status, "sent")
        assert.notStrictEqual(resentRow!.rfcMessageId, failedRow!.rfcMessageId)
        assert.match(resentRow!.rfcMessageId!, new RegExp(`^<ticket-${t.id}\\.r${resentRow!.id}@`))
        assert.strictEqual(smtp.received.length, 1)
        assert.strictEqual(smtp.withMessageId(resentRow!.rfcMessageId!).length, 1)
        const after = yield* readTicketBody(org, t.id)
        assert.strictEqual(after.delivery_status, "sent")
        assert.strictEqual(after.failed_at, null)

        // Sent now: a second resend is refused in the documented error shape, and nothing new is queued.
        const again = yield* post(ticketPath(org, t.id, "resend-email/"), { token: agent.token })
        assert.strictEqual(again.status, 409, again.text)
        assert.include(again.body.detail, "sent")
        assert.strictEqual((yield* outboxRows(t.id)).length, 2)

        // A late bounce of the first attempt's Message-ID no longer concerns the ticket; one of the new attempt does.
        const late = `<late-${t.id}-${Date.now()}@mx.example.net>`
        const lateAnswer = yield* postMail(org, bounceOf(failedRow!.rfcMessageId!, t.customer_email, late))
        assert.strictEqual(lateAnswer.status, 200, lateAnswer.text)
        assert.strictEqual((yield* inboundRecord(org, late))?.outcome, "ignored")
        assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "sent")
        const real = `<real-${t.id}-${Date.now()}@mx.example.net>`
        yield* postMail(org, bounceOf(resentRow!.rfcMessageId!, t.customer_email, real))
        assert.strictEqual((yield* inboundRecord(org, real))?.outcome, "bounce")
        assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "failed")
      })
    )

    it.scoped("409 while the create-email is pending and for a ticket that sent none; 404 for another's ticket", () =>
      Effect.gen(function* () {
        const { org, t: pending } = yield* organizationWithTicket({ customer_email: customer("waiting") })
        const whilePending = yield* post(ticketPath(org, pending.id, "resend-email/"), { token: org.ownerToken })
        assert.strictEqual(whilePending.status, 409, whilePending.text)
        assert.include(whilePending.body.detail, "pending")
        assert.strictEqual((yield* outboxRows(pending.id)).length, 1)

        const silent = yield* ticket(
          org,
          { customer_email: customer("silent"), created_by_role: "customer" },
          org.integration
        )
        assert.strictEqual(silent.delivery_status, null)
        const none = yield* post(ticketPath(org, silent.id, "resend-email/"), { token: org.ownerToken })
        assert.strictEqual(none.status, 409, none.text)
        assert.include(none.body.detail, "no create-email")

        const other = yield* organization
        const foreign = yield* post(ticketPath(other, pending.id, "resend-email/"), { token: other.ownerToken })
        assert.strictEqual(foreign.status, 404, foreign.text)
      })
    )
  }
)
