import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Fiber, Layer, Schedule } from "effect"
import { MailOutbox } from "../src/Mail/MailOutbox.js"
import { MailTransport } from "../src/Mail/MailTransport.js"
import { outboxRows, outboxWith, smtpLayer, testOptions, testSmtpServer } from "./MailSupport.js"
import { TestAppLive } from "./support/TestApp.js"
import { organization, ticket } from "./TicketsSupport.js"

/** A short lease, so that the tests wait in seconds what production waits in half minutes. */
const LEASE = Duration.seconds(1)
const options = testOptions({ lease: LEASE })

const customer = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.com`

/** A worker instance over `transport`, living as long as the test's scope. */
const worker = (transport: Layer.Layer<MailTransport>) =>
  Effect.map(Layer.build(outboxWith(transport, options)), Context.get(MailOutbox))

/** A transport whose sends never finish (a process frozen in the middle of a mail), until its fiber is killed. */
const frozen = Layer.succeed(
  MailTransport,
  MailTransport.of({
    kind: "frozen",
    alreadySent: () => Effect.succeed(false),
    send: () => Effect.interruptible(Effect.never)
  })
)

/** The worker columns of a ticket's create-email row, with its lease. */
const leaseOf = (ticketId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ status: string; leaseToken: string | null; leaseLeftMs: number }>`
      SELECT status, lease_token, (extract(epoch FROM next_attempt_at - now()) * 1000)::float8 AS lease_left_ms
      FROM hd_outbox WHERE ticket_id = ${ticketId} AND kind = 'ticket_created'`
  ).pipe(
    Effect.map((rows) => rows[0]!),
    Effect.orDie
  )

layer(TestAppLive, { excludeTestServices: true, timeout: "60 seconds" })(
  "mail leases: renewed while a worker lives (docs/decisions/0750-mail-delivery.md)",
  (it) => {
    it.scoped("the rows of a worker that dies mid-send are taken over within one lease of its death", () =>
      Effect.gen(function* () {
        const org = yield* organization
        const smtp = yield* testSmtpServer()
        const t = yield* ticket(org, { customer_email: customer("orphan") })
        const dying = yield* worker(frozen)
        const survivor = yield* worker(smtpLayer(smtp.url))

        const running = yield* Effect.fork(dying.drainOnce())
        yield* leaseOf(t.id).pipe(
          Effect.filterOrFail((row) => row.status === "sending"),
          Effect.retry(Schedule.spaced("20 millis"))
        )
        // Alive for more than two leases: its heartbeat keeps the row, the other worker finds nothing due.
        for (let i = 0; i < 5; i++) {
          yield* Effect.sleep("500 millis")
          assert.strictEqual((yield* survivor.drainOnce()).claimed, 0, "taken over while its worker lived")
        }

        // kill -9: the fiber stops, nothing is released; the row keeps its lease until it runs out.
        yield* Fiber.interrupt(running)
        const died = yield* Clock.currentTimeMillis
        const orphan = yield* leaseOf(t.id)
        assert.strictEqual(orphan.status, "sending")
        assert.isNotNull(orphan.leaseToken)
        assert.isAtMost(orphan.leaseLeftMs, Duration.toMillis(LEASE) + 100)

        const claimed = yield* survivor.drainOnce().pipe(
          Effect.filterOrFail((round) => round.claimed === 1),
          Effect.retry(Schedule.spaced("50 millis")),
          Effect.timeout("10 seconds")
        )
        const tookOver = (yield* Clock.currentTimeMillis) - died
        assert.include(claimed, { sent: 1, recorded: 1 })
        assert.isAtMost(tookOver, Duration.toMillis(LEASE) + 1000, "taken over about one lease after the death")
        const [row] = yield* outboxRows(t.id)
        assert.strictEqual(row!.status, "sent")
        assert.strictEqual(smtp.received.length, 1)
      })
    )

    it.scoped("a send slower than the lease is not taken over while its worker's heartbeat runs", () =>
      Effect.gen(function* () {
        const org = yield* organization
        const smtp = yield* testSmtpServer({ answerAfter: "3 seconds" })
        const t = yield* ticket(org, { customer_email: customer("slow") })
        const slow = yield* worker(smtpLayer(smtp.url))
        const other = yield* worker(smtpLayer(smtp.url))

        const started = yield* Clock.currentTimeMillis
        const sending = yield* Effect.fork(slow.drainOnce())
        let rounds = 0
        while (smtp.received.length === 0) {
          yield* Effect.sleep("200 millis")
          assert.strictEqual((yield* other.drainOnce()).claimed, 0, "taken over during a live send")
          rounds += 1
        }
        const result = yield* Fiber.join(sending)
        assert.isAbove(
          (yield* Clock.currentTimeMillis) - started,
          2 * Duration.toMillis(LEASE),
          "slower than the lease"
        )
        assert.isAbove(rounds, 5)
        assert.include(result, { claimed: 1, sent: 1, recorded: 1 })
        const [row] = yield* outboxRows(t.id)
        assert.strictEqual(row!.status, "sent")
        assert.strictEqual(row!.attempts, 1)
        assert.strictEqual(smtp.withMessageId(row!.rfcMessageId!).length, 1)
      })
    )
  }
)
