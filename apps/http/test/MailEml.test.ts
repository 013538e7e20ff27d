import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import {
  emlEnvelopeFileName,
  emlFileName,
  emlTransport,
  MailTransport,
  MailTransportLive
} from "../src/Mail/MailTransport.js"
import {
  crashingAfterFirstSend,
  later,
  outboxRows,
  parseMessage,
  ticketToNewCustomer,
  withOutbox
} from "./MailSupport.js"
import { uniqueEmail } from "./support/Fixtures.js"
import { TestAppLive } from "./support/TestApp.js"
import { organization, postMessage, readTicketBody, ticket } from "./TicketsSupport.js"

/** A temporary directory, removed with the scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "hd-mail-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const emlLayer = (dir: string) =>
  Layer.scoped(MailTransport, emlTransport(dir)).pipe(Layer.provide(NodeFileSystem.layer))

layer(TestAppLive, { excludeTestServices: true })("mail outbox without SMTP: .eml files", (it) => {
  it.scoped("without SMTP_URL, mails are written to DATA_DIR/outbox/{Message-ID}.eml and recorded as sent", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir
      const org = yield* organization
      const to = uniqueEmail("eml")
      const t = yield* ticket(org, {
        customer_email: to,
        external_recipient_emails: ["cc@example.com"],
        bcc_recipient_emails: ["hidden@example.com"]
      })
      yield* postMessage(org, t.id, { content: "Answer by file." })
      // The service's own transport choice, configured as in production.
      const transport = MailTransportLive.pipe(
        Layer.provide(Layer.succeed(SqlClient.SqlClient, yield* SqlClient.SqlClient)),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", dataDir]]))))
      )
      const round = yield* withOutbox(transport, (outbox) => outbox.drainOnce())
      assert.include(round, { sent: 2, recorded: 2, crashed: 0 })
      const rows = yield* outboxRows(t.id)
      const outboxDir = path.join(dataDir, "outbox")
      assert.sameMembers(
        fs.readdirSync(outboxDir),
        rows.flatMap((r) => [emlFileName(r.rfcMessageId!), emlEnvelopeFileName(r.rfcMessageId!)])
      )
      // The envelope beside each file names every recipient, BCC included (the file itself has no Bcc header).
      const envelopeOf = (messageId: string) =>
        JSON.parse(fs.readFileSync(path.join(outboxDir, emlEnvelopeFileName(messageId)), "utf8"))
      const created = envelopeOf(rows[0]!.rfcMessageId!)
      assert.sameMembers(created.rcpt_to, [to, "cc@example.com", "hidden@example.com"])
      assert.match(created.mail_from, /^support@/)
      assert.sameMembers(envelopeOf(rows[1]!.rfcMessageId!).rcpt_to, [to, "cc@example.com"])
      for (const row of rows) {
        assert.strictEqual(row.status, "sent")
        const raw = fs.readFileSync(path.join(outboxDir, emlFileName(row.rfcMessageId!)), "utf8")
        assert.include(raw, "\r\n")
        assert.notMatch(raw, /[^\r]\n/)
        const { headers } = parseMessage(raw)
        assert.deepStrictEqual(headers.get("message-id"), [row.rfcMessageId!])
        assert.deepStrictEqual(headers.get("to"), [to])
        assert.isUndefined(headers.get("bcc"))
        assert.notInclude(raw, "hidden@example.com")
      }
      assert.deepStrictEqual(
        parseMessage(fs.readFileSync(path.join(outboxDir, emlFileName(rows[0]!.rfcMessageId!)), "utf8")).headers.get(
          "cc"
        ),
        ["cc@example.com"]
      )
      assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "sent")
    })
  )

  it.scoped("a crash after the file was written: the next worker finds the file, never rewrites it, records sent", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const { org, t } = yield* ticketToNewCustomer("crash-eml")
      const crashing = crashingAfterFirstSend(emlTransport(dir), "injected crash after writing")
      const crashAfterWrite = crashing.layer.pipe(Layer.provide(NodeFileSystem.layer))
      const first = yield* withOutbox(crashAfterWrite, (outbox) => outbox.drainOnce())
      assert.include(first, { crashed: 1, sent: 0 })
      const [leased] = yield* outboxRows(t.id)
      assert.strictEqual(leased!.status, "sending")
      assert.strictEqual(leased!.outcome, null)
      const file = path.join(dir, emlFileName(leased!.rfcMessageId!))
      const before = fs.statSync(file)

      const second = yield* withOutbox(crashAfterWrite, (outbox) => outbox.drainOnce({ now: later() }))
      assert.include(second, { claimed: 1, sent: 1, recorded: 1 })
      assert.strictEqual(crashing.sends(), 1, "the transport was not asked to send again")
      const after = fs.statSync(file)
      assert.strictEqual(after.ino, before.ino)
      assert.strictEqual(after.mtimeMs, before.mtimeMs)
      assert.sameMembers(fs.readdirSync(dir), [
        emlFileName(leased!.rfcMessageId!),
        emlEnvelopeFileName(leased!.rfcMessageId!)
      ])
      const [row] = yield* outboxRows(t.id)
      assert.strictEqual(row!.status, "sent")
      assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "sent")
    })
  )

  it.scoped("the plain .eml transport never writes a Message-ID twice and leaves no partial files", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const { t } = yield* ticketToNewCustomer("once")
      yield* withOutbox(emlLayer(dir), (outbox) => outbox.drainOnce())
      const [row] = yield* outboxRows(t.id)
      assert.strictEqual(row!.status, "sent")
      assert.sameMembers(fs.readdirSync(dir), [
        emlFileName(row!.rfcMessageId!),
        emlEnvelopeFileName(row!.rfcMessageId!)
      ])
      const transport = yield* Effect.provide(MailTransport, emlLayer(dir))
      assert.isTrue(yield* transport.alreadySent(row!.rfcMessageId!))
      assert.isFalse(yield* transport.alreadySent("<someone-else@example.com>"))
    })
  )
})
