import type { Statement } from "@effect/sql"
import { Effect } from "effect"
import { ValidationError } from "./Errors.js"
import * as Query from "./Query.js"

/**
 * `ordering=-created_at,id`: a comma-separated list of allowed field names, `-` for descending. Unknown fields
 * are `400 {"ordering":["Unknown ordering field: foo. Allowed: …"]}`. `id` always breaks ties so pages are
 * stable. The SQL comes only from the endpoint's allow-list (never from the request), so it is safe to inline.
 */

/** One term of an ordering. */
export interface Term<F extends string> {
  readonly field: F
  readonly descending: boolean
}

/** A parsed ordering: its terms and the SQL of its `ORDER BY` list. */
export interface Ordering<F extends string> {
  readonly terms: ReadonlyArray<Term<F>>
  /** `ORDER BY` list for `sql`…` ORDER BY ${ordering.orderBy(sql)}`. */
  readonly orderBy: (sql: Statement.Constructor) => Statement.Fragment
}

/** The ordering an endpoint allows. */
export interface OrderingSpec<F extends string> {
  /** Query parameter to spread into the endpoint's `setUrlParams` struct. */
  readonly params: { readonly ordering: ReturnType<typeof Query.param> }
  /** Parses the `ordering` parameter (absent or empty: the default). */
  readonly parse: (ordering: string | undefined) => Effect.Effect<Ordering<F>, ValidationError>
  readonly fields: ReadonlyArray<F>
}

/**
 * Defines the ordering of a list endpoint.
 * @param columns each allowed field and the SQL column (or expression) it sorts by
 * @param defaults the ordering when the request gives none
 * @param tieBreaker the unique column that ends every ordering (default `id`)
 */
export const make = <const F extends string>(options: {
  readonly columns: Readonly<Record<F, string>>
  readonly defaults: ReadonlyArray<NoInfer<F> | `-${NoInfer<F>}`>
  readonly tieBreaker?: string
}): OrderingSpec<F> => {
  const fields = Object.keys(options.columns) as Array<F>
  const tieBreaker = options.tieBreaker ?? "id"
  const allowed = [...fields].sort().join(", ")
  const build = (terms: ReadonlyArray<Term<F>>): Ordering<F> => {
    const parts = terms.map((t) => `${options.columns[t.field]} ${t.descending ? "DESC" : "ASC"}`)
    if (!terms.some((t) => options.columns[t.field] === tieBreaker)) {
      // Ties follow the direction of the last term, so `-created_at` pages newest first all the way down.
      const last = terms[terms.length - 1]
      parts.push(`${tieBreaker} ${last?.descending ? "DESC" : "ASC"}`)
    }
    const text = parts.join(", ")
    return { terms, orderBy: (sql) => sql.literal(text) }
  }
  const toTerm = (raw: string): Term<F> | undefined => {
    const descending = raw.startsWith("-")
    const field = descending ? raw.slice(1) : raw
    return (fields as ReadonlyArray<string>).includes(field) ? { field: field as F, descending } : undefined
  }
  const defaults = options.defaults.map((raw) => toTerm(raw)!)
  return {
    fields,
    params: {
      ordering: Query.param(
        `Comma-separated fields to order by, \`-\` for descending. Allowed: ${allowed}. Default: ${options.defaults.join(",")}. Ties are broken by id.`
      )
    },
    parse: (ordering) =>
      Effect.gen(function* () {
        const raws = (ordering ?? "")
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "")
        if (raws.length === 0) return build(defaults)
        const terms: Array<Term<F>> = []
        for (const raw of raws) {
          const term = toTerm(raw)
          if (term === undefined)
            return yield* ValidationError.field(
              "ordering",
              `Unknown ordering field: ${raw.replace(/^-/, "")}. Allowed: ${allowed}.`
            )
          if (!terms.some((t) => t.field === term.field)) terms.push(term)
        }
        return build(terms)
      })
  }
}

/**
 * An ordering the client does not choose (the list takes no `ordering` parameter).
 * @param orderBy the `ORDER BY` list, from code only (never from the request)
 */
export const fixed = (orderBy: string): Ordering<never> => ({ terms: [], orderBy: (sql) => sql.literal(orderBy) })
