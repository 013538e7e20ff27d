/**
 * The server side of the tickets HTTP benchmark, run in a child process so the load generator does not share its
 * event loop. `BENCH_MODE=app`: the real service (migrations, an organization, tickets with messages) on a free
 * port; `BENCH_MODE=baseline`: bare `node:http` + `pg` answering `GET …/tickets/{id}/` from `hd_tickets` (no auth,
 * no framework). Either sends `{ port, … }` to its parent when it listens.
 */
import { createServer } from "node:http"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import pg from "pg"
import { Tokens } from "../src/Auth/Tokens.js"
import { Organizations } from "../src/Organizations/Organizations.js"
import { HttpAppLive } from "../src/Server.js"
import { ServicesLive } from "../src/Services.js"
import { Users } from "../src/Users/Users.js"
import { migratedPool } from "./BenchDatabase.js"

const url = process.env.BENCH_DATABASE_URL!
const send = (message: unknown) => process.send?.(message)

const baseline = () => {
  const pool = new pg.Pool({ connectionString: url, max: 20 })
  const route = /^\/organizations\/([-a-zA-Z0-9_]+)\/tickets\/(\d+)\/$/
  const server = createServer((request, response) => {
    const match = route.exec(request.url ?? "")
    if (match === null) {
      response.writeHead(404).end()
      return
    }
    pool
      .query("SELECT view FROM hd_tickets WHERE ticket_id = $1 AND organization_id = $2", [
        Number(match[2]),
        process.env.BENCH_ORGANIZATION_ID
      ])
      .then((result) => {
        if (result.rows.length === 0) response.writeHead(404).end()
        else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result.rows[0].view))
      })
      .catch(() => response.writeHead(500).end())
  })
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    send({ port: typeof address === "object" && address !== null ? address.port : 0 })
  })
}

const app = () => {
  const DatabaseLive = migratedPool(url, 20)
  const AppLive = HttpAppLive().pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(DatabaseLive)
  )
  const program = Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const port = server.address._tag === "TcpAddress" ? server.address.port : 0
    const owner = yield* (yield* Users).ensure("bench-owner@example.com", "Bench Owner")
    const organization = yield* (yield* Organizations).create({ name: "Bench", createdBy: owner.id })
    const token = (yield* (yield* Tokens).issuePersonal(owner.id)).token
    const base = `http://127.0.0.1:${port}/organizations/${organization.public_id}/tickets/`
    const post = (path: string, body: unknown) =>
      Effect.promise(() =>
        fetch(`${base}${path}`, {
          method: "POST",
          headers: { "x-service-token": token, "content-type": "application/json" },
          body: JSON.stringify(body)
        }).then((r) => r.json() as Promise<{ id: number }>)
      )
    const ticketIds: Array<number> = []
    for (let i = 0; i < Number(process.env.BENCH_TICKETS ?? 50); i++) {
      const ticket = yield* post("", {
        subject: `Benchmark ticket ${i}`,
        description: "The parcel I ordered two weeks ago has still not arrived; could you check the delivery?",
        customer_email: `customer${i}@example.com`,
        customer_name: `Customer ${i}`,
        external_recipient_emails: ["cc@example.com"]
      })
      ticketIds.push(ticket.id)
    }
    for (let m = 0; m < Number(process.env.BENCH_MESSAGES ?? 10); m++)
      yield* post(`${ticketIds[0]}/messages/`, { content: `Reply number ${m} with a few words of content.` })
    send({
      port,
      token,
      organizationPath: `/organizations/${organization.public_id}/`,
      organizationId: organization.id,
      ticketIds
    })
    return yield* Effect.never
  })
  Effect.runFork(program.pipe(Effect.provide(AppLive)))
}

if (process.env.BENCH_MODE === "baseline") baseline()
else app()
