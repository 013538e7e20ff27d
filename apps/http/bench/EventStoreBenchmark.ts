import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { SqlClient } from "@effect/sql"
import {
  EventStore,
  executeTicketCommand,
  fromRecordedEvents,
  type NewEvent,
  runTicketCommands,
  type StreamAppend,
  TicketStore
} from "@helpdesk/domain"
import { Console, Effect, Either, Layer } from "effect"
import { type EventRow, eventColumns, toRecordedEvent } from "../src/EventStore/EventRows.js"
import { InlineProjections } from "../src/EventStore/InlineProjection.js"
import { PostgresEventStoreLive } from "../src/EventStore/PostgresEventStore.js"
import { rebuildProjections } from "../src/EventStore/Rebuild.js"
import { ticketProjection } from "../src/Tickets/ReadModel/TicketProjection.js"
import { PostgresTicketStoreLive } from "../src/Tickets/Store/PostgresTicketStore.js"
import { ticketLifecycle } from "../test/eventstore/ticketWorkload.js"
import {
  decideInOrder,
  expectedAt,
  loadAverage,
  migratedPool,
  runOnOwnDatabase,
  ticketAppend
} from "./BenchDatabase.js"
import { type Benchmark, describeTiming, machine, ratio, type Timing, timed } from "./Benchmark.js"

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
const WRITERS = 16
const REBUILD_EVENTS = 100_000
const REBUILD_BATCH = 5000

/** The server's durability settings and, when it runs on this machine, the disk under its data directory. */
const describeServer = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [settings] = yield* sql<Record<string, string>>`
    SELECT version() AS version,
      current_setting('synchronous_commit') AS synchronous_commit,
      current_setting('fsync') AS fsync,
      current_setting('wal_sync_method') AS wal_sync_method,
      current_setting('shared_buffers') AS shared_buffers,
      current_setting('data_directory', true) AS data_directory`
  const s = settings!
  yield* Console.log(`machine:            ${machine()}`)
  yield* Console.log(`server:             ${s.version}`)
  yield* Console.log(
    `durability:         synchronous_commit=${s.synchronousCommit}, fsync=${s.fsync}, wal_sync_method=${s.walSyncMethod}, shared_buffers=${s.sharedBuffers}`
  )
  yield* Console.log(`disk:               ${describeDisk(s.dataDirectory ?? "")}`)
})

const describeDisk = (dataDirectory: string): string => {
  if (dataDirectory === "" || !fs.existsSync(dataDirectory)) return "data directory not on this machine (unknown)"
  try {
    const line = execFileSync("df", ["-hP", dataDirectory], { encoding: "utf8" }).trim().split("\n").pop()!
    const [device, size, , available] = line.split(/\s+/)
    const block = device?.replace(/^\/dev\//, "").replace(/p?\d+$/, "") ?? ""
    const rotationalFile = `/sys/block/${block}/queue/rotational`
    const kind = fs.existsSync(rotationalFile)
      ? fs.readFileSync(rotationalFile, "utf8").trim() === "1"
        ? "rotational"
        : "non-rotational (SSD or virtual disk)"
      : "kind unknown"
    return `${device} (${kind}), ${size} total, ${available} free, data directory ${dataDirectory}`
  } catch {
    return `data directory ${dataDirectory} (df unavailable)`
  }
}

/** A representative event payload: a real encoded ticket event (a reply), about the size the app stores. */
const samplePayload: NewEvent = (() => {
  const [created, reply] = ticketLifecycle(1)
  return decideInOrder([reply!], decideInOrder([created!]).state).events[0]!
})()

const eventFor = (): NewEvent => ({ ...samplePayload, eventId: randomUUID() })

const createBareTable = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`
    CREATE TABLE bench_bare_events (
      stream_id text, stream_position bigint, event_id uuid, event_type text, schema_version int,
      data jsonb, metadata jsonb, created_at timestamptz DEFAULT now()
    )`
)

/** The baseline: the same row, plainly inserted into a table with no key, index or function. */
const bareInsert = (streamId: string, position: number, events: ReadonlyArray<NewEvent>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      INSERT INTO bench_bare_events (stream_id, stream_position, event_id, event_type, schema_version, data, metadata)
      SELECT ${streamId}, ${position} + e.ord, e.id, e.type, e.version, e.data, e.metadata
      FROM unnest(${events.map((e) => e.eventId)}::uuid[], ${events.map((e) => e.type)}::text[],
        ${events.map((e) => e.schemaVersion)}::int[], ${events.map((e) => JSON.stringify(e.data))}::jsonb[],
        ${events.map(() => "{}")}::jsonb[]) WITH ORDINALITY AS e(id, type, version, data, metadata, ord)`
  )

/**
 * Appends `perAppend` events per operation: `writers` writers, each appending `appendsPerWriter` times in turn to
 * its own 10 streams with the exact expected version, as commands on many tickets do.
 */
const appendWorkload = (writers: number, appendsPerWriter: number, perAppend: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const run = randomUUID().slice(0, 8)
    const versions = new Map<string, number>()
    return yield* timed(writers * appendsPerWriter, writers, (i) => {
      const writer = i % writers
      const streamId = `bench-${run}-${writer}-${Math.floor(i / writers) % 10}`
      const version = versions.get(streamId) ?? 0
      versions.set(streamId, version + perAppend)
      const events = Array.from({ length: perAppend }, eventFor)
      return store.append([
        {
          streamId,
          streamType: "bench",
          expected: expectedAt(version),
          events
        }
      ])
    })
  })

const bareWorkload = (writers: number, insertsPerWriter: number, perInsert: number) =>
  timed(writers * insertsPerWriter, writers, (i) =>
    bareInsert(`bare-${i % writers}`, i, Array.from({ length: perInsert }, eventFor))
  )

const report = (label: string, timing: Timing, baseline: Timing, perOperation = 1) =>
  Effect.all([
    Console.log(describeTiming(label, timing, perOperation)),
    Console.log(`${"".padEnd(58)} ${ratio(timing, baseline, perOperation, perOperation)}`)
  ])

/** The events of `tickets` ticket lives, decided by the domain, as one append per ticket. */
const ticketAppends = (firstTicketId: number, tickets: number): ReadonlyArray<StreamAppend> =>
  Array.from({ length: tickets }, (_, k) => {
    const ticketId = firstTicketId + k
    return ticketAppend(ticketId, decideInOrder(ticketLifecycle(ticketId, `org-${ticketId % 20}`)).events)
  })

const rebuildBench = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const store = yield* EventStore
  const perTicket = ticketAppends(1, 1)[0]!.events.length
  const tickets = Math.ceil(REBUILD_EVENTS / perTicket)
  yield* Console.log(`seeding ${tickets} tickets × ${perTicket} domain events …`)
  const first = 1_000_000
  for (let start = 0; start < tickets; start += 100) {
    yield* store.append(ticketAppends(first + start, Math.min(100, tickets - start)))
  }
  const [{ count }] = (yield* sql<{ count: string }>`SELECT count(*) AS count FROM hd_events`) as [{ count: string }]
  yield* sql`ANALYZE`

  // Baseline: the same batches read in the same order and written, as they are, to a bare table, a commit each.
  yield* sql`CREATE TABLE bench_bare_copy (LIKE hd_events)`
  const copyStart = performance.now()
  let after = 0n
  let copied = 0
  while (true) {
    const rows = yield* sql.withTransaction(
      sql<{ globalPosition: string }>`
        WITH batch AS (
          SELECT * FROM hd_events WHERE global_position > ${after} ORDER BY global_position LIMIT ${REBUILD_BATCH}
        ), copied AS (INSERT INTO bench_bare_copy SELECT * FROM batch)
        SELECT global_position FROM batch ORDER BY global_position`
    )
    if (rows.length === 0) break
    copied += rows.length
    after = BigInt(rows[rows.length - 1]!.globalPosition)
  }
  const copy: Timing = { operations: copied, seconds: (performance.now() - copyStart) / 1000, latenciesMs: [] }

  // What the domain's codec alone costs: decoding the same events, in memory, with no SQL at all.
  const recorded = yield* Effect.map(
    sql<EventRow>`SELECT ${eventColumns(sql)} FROM hd_events ORDER BY global_position`,
    (rows) => rows.map(toRecordedEvent)
  )
  const decodeStart = performance.now()
  for (let i = 0; i < recorded.length; i += 1000) Either.getOrThrow(fromRecordedEvents(recorded.slice(i, i + 1000)))
  const decode: Timing = {
    operations: recorded.length,
    seconds: (performance.now() - decodeStart) / 1000,
    latenciesMs: []
  }

  const rebuildStart = performance.now()
  const result = yield* rebuildProjections([ticketProjection], { batchSize: REBUILD_BATCH })
  const rebuild: Timing = {
    operations: result.events,
    seconds: (performance.now() - rebuildStart) / 1000,
    latenciesMs: []
  }
  const [rows] = (yield* sql<{ tickets: string; messages: string }>`
    SELECT (SELECT count(*) FROM hd_tickets) AS tickets, (SELECT count(*) FROM hd_ticket_messages) AS messages`) as [
    { tickets: string; messages: string }
  ]
  yield* Console.log(`\nread-model rebuild of ${count} events (batches of ${REBUILD_BATCH}, a commit per batch)`)
  yield* Console.log(describeTiming("baseline: copy the same batches into a bare table", copy))
  yield* Console.log(describeTiming("reference: the domain's decoding of the same events alone", decode))
  yield* Console.log(describeTiming(`rebuild hd_tickets + hd_ticket_messages`, rebuild))
  yield* Console.log(`${"".padEnd(58)} ${ratio(rebuild, copy)}; ${rows!.tickets} tickets, ${rows!.messages} messages`)
})

/**
 * Commands with the ticket projection inline, each ticket's commands one after another, `WRITERS` tickets at once:
 * - through the domain's `executeTicketCommand` on the `EventStore` port (what another service importing the domain
 *   gets: each command reads and folds the whole stream, and the projection reads the stream again);
 * - through the service's pipeline: `runTicketCommands` on `PostgresTicketStore` (what one API write costs end to end
 *   without HTTP: the fold kept in memory and proved by the append, the projection evolving the writer's fold).
 */
const commandBench = (bare: Timing) =>
  Effect.gen(function* () {
    const ticketsPerWriter = 10
    const lifecycles = (from: number) =>
      Array.from({ length: WRITERS * ticketsPerWriter }, (_, i) => ticketLifecycle(from + i))
    // Beside the bare INSERTs of as many writers: a command's one event against one bare row.
    const describe = (label: string, timing: Timing, commands: number) =>
      Effect.all([
        Console.log(
          describeTiming(
            label,
            { ...timing, latenciesMs: timing.latenciesMs.map((ms) => ms / commands) },
            commands,
            "commands"
          )
        ),
        Console.log(`${"".padEnd(58)} ${ratio(timing, bare, commands)}`)
      ])
    const portable = lifecycles(5_000_000)
    const commands = portable[0]!.length
    yield* describe(
      `${WRITERS} writers: domain commands on the EventStore port, projection inline`,
      yield* timed(portable.length, WRITERS, (i) =>
        Effect.forEach(portable[i]!, (command) => executeTicketCommand(command), { discard: true })
      ),
      commands
    )
    const piped = lifecycles(6_000_000)
    const ticketStore = yield* TicketStore
    yield* describe(
      `${WRITERS} writers: the service's pipeline (PostgresTicketStore), projection inline`,
      yield* timed(piped.length, WRITERS, (i) =>
        Effect.forEach(
          piped[i]!,
          (command) =>
            runTicketCommands({
              ticketId: command.ticketId,
              plan: () => Effect.succeed({ commands: [command], result: undefined })
            }).pipe(Effect.provideService(TicketStore, ticketStore)),
          { discard: true }
        )
      ),
      commands
    )
  })

const run = runOnOwnDatabase(
  "store",
  DEFAULT_URL,
  (url) => Layer.build(migratedPool(url, WRITERS + 4)),
  ({ database, context }) =>
    Effect.gen(function* () {
      const plainStore = yield* Layer.build(PostgresEventStoreLive.pipe(Layer.provide(Layer.succeedContext(context))))
      const projectedStore = yield* Layer.build(
        PostgresEventStoreLive.pipe(
          Layer.provide(InlineProjections.layer([ticketProjection])),
          Layer.provide(Layer.succeedContext(context))
        )
      )
      yield* Console.log(`database:           ${database} (created for this run, dropped after)`)
      yield* describeServer
      yield* Console.log(`load average:       ${loadAverage()} (other work on this machine skews every figure)`)
      yield* createBareTable
      yield* Console.log("\nappends: one stream per append, exact expected version, no inline projection")
      // Warm-up: connections, plans, caches.
      yield* appendWorkload(WRITERS, 20, 1).pipe(Effect.provide(plainStore))
      yield* bareWorkload(WRITERS, 20, 1)

      const bare1 = yield* bareWorkload(1, 2000, 1)
      const single = yield* appendWorkload(1, 2000, 1).pipe(Effect.provide(plainStore))
      yield* Console.log(describeTiming("baseline: 1 writer, bare INSERT of 1 row", bare1))
      yield* report("1 writer, 1 event per append", single, bare1)

      const bare10 = yield* bareWorkload(1, 500, 10)
      const single10 = yield* appendWorkload(1, 500, 10).pipe(Effect.provide(plainStore))
      yield* Console.log(describeTiming("baseline: 1 writer, bare INSERT of 10 rows", bare10, 10))
      yield* report("1 writer, 10 events per append", single10, bare10, 10)

      const bare16 = yield* bareWorkload(WRITERS, 500, 1)
      const concurrent = yield* appendWorkload(WRITERS, 500, 1).pipe(Effect.provide(plainStore))
      yield* Console.log(describeTiming(`baseline: ${WRITERS} writers, bare INSERT of 1 row`, bare16))
      yield* report(`${WRITERS} writers, 1 event per append`, concurrent, bare16)

      yield* Console.log("")
      yield* commandBench(bare16).pipe(
        Effect.provide(PostgresTicketStoreLive.pipe(Layer.provideMerge(Layer.succeedContext(projectedStore))))
      )
      yield* rebuildBench.pipe(Effect.provide(plainStore))
      return undefined
    })
)

/** Appends (1 and 16 writers) and the read-model rebuild, each beside a bare-INSERT baseline. */
export const eventStoreBenchmark: Benchmark = {
  name: "event-store",
  description: "PostgreSQL event store: appends and read-model rebuild against bare INSERTs",
  run
}
