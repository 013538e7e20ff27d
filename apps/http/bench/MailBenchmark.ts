import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Console, Context, Effect, Layer, Redacted } from "effect"
import nodemailer from "nodemailer"
import { SMTPServer } from "smtp-server"
import { BlobStoreLive } from "../src/Attachments/BlobStore.js"
import { clientOptions } from "../src/Database/Database.js"
import * as PgPool from "../src/Database/PgPool.js"
import { defaultMailOutboxOptions, MailOutbox, mailOutboxLayer } from "../src/Mail/MailOutbox.js"
import { MailTransport, SMTP_TIMEOUTS, smtpTransport } from "../src/Mail/MailTransport.js"
import { ServicesLive } from "../src/Services.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import { listenOnFreePort } from "../test/support/SmtpListener.js"
import { benchOrganization, describeRun, parcelTickets, runOnOwnDatabase, ticketServicesOn } from "./BenchDatabase.js"
import { type Benchmark, rateLine } from "./Benchmark.js"

/**
 * Mail throughput: messages/s from the outbox (claim, compose, SMTP, outcome, delivery event) to an in-process SMTP
 * server (smtp-server), beside a baseline in the same run: nodemailer sending the same messages straight to the same
 * server over a pool of the same size. One worker instance, then two instances with their own connection pools (as two
 * replicas would), on PostgreSQL (`DATABASE_URL`, or the local test server), in a database created for the run.
 * `BENCH_MAIL_MESSAGES` (default 1000) messages per figure, `BENCH_MAIL_CONCURRENCY` (default 4, the service's
 * `MAIL_CONCURRENCY` default) SMTP sessions and mails in flight per instance.
 */

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const MESSAGES = Number(process.env.BENCH_MAIL_MESSAGES ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_MAIL_CONCURRENCY ?? 4)

/** An SMTP server on a free port that accepts and counts everything. */
const smtpServer = Effect.gen(function* () {
  const counter = { received: 0 }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    disableReverseLookup: true,
    logger: false,
    onData: (stream, _session, callback) => {
      stream.on("end", () => {
        counter.received += 1
        callback()
      })
      stream.resume()
    }
  })
  const port = yield* listenOnFreePort(server)
  return { url: `smtp://127.0.0.1:${port}`, counter }
})

const DESCRIPTION = `Hello, the parcel I ordered two weeks ago has still not arrived and the tracking page shows no update since Monday. Could you please check what happened with my delivery? ${"Some more words about the order. ".repeat(20)}`

/** `count` tickets created by an associate, each queueing its create-email (one outbox row). */
const seedTickets = (organizationId: OrganizationId, userId: number, count: number, label: string) =>
  parcelTickets(organizationId, userId, count, label, {
    description: DESCRIPTION,
    descriptionHtml: `<p>${DESCRIPTION}</p>`,
    externalRecipientEmails: ["cc@example.com"]
  })

/** A worker instance with its own connection pool, services and SMTP pool. */
const instance = (url: string, smtpUrl: string) =>
  Layer.build(
    mailOutboxLayer({ ...defaultMailOutboxOptions, batchSize: 50, concurrency: CONCURRENCY }).pipe(
      Layer.provide(Layer.scoped(MailTransport, smtpTransport(smtpUrl, { maxConnections: CONCURRENCY }))),
      Layer.provide(BlobStoreLive),
      Layer.provide(TicketServicesLive),
      Layer.provide(ServicesLive),
      Layer.provide(
        PgPool.layer({
          url: Redacted.make(url),
          maxConnections: CONCURRENCY + 4,
          namedStatements: true,
          ...clientOptions
        })
      )
    )
  ).pipe(Effect.map(Context.get(MailOutbox)))

const line = (label: string, messages: number, seconds: number, baseline?: number) =>
  rateLine(label, 62, "messages", messages, seconds, baseline)

const timeIt = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const start = performance.now()
    const result = yield* effect
    return { result, seconds: (performance.now() - start) / 1000 }
  })

/** The baseline: the same payloads sent straight with a nodemailer pool of the same size. */
const baseline = (smtpUrl: string, payloads: ReadonlyArray<Record<string, unknown>>) =>
  Effect.acquireUseRelease(
    Effect.sync(() =>
      nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: CONCURRENCY, ...SMTP_TIMEOUTS } as never)
    ),
    (transporter) =>
      timeIt(
        Effect.forEach(
          payloads,
          (p, i) =>
            Effect.promise(() =>
              transporter.sendMail({
                from: { name: "Support", address: "support@bench.helpdesk.localhost" },
                to: p.to as string,
                cc: p.cc as Array<string>,
                subject: `${p.subject as string} [#${p.public_id as string}]`,
                text: p.text as string,
                html: p.html as string,
                messageId: `<baseline-${i}-${randomBytes(4).toString("hex")}@bench.helpdesk.localhost>`
              })
            ),
          { concurrency: CONCURRENCY * 4, discard: true }
        )
      ),
    (transporter) => Effect.sync(() => transporter.close())
  )

const run = runOnOwnDatabase(
  "mail",
  DEFAULT_URL,
  (url) => ticketServicesOn(url, 12),
  ({ database, url }) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* describeRun(database)
      yield* Console.log(
        `workload:           ${MESSAGES} create-emails (~1.5 KB text + HTML, one CC) per figure; ${CONCURRENCY} SMTP sessions and mails in flight per instance; batches of 50`
      )

      const smtp = yield* smtpServer
      const { owner, organization } = yield* benchOrganization("Bench mail")
      const outboxPayloads = sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM hd_outbox WHERE status = 'pending' ORDER BY id`

      // Warm-up: connections, plans, the tracking secret, the SMTP pools.
      yield* seedTickets(organization.id, owner.id, 50, "warm")
      const warmPayloads = (yield* outboxPayloads).map((r) => r.payload)
      yield* baseline(smtp.url, warmPayloads)
      const warm = yield* instance(url, smtp.url)
      yield* warm.drain()

      yield* Console.log(`\nseeding ${MESSAGES} tickets …`)
      yield* seedTickets(organization.id, owner.id, MESSAGES, "one")
      const payloads = (yield* outboxPayloads).map((r) => r.payload)
      const base = yield* baseline(smtp.url, payloads)
      const baseRate = MESSAGES / base.seconds
      yield* Console.log("")
      yield* Console.log(
        line(`baseline: nodemailer pool (${CONCURRENCY}) straight to the server`, MESSAGES, base.seconds)
      )

      const one = yield* instance(url, smtp.url)
      const before = smtp.counter.received
      const single = yield* timeIt(one.drain())
      if (single.result !== MESSAGES || smtp.counter.received - before !== MESSAGES)
        return yield* Effect.dieMessage(`expected ${MESSAGES} mails, claimed ${single.result}`)
      yield* Console.log(
        line("outbox worker, 1 instance (claim → SMTP → outcome → event)", MESSAGES, single.seconds, baseRate)
      )

      yield* seedTickets(organization.id, owner.id, MESSAGES, "two")
      const [a, b] = [yield* instance(url, smtp.url), yield* instance(url, smtp.url)]
      const before2 = smtp.counter.received
      const double = yield* timeIt(Effect.all([a.drain(), b.drain()], { concurrency: 2 }))
      const claimed = double.result[0] + double.result[1]
      if (claimed !== MESSAGES || smtp.counter.received - before2 !== MESSAGES)
        return yield* Effect.dieMessage(`expected ${MESSAGES} mails, claimed ${claimed}`)
      yield* Console.log(
        line(
          `outbox worker, 2 instances (own pools; ${double.result[0]}/${double.result[1]} claimed)`,
          MESSAGES,
          double.seconds,
          baseRate
        )
      )
      const [{ failed }] = (yield* sql<{ failed: string }>`
      SELECT count(*) FILTER (WHERE status <> 'sent') AS failed FROM hd_outbox`) as [{ failed: string }]
      return `rows not sent: ${failed}`
    })
)

/** Messages/s through the outbox to an in-process SMTP server, beside nodemailer sending straight. */
export const mailBenchmark: Benchmark = {
  name: "mail",
  description: "mail outbox throughput to an in-process SMTP server against nodemailer sending straight",
  run
}
