import { type SqlClient, type SqlError, SqlSchema, type Statement } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Array as Arr, Effect, Option, Predicate, Schema } from "effect"
import type { Ordering } from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { containsPattern } from "../Search/SearchText.js"
import { BigInt8 } from "./Columns.js"
import { dieUndecodable } from "./Rows.js"

/**
 * The reads and writes every repository of an organization's items repeats, written once: one item by its key
 * (or undefined), the one row a write returns (or the feature's not-found failure), a delete by id. Rows are
 * decoded with `Schema` at the SQL boundary; a row that does not decode is a defect naming its table
 * (`Rows.dieUndecodable`), and a database error on a read is a defect.
 */

/** The options of a list searched by keywords (every term must match), in the order the request asks for. */
export interface Search {
  readonly search: string
  readonly ordering: Ordering<string>
}

/** The time a write stamps (`created_at`, `updated_at`): the `Clock`'s, so tests may set it. */
export const now: Effect.Effect<Date> = Effect.map(
  Effect.clockWith((clock) => clock.currentTimeMillis),
  (ms) => new Date(ms)
)

/**
 * A read of one row of `table` by `Request` (`SqlSchema.findOne`), decoded by `Result`: the item or undefined,
 * under the span `span`.
 */
export const findOne = <IA, II, A, AI>(options: {
  readonly table: string
  readonly span: string
  readonly Request: Schema.Schema<IA, II>
  readonly Result: Schema.Schema<A, AI>
  readonly execute: (request: II) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>
}): ((request: IA) => Effect.Effect<A | undefined>) => {
  const find = SqlSchema.findOne(options)
  return (request) =>
    find(request).pipe(
      Effect.map(Option.getOrUndefined),
      dieUndecodable(options.table),
      Effect.orDie,
      withSpan(options.span)
    )
}

/** The first row a statement returns (`… RETURNING`, `SELECT`), decoded by `schema`; none when it returns none. */
export const returning =
  <A, AI>(table: string, schema: Schema.Schema<A, AI>) =>
  <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<Option.Option<A>, E, R> =>
    statement.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(schema))),
      Effect.map(Arr.head),
      dieUndecodable(table)
    )

const IdRow = Schema.Struct({ id: BigInt8 })

/**
 * The `id` of the row a statement returns (`… RETURNING id`, `SELECT id …`), decoded from the driver's decimal
 * string; none when it returns no row (an `ON CONFLICT` that did nothing).
 */
export const returnedId =
  (table: string) =>
  <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<Option.Option<number>, E, R> =>
    statement.pipe(returning(table, IdRow), Effect.map(Option.map((row) => row.id)))

/**
 * The rows of `table` as a repository reads them, decoded by `schema`: `findById`, the organization's item with an
 * id or undefined (under the span `span`), `returning`, the first row a statement returns, `written`, the row a
 * write returns, and `page`, one page of the table's rows. Its `table` and `schema` are the `rows` of
 * `Pagination.page`.
 */
export const table = <A, AI>(table: string, schema: Schema.Schema<A, AI>) => ({
  table,
  schema,
  findById: <Id>(
    span: string,
    select: (organizationId: OrganizationId, id: Id) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>
  ): ((organizationId: OrganizationId, id: Id) => Effect.Effect<A | undefined>) => {
    // Ids are typed by `select`; they reach the statement as they are.
    const find = findOne({
      table,
      span,
      Request: Schema.Struct({ organizationId: Schema.typeSchema(OrganizationId), id: Schema.Any }),
      Result: schema,
      execute: ({ organizationId, id }) => select(organizationId, id as Id)
    })
    return (organizationId, id) => find({ organizationId, id })
  },
  returning: returning(table, schema),
  /** One page of the table's `columns` where `where` holds, in `ordering` (`Pagination.page` of the table alone). */
  page: (
    sql: SqlClient.SqlClient,
    options: {
      readonly columns: Statement.Fragment
      readonly where: Statement.Fragment
      readonly ordering: Ordering<string>
    }
  ): Pagination.PagedQuery<A> =>
    Pagination.page(sql, {
      from: sql`${sql(table)}`,
      select: sql`SELECT ${options.columns} FROM ${sql(table)}`,
      where: options.where,
      ordering: options.ordering,
      rows: { table, schema }
    }),
  /** The row a write that always returns one (`INSERT … RETURNING`, an update of a locked row) returns, decoded. */
  written: <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(
      returning(table, schema)(statement),
      Option.match({
        onNone: () => Effect.dieMessage(`A write to ${table} returned no row`),
        onSome: (row) => Effect.succeed(row)
      })
    )
})

/** The item found, or the failure `notFound()` when there is none (a write that touched no row of this id). */
export const orNotFound =
  <N>(notFound: () => N) =>
  <A, E, R>(effect: Effect.Effect<Option.Option<A>, E, R>): Effect.Effect<A, E | N, R> =>
    Effect.flatMap(
      effect,
      Option.match({ onNone: () => Effect.fail(notFound()), onSome: (item) => Effect.succeed(item) })
    )

/** Deletes the organization's row `id` of `table`; fails with `notFound()` when it has none. */
export const deleteById = <N>(
  sql: SqlClient.SqlClient,
  table: string,
  organizationId: OrganizationId,
  id: number | string,
  notFound: () => N
): Effect.Effect<void, N | SqlError.SqlError> =>
  sql`DELETE FROM ${sql(table)} WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`.pipe(
    Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(notFound()) : Effect.void))
  )

/**
 * Sets the `columns` whose value is not undefined, with `updated_at`, on the organization's row `id` of `table`;
 * writes nothing when every value is undefined (a change names only the columns it changes).
 */
export const updateById = (
  sql: SqlClient.SqlClient,
  table: string,
  organizationId: OrganizationId,
  id: number | string,
  updatedAt: Date,
  columns: { readonly [column: string]: unknown }
): Effect.Effect<void, SqlError.SqlError> => {
  const changed = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined))
  return Object.keys(changed).length === 0
    ? Effect.void
    : Effect.asVoid(
        sql`UPDATE ${sql(table)} SET ${sql.update({ ...changed, updatedAt })}
            WHERE organization_id = ${organizationId} AND id = ${id}`
      )
}

/** PostgreSQL's code for a unique violation. */
const UNIQUE_VIOLATION = "23505"

/** The failure a write gives when it breaks a unique constraint, by constraint name; undefined for none. */
export type UniqueRefusals<E> = { readonly [constraint: string]: (() => E) | undefined }

/**
 * A write's database error as the refusal of the unique constraint it broke (a race lost to another write, or a
 * check the constraint alone makes), or a defect for any other error.
 */
export const refuseUnique =
  <E>(refusals: UniqueRefusals<E>) =>
  (error: SqlError.SqlError): Effect.Effect<never, E> => {
    const cause = error.cause as { readonly code?: string; readonly constraint?: string } | undefined
    const refusal =
      cause?.code === UNIQUE_VIOLATION && cause.constraint !== undefined ? refusals[cause.constraint] : undefined
    return refusal === undefined ? Effect.die(error) : Effect.fail(refusal())
  }

/**
 * A repository's write under the span `span`: in one transaction of `transaction` when given, a unique
 * constraint it breaks refused as `unique` says ({@link refuseUnique}), any other database error a defect.
 */
export const write =
  <N = never>(
    span: string,
    options: { readonly transaction?: SqlClient.SqlClient; readonly unique?: UniqueRefusals<N> } = {}
  ) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError.SqlError> | N, R> =>
    (options.transaction === undefined ? effect : options.transaction.withTransaction(effect)).pipe(
      Effect.catchIf(
        (error): error is SqlError.SqlError => Predicate.isTagged(error, "SqlError"),
        refuseUnique(options.unique ?? {})
      ),
      withSpan(span)
    ) as Effect.Effect<A, Exclude<E, SqlError.SqlError> | N, R>

/**
 * The condition of a searched list: `scope` (e.g. the organization's rows) and, for every search term, `match` of
 * the `LIKE` pattern containing it.
 */
export const everyTerm = (
  sql: SqlClient.SqlClient,
  scope: Statement.Fragment,
  terms: ReadonlyArray<string>,
  match: (pattern: string) => Statement.Fragment
): Statement.Fragment => sql.and([scope, ...terms.map((term) => match(containsPattern(term)))])
