import { type SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { dieUndecodable } from "./Rows.js"

/**
 * The reads and writes every repository of an organization's items repeats, written once: one item by its key
 * (or undefined), the one row a write returns (or the feature's not-found failure), a delete by id. Rows are
 * decoded with `Schema` at the SQL boundary; a row that does not decode is a defect naming its table
 * (`Rows.dieUndecodable`), and a database error on a read is a defect.
 */

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
      Effect.withSpan(options.span)
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

/**
 * The rows of `table` as a repository reads them, decoded by `schema`: `findById`, the organization's item with an
 * id or undefined (under the span `span`), `returning`, the first row a statement returns, and `written`, the row a
 * write returns. Its `table` and
 * `schema` are the `rows` of `Pagination.page`.
 */
export const table = <A, AI>(table: string, schema: Schema.Schema<A, AI>) => ({
  table,
  schema,
  findById: <Id>(
    span: string,
    select: (organizationId: number, id: Id) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>
  ): ((organizationId: number, id: Id) => Effect.Effect<A | undefined>) => {
    // Ids are typed by `select`; they reach the statement as they are.
    const find = findOne({
      table,
      span,
      Request: Schema.Struct({ organizationId: Schema.Number, id: Schema.Any }),
      Result: schema,
      execute: ({ organizationId, id }) => select(organizationId, id as Id)
    })
    return (organizationId, id) => find({ organizationId, id })
  },
  returning: returning(table, schema),
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
  organizationId: number,
  id: number | string,
  notFound: () => N
): Effect.Effect<void, N | SqlError.SqlError> =>
  sql`DELETE FROM ${sql(table)} WHERE organization_id = ${organizationId} AND id = ${id} RETURNING id`.pipe(
    Effect.flatMap((rows) => (rows.length === 0 ? Effect.fail(notFound()) : Effect.void))
  )
