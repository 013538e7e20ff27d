import pg from "pg"

/**
 * A `pg` client that sends every parameterised statement under a name, so each connection parses it once and
 * PostgreSQL keeps its plan (an unnamed statement is parsed and planned on every execution). The name stands for
 * the statement's text: one text, one name, for the life of the process. `@effect/sql` runs every statement through
 * `client.query(text, values)`, so every endpoint, worker and projection gets this without asking for it.
 *
 * Not named: statements whose columns come from a table's `*` (see `STAR_COLUMNS`; a `*` over a record set whose
 * columns the statement defines is named), and texts longer than 8,000 characters.
 * Bounded: only the first {@link MAX_NAMED_STATEMENTS} distinct texts get a name (a text built per call, such as an
 * `IN` list of varying length, would otherwise keep a plan per variant in every session); later ones are sent
 * unnamed, as before. Statements without values (`BEGIN`, `COMMIT`, scripts of several statements) keep the simple
 * protocol, and a query object that names itself or streams (cursors) is left as it is.
 *
 * Only for connections that are sessions of their own (not PGlite, not a transaction-mode pooler): see
 * `PgPool.Pool.namedStatements`.
 */
export const NamedStatementsClient = class extends pg.Client {
  // @ts-expect-error one signature for `pg`'s overloads; arguments are passed on unchanged but for the name
  override query(...args: Array<unknown>): unknown {
    const [config, values] = args
    if (typeof config === "string" && hasValues(values)) {
      const name = nameOf(config)
      if (name !== undefined) args[0] = { name, text: config }
    } else if (isPlainQuery(config) && (hasValues(config.values) || hasValues(values))) {
      const name = nameOf(config.text)
      if (name !== undefined) args[0] = { ...config, name }
    }
    return (super.query as (...args: Array<unknown>) => unknown)(...args)
  }
  // What `pg.Pool` takes as its `Client`: the signature is `pg.Client`'s, only the name is added.
} as unknown as typeof pg.Client

// A query config without a name, and not a submittable (a cursor or stream drives its own protocol).
const isPlainQuery = (config: unknown): config is { readonly text: string; readonly values?: unknown } =>
  typeof config === "object" &&
  config !== null &&
  typeof (config as { text?: unknown }).text === "string" &&
  (config as { name?: unknown }).name === undefined &&
  typeof (config as { submit?: unknown }).submit !== "function"

// As `pg` decides: a statement without values goes by the simple protocol (which also runs scripts of several).
const hasValues = (values: unknown): boolean => Array.isArray(values) && values.length > 0

/** How many distinct statement texts are sent under a name (see {@link NamedStatementsClient}). */
export const MAX_NAMED_STATEMENTS = 500

// Longer texts are generated (bulk inserts): a plan kept for each would not be reused.
const MAX_TEXT_LENGTH = 8_000

const names = new Map<string, string>()

// `SELECT *`, `t.*`, `RETURNING *`: a kept plan fixes the row type, and a migration that adds a column (another
// replica upgrading first) would fail every later execution with "cached plan must not change result type".
const STAR_COLUMNS = /\bSELECT\s+\*|\w\.\*|\bRETURNING\s+\*/i

// `SELECT * FROM jsonb_to_recordset($1) AS r(id bigint, …)`: the statement itself lists those columns, so no
// migration can change them (the read model's batched upserts).
const DEFINED_RECORDS = /\bSELECT\s+\*\s+FROM\s+jsonb?_to_recordset\(/gi

const nameOf = (text: string): string | undefined => {
  const known = names.get(text)
  if (known !== undefined || names.size >= MAX_NAMED_STATEMENTS || text.length > MAX_TEXT_LENGTH) return known
  if (STAR_COLUMNS.test(text.replace(DEFINED_RECORDS, ""))) return undefined
  const name = `hdq_${names.size + 1}`
  names.set(text, name)
  return name
}
