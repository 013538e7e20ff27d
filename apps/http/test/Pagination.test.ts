import { HttpServerRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Pagination from "../src/Http/Pagination.js"

/** A list of `total` numbers as a paged query that records the statements it runs. */
const listOf = (total: number, counted: boolean) => {
  const statements: Array<string> = []
  const all = Array.from({ length: total }, (_, i) => i + 1)
  const window = ({ limit, offset }: Pagination.Window) => all.slice(offset, offset + limit)
  const query: Pagination.PagedQuery<number> = {
    count: Effect.sync(() => {
      statements.push("count")
      return total
    }),
    fetch: (w) =>
      Effect.sync(() => {
        statements.push("fetch")
        return window(w)
      }),
    ...(counted
      ? {
          fetchCounted: (w: Pagination.Window) =>
            Effect.sync(() => {
              statements.push("fetchCounted")
              const rows = window(w)
              return { rows, count: rows.length === 0 ? 0 : total }
            })
        }
      : {})
  }
  return { query, statements }
}

const pageOf = (query: Pagination.PagedQuery<number>, page: number) =>
  Effect.gen(function* () {
    const request = HttpServerRequest.fromWeb(new Request(`http://localhost/items/?page=${page}&page_size=2`))
    return yield* Pagination.paginate(request, yield* Pagination.parse({ page: String(page), page_size: "2" }), query)
  })

describe("Pagination.paginate", () => {
  it.effect("given a query that fetches counted, a page with rows is one statement, with the same envelope", () =>
    Effect.gen(function* () {
      const counted = listOf(5, true)
      const classic = listOf(5, false)
      const page = yield* pageOf(counted.query, 2)
      assert.deepStrictEqual(page, yield* pageOf(classic.query, 2))
      assert.deepStrictEqual(page.results, [3, 4])
      assert.strictEqual(page.count, 5)
      assert.deepStrictEqual(counted.statements, ["fetchCounted"])
      assert.deepStrictEqual(classic.statements, ["count", "fetch"])
    })
  )

  it.effect("given an empty window, then it counts: a page past the end is refused, page 1 of nothing is empty", () =>
    Effect.gen(function* () {
      const past = listOf(5, true)
      const refused = yield* Effect.flip(pageOf(past.query, 4))
      assert.strictEqual(refused._tag, "NotFound")
      assert.deepStrictEqual(past.statements, ["fetchCounted", "count"])

      const empty = listOf(0, true)
      const first = yield* pageOf(empty.query, 1)
      assert.deepStrictEqual(first, { count: 0, next: null, previous: null, results: [] })
    })
  )
})
