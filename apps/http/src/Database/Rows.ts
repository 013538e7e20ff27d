import { Data, Effect, ParseResult, Schema } from "effect"
import { BigInt8 } from "./Columns.js"

/**
 * Rows decoded at the SQL boundary. Repositories read rows with `SqlSchema` and a row schema whose type is the
 * feature's domain model; a stored row that does not decode is data the code cannot read, a defect that names
 * its table (never a silently wrong answer).
 */

/** A stored row that does not decode with its schema. */
export class UndecodableRow extends Data.TaggedError("UndecodableRow")<{
  readonly table: string
  readonly cause: ParseResult.ParseError
}> {
  override get message() {
    return `A row of ${this.table} does not decode: ${this.cause.message}`
  }
}

/** Makes a decoding failure of `table`'s rows a defect naming the table; other failures pass through. */
export const dieUndecodable =
  (table: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, ParseResult.ParseError>, R> =>
    Effect.catchIf(effect, ParseResult.isParseError, (cause) =>
      Effect.die(new UndecodableRow({ table, cause }))
    ) as Effect.Effect<A, Exclude<E, ParseResult.ParseError>, R>

/** A `bigint` column read as the id type `id` (a branded integer). */
export const int8 = <A>(id: Schema.Schema<A, number>): Schema.Schema<A, string | number> => Schema.compose(BigInt8, id)
