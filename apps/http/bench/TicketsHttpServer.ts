/**
 * The server side of the tickets HTTP benchmark, run in a child process so the load generator does not share its
 * event loop. `BENCH_MODE=app`: the service as served (see `app` below: migrations, an organization, tickets with
 * messages) on a free port; `BENCH_MODE=baseline`: bare `node:http` + `pg` answering each read the benchmark measures with the query the
 * service sends for it (`GET` ticket, organization, messages, tickets, customer), and `POST …/tickets/{id}/messages/`
 * with the same writes as the service's reply (event, stream version, message and ticket rows, outbox row) in one
 * transaction, with no auth, no framework, no projections to fold; `BENCH_MODE=floor`: the pinned stack alone
 * answering `GET` ticket (see `floor` below). Each sends `{ port, … }` to its parent when it listens.
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import { createServer as createNetServer } from "node:net"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted, Schema } from "effect"
import pg from "pg"
import { Tokens } from "../src/Auth/Tokens.js"
import { LoggerLive } from "../src/Cli/Logging.js"
import { clientOptions } from "../src/Database/Database.js"
import * as PgPool from "../src/Database/PgPool.js"
import { tuneHeap } from "../src/HeapTuning.js"
import { Organizations } from "../src/Organizations/Organizations.js"
import { ServerLive } from "../src/Server.js"
import { ServicesLive } from "../src/Services.js"
import { Users } from "../src/Users/Users.js"
import { migratedPool } from "./BenchDatabase.js"
import { answerServerQueries } from "./Benchmark.js"
import type { BareReady, ServiceReady } from "./TicketsServer.js"

const url = process.env.BENCH_DATABASE_URL!
// What each mode is ready with, as the benchmarks read it (`TicketsServer.ts`).
const send = (message: ServiceReady | BareReady) => process.send?.(message)

// A message as the service writes it, for the bare write below: the event's data, the message view, the outbox row.
const messageWrites = (ticketId: number, messageId: number, content: string, at: string) => {
  const author = { id: 1, name: "Bench Owner", email: "bench-owner@example.com", profilePictureUrl: "" }
  const message = {
    id: messageId,
    kind: "text",
    role: "associate",
    author,
    sender: { name: author.name, email: author.email, userId: author.id, profilePicture: "" },
    content,
    contentHtml: "",
    createdAt: at,
    isVisibleToCustomer: true,
    attachments: [],
    externalRecipientEmails: ["cc@example.com"],
    bccRecipientEmails: []
  }
  return {
    event: { _tag: "MessageAdded", at, by: { role: "associate", user: author }, message },
    view: { ...message, ticketId, updatedAt: at, deliveryStatus: "pending", readAt: null, sentAt: null },
    outbox: { to: "customer@example.com", cc: ["cc@example.com"], bcc: [], subject: "Benchmark", text: content }
  }
}

const baseline = () => {
  const pool = new pg.Pool({ connectionString: url, max: 20 })
  const organizationId = process.env.BENCH_ORGANIZATION_ID
  const messagesRoute = /^\/organizations\/([-a-zA-Z0-9_]+)\/tickets\/(\d+)\/messages\/$/
  type Row = Readonly<Record<string, unknown>>
  const page = (rows: ReadonlyArray<Row>) => ({
    count: rows.length === 0 ? 0 : Number(rows[0]!.total),
    next: null,
    previous: null,
    results: rows.map((row) => row.view)
  })
  // Each read with the SQL and parameters the service sends for it, as a plain `pool.query` (the idiom of a
  // hand-written server; the service prepares its statements once per connection), its rows put in the answer's
  // shape with nothing else: no auth, no schema, no routing beyond a regex.
  const reads: ReadonlyArray<{
    readonly route: RegExp
    readonly query: (match: RegExpExecArray) => pg.QueryConfig
    readonly answer: (rows: ReadonlyArray<Row>) => unknown
  }> = [
    {
      route: /^\/organizations\/[-a-zA-Z0-9_]+\/tickets\/(\d+)\/$/,
      query: (match) => ({
        text: "SELECT view FROM hd_tickets WHERE ticket_id = $1 AND organization_id = $2",
        values: [Number(match[1]), organizationId]
      }),
      answer: (rows) => rows[0]?.view
    },
    {
      route: /^\/organizations\/[-a-zA-Z0-9_]+\/$/,
      query: () => ({
        text: `SELECT o.id, o.public_id, o.name, o.created_at, o.updated_at, o.support_email, o.site_url, o.description,
          o.email_from_name, o.email_subject_prefix, o.customer_max_inactivity_period,
          o.customer_inactivity_reminder_period, o.enable_csat, o.enable_auto_tagging, o.enable_cc_email_routing,
          o.enable_self_service, o.enable_associate_signatures, o.enable_auto_stt, o.ticket_public_id_mode,
          o.working_language, o.subscription_status, o.subscription_plan_name, o.subscription_plan_metric,
          o.subscription_renews_at, o.subscription_ends_at, o.subscription_trial_ends_at, o.deletion_status,
          o.deletion_inactivity_detected_at, o.deletion_at,
          CASE WHEN "u".id IS NULL THEN NULL ELSE json_build_object('id', "u".id, 'email', "u".email,
            'name', "u".name, 'profilePictureUrl', "u".profile_picture_url) END AS created_by
        FROM organizations o LEFT JOIN users u ON u.id = o.created_by_id WHERE o.id = $1`,
        values: [organizationId]
      }),
      answer: ([row]) => row
    },
    {
      route: messagesRoute,
      query: (match) => ({
        text: `SELECT view, (SELECT count(*) FROM hd_ticket_messages c WHERE c.ticket_id = $1) AS total
          FROM hd_ticket_messages WHERE ticket_id = $2
            AND EXISTS (SELECT 1 FROM hd_tickets t WHERE t.ticket_id = $3 AND t.organization_id = $4)
          ORDER BY created_at ASC, message_id ASC LIMIT $5 OFFSET $6`,
        values: [Number(match[2]), Number(match[2]), Number(match[2]), organizationId, 25, 0]
      }),
      answer: page
    },
    {
      route: /^\/organizations\/[-a-zA-Z0-9_]+\/tickets\/$/,
      query: () => ({
        text: `SELECT view, (SELECT count(*) FROM hd_tickets
            WHERE (organization_id = $1 AND merged_into IS NULL AND is_spam = $2)) AS total
          FROM hd_tickets WHERE (organization_id = $3 AND merged_into IS NULL AND is_spam = $4)
          ORDER BY updated_at DESC, ticket_id DESC LIMIT $5 OFFSET $6`,
        values: [organizationId, false, organizationId, false, 25, 0]
      }),
      answer: page
    },
    {
      route: /^\/organizations\/[-a-zA-Z0-9_]+\/customers\/(\d+)\/$/,
      query: (match) => ({
        text: `SELECT c.id, c.name, c.email, c.is_spam, c.is_company_manager, c.company_id, co.name AS company_name
          FROM customers c LEFT JOIN companies co ON co.id = c.company_id
          WHERE c.organization_id = $1 AND c.id = $2`,
        values: [organizationId, Number(match[1])]
      }),
      answer: ([row]) =>
        row === undefined
          ? undefined
          : {
              id: row.id,
              name: row.name,
              email: row.email,
              is_spam: row.is_spam,
              company: row.company_id === null ? null : { id: row.company_id, name: row.company_name },
              is_company_manager: row.is_company_manager
            }
    }
  ]
  const readBody = (request: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      let body = ""
      request.setEncoding("utf8")
      request.on("data", (chunk: string) => {
        body += chunk
      })
      request.on("end", () => resolve(body))
      request.on("error", reject)
    })
  // `POST …/messages/`: the writes the service makes for a reply, in one transaction, each statement as plain SQL.
  const postMessage = async (ticketId: number, body: string) => {
    const { content } = JSON.parse(body) as { content: string }
    const client = await pool.connect()
    try {
      await client.query("BEGIN")
      const ticket = await client.query(
        "SELECT stream_id, version FROM hd_tickets WHERE ticket_id = $1 AND organization_id = $2 FOR UPDATE",
        [ticketId, organizationId]
      )
      if (ticket.rows.length === 0) {
        await client.query("ROLLBACK")
        return undefined
      }
      const streamId: string = ticket.rows[0].stream_id
      const stream = await client.query(
        "UPDATE hd_streams SET version = version + 1, updated_at = now() WHERE stream_id = $1 RETURNING version",
        [streamId]
      )
      const version = Number(stream.rows[0].version)
      const id = await client.query("SELECT nextval('hd_ticket_message_id_seq') AS id")
      const messageId = Number(id.rows[0].id)
      const at = new Date().toISOString()
      const writes = messageWrites(ticketId, messageId, content, at)
      await client.query(
        `INSERT INTO hd_events (stream_id, stream_position, event_id, event_type, schema_version, data, organization_id)
         VALUES ($1, $2, $3, 'MessageAdded', 1, $4, $5)`,
        [streamId, version, randomUUID(), JSON.stringify(writes.event), organizationId]
      )
      await client.query(
        `INSERT INTO hd_ticket_messages (ticket_id, message_id, ticket_version, view, created_at, search_text)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [ticketId, messageId, version, JSON.stringify(writes.view), at, content.toLowerCase()]
      )
      await client.query(
        `UPDATE hd_tickets SET version = $2, updated_at = $3::timestamptz, view = jsonb_set(view, '{updatedAt}', to_jsonb($4::text))
         WHERE ticket_id = $1`,
        [ticketId, version, at, at]
      )
      await client.query(
        `INSERT INTO hd_outbox (organization_id, ticket_id, message_id, kind, payload)
         VALUES ($1, $2, $3, 'message', $4)`,
        [organizationId, ticketId, messageId, JSON.stringify(writes.outbox)]
      )
      await client.query("COMMIT")
      return writes.view
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }
  const server = createServer((request, response) => {
    const answer = (result: Promise<unknown>, status: number) =>
      result
        .then((json) => {
          if (json === undefined) response.writeHead(404).end()
          else response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json))
        })
        .catch((error) => {
          if (process.env.BENCH_DEBUG) console.error(error)
          response.writeHead(500).end()
        })
    const messages = messagesRoute.exec(request.url ?? "")
    if (request.method === "POST" && messages !== null) {
      answer(
        readBody(request).then((body) => postMessage(Number(messages[2]), body)),
        201
      )
      return
    }
    for (const read of reads) {
      const match = read.route.exec(request.url ?? "")
      if (match !== null) {
        answer(
          pool.query(read.query(match)).then((result) => read.answer(result.rows)),
          200
        )
        return
      }
    }
    response.writeHead(404).end()
  })
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    send({ port: typeof address === "object" && address !== null ? address.port : 0 })
  })
}

/** A port nothing listens on now, for a server whose layer does not tell the port it took. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createNetServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/**
 * The service as `helpdesk serve --without-workers` runs it (its heap tuned as `cli.ts` tunes it; `ServerLive`: the drained server, a JSON log line per
 * request on this process's stdout, which the benchmark discards). The workers are left to another process, as
 * that option does: here they would deliver the replies' mail, each delivery a write of its own, beside the writes
 * measured.
 */
const app = async () => {
  tuneHeap()
  const port = await freePort()
  // The server on the database alone, as `helpdesk serve` builds it; the seeding below has the directory's services
  // apart, so that they are not in every request's context as they are not in the service's.
  const AppLive = ServerLive({ host: "127.0.0.1", port, workers: false }).pipe(
    Layer.provideMerge(migratedPool(url, 20))
  )
  const program = Effect.gen(function* () {
    const owner = yield* (yield* Users).ensure("bench-owner@example.com", "Bench Owner")
    const organization = yield* (yield* Organizations).create({ name: "Bench", createdBy: owner.id })
    const token = (yield* (yield* Tokens).issuePersonal(owner.id)).token
    const base = `http://127.0.0.1:${port}/organizations/${organization.publicId}/tickets/`
    const post = (path: string, body: unknown) =>
      Effect.promise(() =>
        fetch(`${base}${path}`, {
          method: "POST",
          headers: { "x-service-token": token, "content-type": "application/json" },
          body: JSON.stringify(body)
        }).then((r) => r.json() as Promise<{ readonly id: number; readonly customer: { readonly id: number } }>)
      )
    const ticketIds: Array<number> = []
    const customerIds: Array<number> = []
    for (let i = 0; i < Number(process.env.BENCH_TICKETS ?? 50); i++) {
      const ticket = yield* post("", {
        subject: `Benchmark ticket ${i}`,
        description: "The parcel I ordered two weeks ago has still not arrived; could you check the delivery?",
        customer_email: `customer${i}@example.com`,
        customer_name: `Customer ${i}`,
        external_recipient_emails: ["cc@example.com"]
      })
      ticketIds.push(ticket.id)
      customerIds.push(ticket.customer.id)
    }
    for (let m = 0; m < Number(process.env.BENCH_MESSAGES ?? 30); m++)
      yield* post(`${ticketIds[0]}/messages/`, { content: `Reply number ${m} with a few words of content.` })
    send({
      port,
      token,
      organizationPath: `/organizations/${organization.publicId}/`,
      organizationId: organization.id,
      ticketIds,
      customerIds
    })
    return yield* Effect.never
  })
  Effect.runFork(
    program.pipe(Effect.provide(ServicesLive), Effect.provide(AppLive), Effect.provide(LoggerLive("stdout")))
  )
}

/**
 * `BENCH_MODE=floor`: the pinned stack's own floor for `GET ticket`: an `HttpApi` of that one endpoint on
 * `@effect/platform-node`, answering the baseline's statement through the service's `@effect/sql-pg` pool, with no
 * authentication, no middleware and no edge. What the service adds to a read is the distance from here to it.
 */
const floor = () => {
  const organizationId = process.env.BENCH_ORGANIZATION_ID!
  const Floor = HttpApi.make("floor").add(
    HttpApiGroup.make("tickets").add(
      HttpApiEndpoint.get("ticket", "/organizations/:organization/tickets/:ticketId/")
        .setPath(Schema.Struct({ organization: Schema.String, ticketId: Schema.NumberFromString }))
        .addSuccess(Schema.Unknown)
    )
  )
  const TicketsLive = HttpApiBuilder.group(Floor, "tickets", (handlers) =>
    handlers.handle("ticket", ({ path }) =>
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ view: unknown }>`
        SELECT view FROM hd_tickets WHERE ticket_id = ${path.ticketId} AND organization_id = ${organizationId}`
      ).pipe(
        Effect.map((rows) => rows[0]?.view),
        Effect.orDie
      )
    )
  )
  const FloorLive = HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(Floor).pipe(Layer.provide(TicketsLive))),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
    Layer.provide(
      PgPool.layer({ url: Redacted.make(url), maxConnections: 20, namedStatements: true, ...clientOptions })
    )
  )
  const program = Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    send({ port: server.address._tag === "TcpAddress" ? server.address.port : 0 })
    return yield* Effect.never
  })
  Effect.runFork(program.pipe(Effect.provide(FloorLive), Effect.provide(Layer.setTracerEnabled(false))))
}

answerServerQueries()
if (process.env.BENCH_MODE === "baseline") baseline()
else if (process.env.BENCH_MODE === "floor") floor()
else void app()
