import { randomBytes, randomUUID } from "node:crypto"
import * as os from "node:os"
import { SqlClient } from "@effect/sql"
import {
  decide,
  ExpectedVersion,
  evolve,
  initialState,
  type NewEvent,
  type OrganizationId,
  type StreamAppend,
  type TicketCommand,
  type TicketState,
  ticketStreamId,
  ticketStreamType,
  toNewEvent
} from "@helpdesk/domain"
import { Console, type Context, Effect, Either, Layer, Redacted } from "effect"
import { clientOptions, MigrationsLive } from "../src/Database/Database.js"
import * as PgPool from "../src/Database/PgPool.js"
import { Organizations } from "../src/Organizations/Organizations.js"
import { ServicesLive } from "../src/Services.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import { Users } from "../src/Users/Users.js"
import { createTickets, type SeededTicket } from "../test/support/CommandTickets.js"
import { admin, withDatabase } from "../test/support/ServerDatabases.js"
import { machine } from "./Benchmark.js"

/** A database of the benchmark's own beside `baseUrl`'s, named `hd_bench_{label}_…`, dropped afterwards. */
export const benchDatabase = (baseUrl: string, label: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const name = `hd_bench_${label}_${randomBytes(4).toString("hex")}`
      await admin(baseUrl, `CREATE DATABASE "${name}"`)
      return name
    }),
    (name) => Effect.promise(() => admin(baseUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
  )

/** The run's own database (see `benchDatabase`) beside `DATABASE_URL`'s, or `fallbackUrl`'s: its name and URL. */
export const runDatabase = (label: string, fallbackUrl: string) => {
  const baseUrl = process.env.DATABASE_URL ?? fallbackUrl
  return Effect.map(benchDatabase(baseUrl, label), (database) => ({ database, url: withDatabase(baseUrl, database) }))
}

/**
 * A benchmark's run on a database of its own (see `runDatabase`): `body` with the services `build` makes on it
 * provided, then the load average after it, behind the closing line `body` answers (if any).
 */
export const runOnOwnDatabase = <S, E1, R1, E2, R2>(
  label: string,
  fallbackUrl: string,
  build: (url: string) => Effect.Effect<Context.Context<S>, E1, R1>,
  body: (run: {
    readonly database: string
    readonly url: string
    readonly context: Context.Context<S>
  }) => Effect.Effect<string | undefined, E2, R2>
) =>
  Effect.gen(function* () {
    const run = yield* runDatabase(label, fallbackUrl)
    const context = yield* build(run.url)
    const closing = yield* body({ ...run, context }).pipe(Effect.provide(context))
    yield* Console.log(`\n${closing === undefined ? "" : `${closing}; `}load average after: ${loadAverage()}`)
  }).pipe(Effect.scoped)

/**
 * `count` tickets about a missing parcel, recorded by associate `userId` through the ticket commands, 8 at a time;
 * `label` marks each one's subject and customer address, `body` is what they say.
 */
export const parcelTickets = (
  organizationId: OrganizationId,
  userId: number,
  count: number,
  label: string,
  body: Pick<SeededTicket, "description" | "descriptionHtml" | "externalRecipientEmails">
) =>
  createTickets(
    organizationId,
    userId,
    count,
    (i) => ({
      subject: `Parcel ${label}-${i} missing`,
      customerEmail: `customer-${label}-${i}@example.com`,
      customerName: `Customer ${i}`,
      ...body
    }),
    8
  )

/** The machine's load averages (1, 5, 15 minutes), printed beside figures that other work skews. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")

/** The service's pool on `url` (named statements, as on a server) with the migrations run. */
export const migratedPool = (url: string, maxConnections: number) =>
  MigrationsLive.pipe(
    Layer.provideMerge(
      PgPool.layer({ url: Redacted.make(url), maxConnections, namedStatements: true, ...clientOptions })
    )
  )

/** Prints the machine, the server's version and commit mode, the run's database and the load, labels `width` wide. */
export const describeRun = (database: string, width = 20) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [server] = yield* sql<{ version: string; synchronousCommit: string }>`
      SELECT version() AS version, current_setting('synchronous_commit') AS synchronous_commit`
    const label = (name: string) => `${name}:`.padEnd(width)
    yield* Console.log(`${label("machine")}${machine()}`)
    yield* Console.log(`${label("server")}${server!.version}, synchronous_commit=${server!.synchronousCommit}`)
    yield* Console.log(`${label("database")}${database} (created for this run, dropped after)`)
    yield* Console.log(`${label("load average")}${loadAverage()} (other work on this machine skews every figure)`)
  })

/** The repositories and ticket services on a migrated pool of `maxConnections` to `url`, built in the scope. */
export const ticketServicesOn = (url: string, maxConnections: number) =>
  Layer.build(
    TicketServicesLive.pipe(Layer.provideMerge(ServicesLive), Layer.provideMerge(migratedPool(url, maxConnections)))
  )

/** A new owner (a random address) and their organization `name`. */
export const benchOrganization = (name: string) =>
  Effect.gen(function* () {
    const owner = yield* (yield* Users).ensure(`bench-${randomBytes(3).toString("hex")}@example.com`, "Bench")
    const organization = yield* (yield* Organizations).create({ name, createdBy: owner.id })
    return { owner, organization }
  })

/** What an append to a stream at `version` expects: no stream yet for 0, else exactly that version. */
export const expectedAt = (version: number) =>
  version === 0 ? ExpectedVersion.noStream : ExpectedVersion.exact(version)

/** The append of `events` to ticket `ticketId`'s stream, expecting it at `version`. */
export const ticketAppend = (ticketId: number, events: ReadonlyArray<NewEvent>, version = 0): StreamAppend => ({
  streamId: ticketStreamId(ticketId),
  streamType: ticketStreamType,
  expected: expectedAt(version),
  events
})

/** `commands` decided by the domain one after another from `state` (each must be accepted): new events, state after. */
export const decideInOrder = (commands: ReadonlyArray<TicketCommand>, state: TicketState = initialState) => {
  const events: Array<NewEvent> = []
  let after = state
  for (const command of commands) {
    for (const event of Either.getOrThrow(decide(command, after))) {
      after = evolve(after, event)
      events.push(toNewEvent(event, randomUUID()))
    }
  }
  return { events, state: after }
}
