import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_NAMED_STATEMENTS } from "../src/Database/NamedStatements.js"
import { PLAN_CACHE_MODE } from "../src/Database/PgPool.js"
import { testPgLive, usesRealPostgres } from "./support/TestDatabase.js"

// One connection, so every statement below runs in the session whose prepared statements are inspected.
const OneConnectionLive = testPgLive(1)

const prepared = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.unprepared
)

layer(OneConnectionLive, { excludeTestServices: true })("statements whose plans PostgreSQL keeps", (it) => {
  it.effect(
    usesRealPostgres
      ? "given a session of its own, a parameterised statement is prepared once under a name and run from it after"
      : "given the embedded database (one session for every connection), statements are sent unnamed",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const text = "SELECT $1::int + 1 AS next"
        const first = yield* sql<{ next: number }>`SELECT ${1}::int + 1 AS next`
        const second = yield* sql<{ next: number }>`SELECT ${41}::int + 1 AS next`
        assert.deepStrictEqual([first[0]!.next, second[0]!.next], [2, 42])
        const kept = (yield* prepared).filter((row) => row.statement === text)
        if (usesRealPostgres) {
          assert.strictEqual(kept.length, 1)
          assert.match(kept[0]!.name, /^hdq_\d+$/)
        } else assert.strictEqual(kept.length, 0)
      })
  )

  it.effect.skipIf(!usesRealPostgres)(
    "given a session of its own, a named statement runs from its generic plan, not planned again for its values",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [mode] = yield* sql<{ mode: string }>`SELECT current_setting('plan_cache_mode') AS mode`.unprepared
        assert.strictEqual(mode!.mode, PLAN_CACHE_MODE)
        yield* sql`CREATE TEMPORARY TABLE named_plans (id int PRIMARY KEY)`
        for (let i = 0; i < 3; i++) yield* sql`SELECT id FROM named_plans WHERE id = ${i}`
        const [plans] = yield* sql<{ genericPlans: string; customPlans: string }>`
          SELECT generic_plans, custom_plans FROM pg_prepared_statements
          WHERE statement = 'SELECT id FROM named_plans WHERE id = $1'`.unprepared
        assert.deepStrictEqual([Number(plans!.genericPlans), Number(plans!.customPlans)], [3, 0])
      })
  )

  it.effect("statements without values keep the simple protocol, so a script of several statements still runs", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("CREATE TEMPORARY TABLE named_a (id int); CREATE TEMPORARY TABLE named_b (id int)")
      const rows = yield* sql<{ tables: number }>`
        SELECT count(*)::int AS tables FROM pg_class WHERE relname IN (${"named_a"}, ${"named_b"})`
      assert.strictEqual(rows[0]!.tables, 2)
    })
  )

  it.effect("a statement reading `*` is not named: a column added by a migration cannot break its kept plan", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TEMPORARY TABLE named_star (id int)`
      yield* sql`INSERT INTO named_star (id) VALUES (${1})`
      const before = yield* sql<{ id: number }>`SELECT * FROM named_star WHERE id = ${1}`
      yield* sql`ALTER TABLE named_star ADD COLUMN note text`
      const after = yield* sql<{ id: number; note: string | null }>`SELECT * FROM named_star WHERE id = ${1}`
      assert.deepStrictEqual([before, after], [[{ id: 1 }], [{ id: 1, note: null }]])
      const kept = (yield* prepared).filter((row) => row.statement.includes("named_star WHERE"))
      assert.strictEqual(kept.length, 0)
    })
  )

  it.effect.skipIf(!usesRealPostgres)(
    "a `*` over a record set whose columns the statement defines is named: no migration can change those columns",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ id: number; note: string }>`
          SELECT * FROM jsonb_to_recordset(${JSON.stringify([{ id: 7, note: "kept" }])}::jsonb) AS r(id int, note text)`
        assert.deepStrictEqual(rows, [{ id: 7, note: "kept" }])
        const kept = (yield* prepared).filter((row) => row.statement.includes("AS r(id int, note text)"))
        assert.strictEqual(kept.length, 1)
        assert.match(kept[0]!.name, /^hdq_\d+$/)
      })
  )

  it.effect.skipIf(!usesRealPostgres)(
    "only a bounded number of distinct texts is named; the rest run unnamed and still answer",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        for (let i = 0; i < MAX_NAMED_STATEMENTS + 20; i++) {
          const rows = yield* sql.unsafe<{ n: number }>(`SELECT $1::int AS n /* variant ${i} */`, [i])
          assert.strictEqual(rows[0]!.n, i)
        }
        const named = (yield* prepared).filter((row) => /^hdq_\d+$/.test(row.name))
        assert.isAtMost(named.length, MAX_NAMED_STATEMENTS)
        assert.isAtLeast(named.length, MAX_NAMED_STATEMENTS - 20)
      }),
    { timeout: 60_000 }
  )
})
