import { OrganizationId } from "@helpdesk/domain"
import { Schema } from "effect"

/**
 * Schemas of column values as the `pg` driver reads them, for decoding rows at the SQL boundary
 * (`SqlSchema.findAll({ Result: … })`): a row that does not match is a defect naming the offending field.
 */

/** A `bigint`/`bigserial` column: `pg` reads int8 as a decimal string (tried first), other drivers may give a number. */
export const BigInt8 = Schema.Union(Schema.NumberFromString.pipe(Schema.int()), Schema.Int)

/** A `timestamptz` column: `pg` reads it as a `Date`. */
export const Timestamptz = Schema.DateFromSelf

/** A `jsonb` column holding `schema`: parsed by the driver, or its text where a driver leaves it unparsed. */
export const Jsonb = <A, I>(schema: Schema.Schema<A, I>) => Schema.Union(schema, Schema.parseJson(schema))

/**
 * A `bigint` column holding an organization's id (`organizations.id`, `organization_id`), read as the domain's
 * {@link OrganizationId}: its decimal string, whichever way the driver reads int8.
 */
export const OrganizationIdColumn: Schema.Schema<OrganizationId, string | number> = Schema.transform(
  Schema.Union(Schema.String.pipe(Schema.pattern(/^\d+$/)), Schema.Int),
  OrganizationId,
  { strict: true, decode: (id) => String(id), encode: (id) => id }
)
