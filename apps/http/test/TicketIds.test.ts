import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ServicesLive } from "../src/Services.js"
import { MESSAGE_ID_BLOCK, TicketIds } from "../src/Tickets/TicketIds.js"
import * as Fixtures from "./support/Fixtures.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

// One process's ids, as another replica would have them: a service of its own over the same database.
const replica = Effect.provide(TicketIds, Layer.fresh(TicketIds.Default))

const lastReserved = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ lastValue: string }>`SELECT last_value FROM hd_ticket_message_id_seq`.pipe(
    Effect.map((rows) => Number(rows[0]!.lastValue)),
    Effect.orDie
  )
)

const isIncreasing = (ids: ReadonlyArray<number>) => ids.every((id, i) => i === 0 || id > ids[i - 1]!)

layer(ServicesLive.pipe(Layer.provideMerge(TestDatabaseLive)), { timeout: 60_000 })("ticket and message ids", (it) => {
  it.effect(
    "given two organizations, when tickets are created in both, then each organization's public ids count from 1 and every ticket id is new",
    () =>
      Effect.gen(function* () {
        const ids = yield* TicketIds
        const [a, b] = [yield* Fixtures.organizationId(), yield* Fixtures.organizationId()]
        const created = yield* Effect.forEach([a, a, b, a, b], (organization) => ids.nextTicketIds(organization))
        assert.deepStrictEqual(
          created.map((t) => t.publicId),
          ["1", "2", "1", "3", "2"]
        )
        assert.isTrue(isIncreasing(created.map((t) => t.ticketId)))
      }).pipe(Effect.provide(TicketIds.Default))
  )

  it.effect(
    "given a fresh process, when it hands out a block's worth of ids and one more, then the sequence moved once per block",
    () =>
      Effect.gen(function* () {
        const ids = yield* replica
        const first = yield* Effect.replicateEffect(ids.nextMessageId, MESSAGE_ID_BLOCK)
        const afterFirstBlock = yield* lastReserved
        const next = yield* ids.nextMessageId
        assert.isTrue(isIncreasing([...first, next]))
        assert.strictEqual(afterFirstBlock, first[0]! + MESSAGE_ID_BLOCK - 1)
        assert.strictEqual(yield* lastReserved, afterFirstBlock + MESSAGE_ID_BLOCK)
        assert.strictEqual(next, afterFirstBlock + 1)
      })
  )

  it.effect(
    "given two replicas, when each hands out several blocks' worth of ids to concurrent writers, then no id is handed out twice and each replica's ids increase",
    () =>
      Effect.gen(function* () {
        const [a, b] = [yield* replica, yield* replica]
        const count = MESSAGE_ID_BLOCK * 3 + 5
        const take = (ids: TicketIds) =>
          Effect.gen(function* () {
            const handed: Array<number> = []
            yield* Effect.forEach(
              Array.from({ length: count }),
              () => Effect.map(ids.nextMessageId, (id) => handed.push(id)),
              { concurrency: 16 }
            )
            return handed
          })
        const [fromA, fromB] = yield* Effect.all([take(a), take(b)], { concurrency: 2 })
        assert.strictEqual(new Set([...fromA, ...fromB]).size, count * 2)
        assert.isTrue(isIncreasing(fromA))
        assert.isTrue(isIncreasing(fromB))
      })
  )
})
