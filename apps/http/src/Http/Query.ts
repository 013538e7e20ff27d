import { ParseResult, Schema } from "effect"

/**
 * A query parameter for `setUrlParams`: optional, documented as a string in `/openapi.json`, and never a decode
 * error (a repeated key keeps its last value, as DRF does), so parsing and its error messages stay with the
 * helper that owns the parameter (pagination, ordering, filters).
 */
export const param = (description: string) =>
  Schema.optional(
    Schema.transformOrFail(Schema.Union(Schema.String, Schema.Array(Schema.String)), Schema.String, {
      strict: true,
      decode: (input) => ParseResult.succeed(typeof input === "string" ? input : (input[input.length - 1] ?? "")),
      encode: ParseResult.succeed
    }).annotations({ jsonSchema: { type: "string", description } })
  )
