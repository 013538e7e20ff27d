import type { HttpServerRequest } from "@effect/platform"
import { type SqlClient, SqlSchema, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { dieUndecodable } from "../Database/Rows.js"
import { NotFound, ValidationError } from "./Errors.js"
import { requestUrl } from "./Links.js"
import type { Ordering } from "./Ordering.js"
import * as Query from "./Query.js"

/**
 * Page-number pagination with the `count/next/previous/results` envelope.
 *
 * `page` is 1-based (default 1); `page_size` defaults to {@link DEFAULT_PAGE_SIZE} and is clamped to
 * {@link MAX_PAGE_SIZE}. A bad or past-the-end page is `404 {"detail":"Invalid page."}`; a bad `page_size`
 * is `400 {"page_size":["A valid integer is required."]}`. `next`/`previous` are absolute (under the request's
 * decided base URL, `Links.RequestBaseUrl`) and keep the other query parameters.
 */

export const DEFAULT_PAGE_SIZE = 25
export const MAX_PAGE_SIZE = 100

/** Query parameters to spread into an endpoint's `setUrlParams` struct. */
export const params = {
  page: Query.param("A page number within the paginated result set (1-based, default 1)."),
  page_size: Query.param(
    `Number of results per page (default ${DEFAULT_PAGE_SIZE}, maximum ${MAX_PAGE_SIZE}; larger values are clamped).`
  )
}

/** A requested page. */
export interface PageRequest {
  readonly page: number
  readonly pageSize: number
  readonly limit: number
  readonly offset: number
}

/** The paginated envelope schema of an item schema. */
export const Envelope = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    count: Schema.Int.annotations({ description: "Number of results across all pages." }),
    next: Schema.NullOr(Schema.String).annotations({ description: "Absolute URL of the next page, or null." }),
    previous: Schema.NullOr(Schema.String).annotations({
      description: "Absolute URL of the previous page, or null."
    }),
    results: Schema.Array(item)
  })

/** A page of results, as the envelope carries it. */
export interface Page<A> {
  readonly count: number
  readonly next: string | null
  readonly previous: string | null
  readonly results: ReadonlyArray<A>
}

const POSITIVE_INTEGER = /^\d+$/

const invalidPage = () => new NotFound({ detail: "Invalid page." })

/** Parses `page` and `page_size`. */
export const parse = (query: {
  readonly page?: string | undefined
  readonly page_size?: string | undefined
}): Effect.Effect<PageRequest, NotFound | ValidationError> =>
  Effect.gen(function* () {
    let pageSize = DEFAULT_PAGE_SIZE
    if (query.page_size !== undefined && query.page_size !== "") {
      const value = query.page_size.trim()
      if (!POSITIVE_INTEGER.test(value) || Number(value) < 1)
        return yield* ValidationError.field("page_size", "A valid integer is required.")
      pageSize = Math.min(Number(value), MAX_PAGE_SIZE)
    }
    let page = 1
    if (query.page !== undefined) {
      const value = query.page.trim()
      if (!POSITIVE_INTEGER.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
        return yield* invalidPage()
      page = Number(value)
    }
    return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize }
  })

const pageLink = (request: HttpServerRequest.HttpServerRequest, page: number): Effect.Effect<string> =>
  Effect.map(requestUrl(request), (url) => {
    // As DRF: the link to the first page drops `page` rather than saying `page=1`.
    if (page === 1) url.searchParams.delete("page")
    else url.searchParams.set("page", String(page))
    return url.toString()
  })

/**
 * Runs a paginated query: counts, refuses a page past the end (page 1 of nothing is an empty page), then
 * fetches the page with `LIMIT`/`OFFSET` and builds the envelope. A query with `fetchCounted` is one round trip
 * when its window has rows; an empty window (an empty list, a page past the end) is counted and fetched as before.
 */
export const paginate = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  page: PageRequest,
  query: PagedQuery<A, E, R>
): Effect.Effect<Page<A>, E | NotFound, R> =>
  Effect.gen(function* () {
    const window = { limit: page.limit, offset: page.offset }
    const counted = query.fetchCounted === undefined ? undefined : yield* query.fetchCounted(window)
    const count = counted !== undefined && counted.rows.length > 0 ? counted.count : yield* query.count
    const pages = Math.max(1, Math.ceil(count / page.pageSize))
    if (page.page > pages) return yield* invalidPage()
    const results = counted !== undefined && counted.rows.length > 0 ? counted.rows : yield* query.fetch(window)
    return {
      count,
      next: page.page < pages ? yield* pageLink(request, page.page + 1) : null,
      previous: page.page > 1 ? yield* pageLink(request, page.page - 1) : null,
      results
    }
  })

/** A page window: `LIMIT`/`OFFSET`. */
export interface Window {
  readonly limit: number
  readonly offset: number
}

/** A window's rows, and the count of all rows as the same statement saw it. */
export interface CountedRows<A> {
  readonly rows: ReadonlyArray<A>
  readonly count: number
}

/** A paginated query as {@link paginate} runs it: the count of all rows and a fetch of one window. */
export interface PagedQuery<A, E = never, R = never> {
  readonly count: Effect.Effect<number, E, R>
  readonly fetch: (window: Window) => Effect.Effect<ReadonlyArray<A>, E, R>
  /**
   * Optional, to save a round trip: the window with the count of all rows in one statement (the count as an
   * uncorrelated scalar subquery beside each row, which PostgreSQL runs once). Its `count` is read only when the
   * window has rows.
   */
  readonly fetchCounted?: (window: Window) => Effect.Effect<CountedRows<A>, E, R>
}

/** The rows of a statement that selects each row's `view` and the count of all rows as `total` (see `fetchCounted`). */
export const countedViews = <A>(rows: ReadonlyArray<{ readonly view: A; readonly total: string | number }>) => ({
  rows: rows.map((row) => row.view),
  count: rows.length === 0 ? 0 : Number(rows[0]!.total)
})

/**
 * The count-then-fetch query of a list: `SELECT count(*) FROM {from} WHERE {where}`, then
 * `{select} WHERE {where} ORDER BY … LIMIT … OFFSET …` with each row decoded: by `rows.schema` (a row that does
 * not decode is a defect naming `rows.table`), or by a `decode` function. Database errors are defects, as in
 * every repository read.
 * @param from the table (with the alias `where` and the ordering use) for the count
 * @param select the `SELECT … FROM …` of the rows, joins included, without `WHERE`
 */
export const page = <Row extends object, A, I = unknown>(
  sql: SqlClient.SqlClient,
  options: {
    readonly from: Statement.Fragment
    readonly select: Statement.Fragment
    readonly where: Statement.Fragment
    readonly ordering: Ordering<string>
  } & (
    | { readonly decode: (row: Row) => A }
    | { readonly rows: { readonly table: string; readonly schema: Schema.Schema<A, I> } }
  )
): PagedQuery<A> => {
  const fetch = (window: Window) =>
    sql`${options.select} WHERE ${options.where}
      ORDER BY ${options.ordering.orderBy(sql)} LIMIT ${window.limit} OFFSET ${window.offset}`
  return {
    count: sql<{
      readonly count: string | number
    }>`SELECT count(*) AS count FROM ${options.from} WHERE ${options.where}`.pipe(
      Effect.map((rows) => Number(rows[0]!.count)),
      Effect.orDie
    ),
    fetch:
      "rows" in options
        ? (window) =>
            SqlSchema.findAll({ Request: Schema.Void, Result: options.rows.schema, execute: () => fetch(window) })(
              undefined
            ).pipe(dieUndecodable(options.rows.table), Effect.orDie)
        : (window) =>
            fetch(window).pipe(
              Effect.map((rows) => (rows as ReadonlyArray<object> as ReadonlyArray<Row>).map(options.decode)),
              Effect.orDie
            )
  }
}
