import { Effect, Schema } from "effect"
import { NotFound } from "./Errors.js"

/**
 * `{organization_id}`: the organization's `public_id`. Declared as a plain string so HttpApi never answers 400
 * for it; `OrganizationAccess.require` turns a malformed or unknown id into 404, and a known one into the
 * organization's internal id (the domain's `OrganizationId`, a different value; decision 0809).
 */
export const OrganizationPublicId = Schema.String.annotations({
  jsonSchema: { type: "string", pattern: "^[-a-zA-Z0-9_]+$", description: "The organization's `public_id`." }
})

/** Path of endpoints under `/organizations/{organization_id}/`. */
export const OrganizationPath = Schema.Struct({ organization_id: OrganizationPublicId })

/** An integer id in a path (`{pk}`, `{ticket_id}`); parse with {@link parseIntegerId}, anything else is 404. */
export const IntegerId = Schema.String.annotations({ jsonSchema: { type: "integer", minimum: 1 } })

/** The integer an id path segment names, or undefined (answer 404) when it is not a positive integer. */
export const parseIntegerId = (segment: string): number | undefined =>
  /^[1-9]\d{0,15}$/.test(segment) && Number.isSafeInteger(Number(segment)) ? Number(segment) : undefined

/** The integer an id path segment names, or `NotFound` (404) when it is not a positive integer. */
export const integerIdOrNotFound = (segment: string): Effect.Effect<number, NotFound> => {
  const id = parseIntegerId(segment)
  return id === undefined ? Effect.fail(new NotFound()) : Effect.succeed(id)
}

/** {@link parseIntegerId} for a typed id: the id a path segment names, branded by `make`, or undefined. */
export const parseIntegerIdAs =
  <Id>(make: (id: number) => Id) =>
  (segment: string): Id | undefined => {
    const id = parseIntegerId(segment)
    return id === undefined ? undefined : make(id)
  }

/** A UUID in a path (`{company_id}`), parsed by its feature; anything else is 404. */
export const UuidId = Schema.String.annotations({ jsonSchema: { type: "string", format: "uuid" } })

/** The path parameter that names an item: its name, how it shows in OpenAPI, and the id a segment names. */
export interface ItemId<Param extends string, Id> {
  readonly param: Param
  readonly schema: Schema.Schema<string>
  /** The id a path segment names, or undefined (404). */
  readonly parse: (segment: string) => Id | undefined
}

/** An integer item id named `param` ({@link IntegerId}), branded by `make` (a plain number without it). */
export function integerIdParam<const Param extends string>(param: Param): ItemId<Param, number>
export function integerIdParam<const Param extends string, Id>(
  param: Param,
  make: (id: number) => Id
): ItemId<Param, Id>
export function integerIdParam<const Param extends string, Id>(
  param: Param,
  make?: (id: number) => Id
): ItemId<Param, Id | number> {
  return { param, schema: IntegerId, parse: make === undefined ? parseIntegerId : parseIntegerIdAs(make) }
}

/** A UUID item id named `param` ({@link UuidId}), parsed by `parse`. */
export const uuidIdParam = <const Param extends string, Id>(
  param: Param,
  parse: (segment: string) => Id | undefined
): ItemId<Param, Id> => ({ param, schema: UuidId, parse })
