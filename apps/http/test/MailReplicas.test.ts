import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { clientOptions } from "../src/Database/Database.js"
import * as PgPool from "../src/Database/PgPool.js"
import { MailOutbox, type MailOutboxOptions } from "../src/Mail/MailOutbox.js"
import { ServicesLive } from "../src/Services.js"
import { later, outboxWith, smtpLayer, testOptions, testSmtpServer } from "./MailSupport.js"
import { TestAppLive } from "./support/TestApp.js"
import { databaseUrl, usesRealPostgres } from "./support/TestDatabase.js"
import { organization, readTicketBody, ticket } from "./TicketsSupport.js"

/**
 * A worker instance of its own, as another replica would run it: its own connection pool to the database, its own
 * services and its own SMTP connections.
 */
const instance = (url: string, smtpUrl: string, options: MailOutboxOptions) =>
  Layer.build(
    outboxWith(smtpLayer(smtpUrl), options).pipe(
      Layer.provide(ServicesLive),
      Layer.provide(
        PgPool.layer({ url: Redacted.make(url), maxConnections: 4, namedStatements: true, ...clientOptions })
      )
    )
  ).pipe(Effect.map(Context.get(MailOutbox)))

const N = 40

describe.runIf(usesRealPostgres)("mail outbox: two instances on one database", () => {
  layer(TestAppLive, { excludeTestServices: true })("replicas", (it) => {
    it.scoped("two workers drain the outbox concurrently: every Message-ID is received exactly once", () =>
      Effect.gen(function* () {
        const url = yield* databaseUrl
        const smtp = yield* testSmtpServer()
        const org = yield* organization
        const tickets = yield* Effect.forEach(
          Array.from({ length: N }, (_, i) => i),
          (i) => ticket(org, { customer_email: `replica-${i}@example.com` }),
          { concurrency: 4 }
        )
        const options = testOptions({ batchSize: 3, concurrency: 2 })
        const a = yield* instance(url, smtp.url, options)
        const b = yield* instance(url, smtp.url, options)
        const [claimedA, claimedB] = yield* Effect.all([a.drain(), b.drain()], { concurrency: 2 })
        assert.strictEqual(claimedA + claimedB, N)
        assert.isAbove(claimedA, 0, "the first instance took part")
        assert.isAbove(claimedB, 0, "the second instance took part")

        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ rfcMessageId: string; status: string; attempts: number }>`
          SELECT rfc_message_id, status, attempts FROM hd_outbox WHERE organization_id = ${org.organization.id}`
        assert.strictEqual(rows.length, N)
        for (const row of rows) {
          assert.strictEqual(row.status, "sent")
          assert.strictEqual(row.attempts, 1)
          assert.strictEqual(smtp.withMessageId(row.rfcMessageId).length, 1, row.rfcMessageId)
        }
        assert.strictEqual(smtp.received.length, N)
        for (const t of tickets) assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "sent")
      })
    )

    it.scoped(
      "one instance crashes after sending; the other takes its rows over after the lease and resends nothing",
      () =>
        Effect.gen(function* () {
          const url = yield* databaseUrl
          const smtp = yield* testSmtpServer()
          const org = yield* organization
          const tickets = yield* Effect.forEach(
            Array.from({ length: 10 }, (_, i) => i),
            (i) => ticket(org, { customer_email: `takeover-${i}@example.com` }),
            { concurrency: 4 }
          )
          const crashing = yield* instance(
            url,
            smtp.url,
            testOptions({ afterOutcome: () => Effect.die(new Error("injected crash: the replica went away")) })
          )
          const survivor = yield* instance(url, smtp.url, testOptions({ batchSize: 4 }))
          const crashed = yield* crashing.drainOnce()
          assert.include(crashed, { claimed: 10, sent: 10, crashed: 10 })
          // Leased: the other replica leaves them alone until the lease expires.
          assert.strictEqual((yield* survivor.drainOnce()).claimed, 0)
          const recovered = yield* survivor.drain({ now: later() })
          assert.strictEqual(recovered, 10)
          assert.strictEqual(smtp.received.length, 10)
          for (const t of tickets) assert.strictEqual((yield* readTicketBody(org, t.id)).delivery_status, "sent")
        })
    )
  })
})
