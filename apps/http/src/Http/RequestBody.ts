import { HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { Effect, Option, ParseResult, Schema, type SchemaAST } from "effect"
import {
  addFieldError,
  BadRequest,
  type FieldErrors,
  NON_FIELD_ERRORS,
  PayloadTooLarge,
  UnsupportedMediaType,
  ValidationError
} from "./Errors.js"
import { isListField } from "./Fields.js"

/**
 * Request bodies, decoded the way the wire conventions say.
 *
 * Endpoints with a body declare it with `setPayload(schema)` (so `/openapi.json` documents it) but are
 * implemented with `handlers.handleRaw`, which leaves the body unread; the handler calls {@link decode}. That
 * gives us what HttpApi's own decoding cannot: `415` for other media types, `400 JSON parse error - …` for
 * malformed JSON (HttpApi dies on it), form values coerced per field, and DRF field errors with human messages.
 */

/** Largest JSON or form body accepted (uploads set their own limits). */
export const MAX_BODY_BYTES = 1024 * 1024

/** The media types a body may have. */
export const ACCEPTED_MEDIA_TYPES = [
  "application/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data"
] as const

/** Errors {@link decode} fails with; all are registered on the root API. */
export type BodyError = ValidationError | BadRequest | UnsupportedMediaType | PayloadTooLarge

/** A body as read from the wire, before field decoding: JSON value, or form fields. */
export type RawBody =
  | { readonly _tag: "Json"; readonly value: unknown }
  | { readonly _tag: "Form"; readonly fields: Record<string, ReadonlyArray<string>> }
  | {
      readonly _tag: "Multipart"
      readonly fields: Record<string, ReadonlyArray<string>>
      readonly files: Record<string, ReadonlyArray<File>>
    }

const mediaTypeOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const header = request.headers["content-type"]
  return header === undefined ? undefined : header.split(";")[0]!.trim().toLowerCase()
}

const tooLarge = () =>
  new PayloadTooLarge({ detail: `Request body is too large. The limit is ${MAX_BODY_BYTES / 1024 / 1024} MB.` })

const declaredLength = (request: HttpServerRequest.HttpServerRequest) => {
  const header = request.headers["content-length"]
  return header === undefined ? undefined : Number(header)
}

const bounded = <A, E>(request: HttpServerRequest.HttpServerRequest, read: Effect.Effect<A, E>) => {
  const length = declaredLength(request)
  if (length !== undefined && length > MAX_BODY_BYTES) return Effect.fail(tooLarge())
  return read.pipe(
    HttpIncomingMessage.withMaxBodySize(Option.some(MAX_BODY_BYTES)),
    Effect.mapError((error) =>
      String((error as { cause?: unknown }).cause).includes("maxBytes exceeded")
        ? tooLarge()
        : new BadRequest({ detail: "Could not read the request body." })
    )
  )
}

const readText = (request: HttpServerRequest.HttpServerRequest) => bounded(request, request.text)

const readBytes = (request: HttpServerRequest.HttpServerRequest) => bounded(request, request.arrayBuffer)

const append = <A>(record: Record<string, Array<A>>, key: string, value: A) => {
  const list = record[key]
  if (list === undefined) record[key] = [value]
  else list.push(value)
}

const groupPairs = (pairs: Iterable<readonly [string, string]>) => {
  const fields: Record<string, Array<string>> = {}
  for (const [key, value] of pairs) append(fields, key, value)
  return fields
}

/** Reads the body in whichever accepted media type it has, without interpreting its fields. */
export const read = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<RawBody, BodyError> =>
  Effect.gen(function* () {
    const mediaType = mediaTypeOf(request)
    if (mediaType === undefined) {
      // No content type: fine for an empty body (a PATCH that changes nothing), otherwise unsupported.
      const text = yield* readText(request)
      if (text.trim() === "") return { _tag: "Json", value: {} } as const
      return yield* UnsupportedMediaType.of("")
    }
    if (mediaType === "application/json" || mediaType.endsWith("+json")) {
      const text = yield* readText(request)
      if (text.trim() === "") return { _tag: "Json", value: {} } as const
      try {
        return { _tag: "Json", value: JSON.parse(text) as unknown } as const
      } catch (error) {
        return yield* new BadRequest({ detail: `JSON parse error - ${(error as Error).message}` })
      }
    }
    if (mediaType === "application/x-www-form-urlencoded") {
      const text = yield* readText(request)
      return { _tag: "Form", fields: groupPairs(new URLSearchParams(text)) } as const
    }
    if (mediaType === "multipart/form-data") {
      // Parsed from the (bounded) bytes with the WHATWG parser: it rejects a truncated body, where a streaming
      // parser waits for a boundary that never comes. Large file uploads use their own endpoints.
      const bytes = yield* readBytes(request)
      const form = yield* Effect.tryPromise({
        try: () => new Response(bytes, { headers: { "content-type": request.headers["content-type"]! } }).formData(),
        catch: (error) => new BadRequest({ detail: `Multipart form parse error - ${(error as Error).message}` })
      })
      const fields: Record<string, Array<string>> = {}
      const files: Record<string, Array<File>> = {}
      form.forEach((value, key) => {
        if (typeof value === "string") append(fields, key, value)
        else append(files, key, value)
      })
      return { _tag: "Multipart", fields, files } as const
    }
    return yield* UnsupportedMediaType.of(request.headers["content-type"]!.split(";")[0]!.trim())
  })

const propertySignatures = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.PropertySignature> => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast.propertySignatures
    case "Refinement":
      return propertySignatures(ast.from)
    case "Transformation":
      return propertySignatures(ast.from)
    case "Suspend":
      return propertySignatures(ast.f())
    default:
      return []
  }
}

/**
 * Form fields as the values a JSON body would carry: one string per key (the last one, as DRF's QueryDict),
 * or a list for list fields. Field schemas then coerce strings to booleans and integers.
 */
export const formToObject = (
  fields: Record<string, ReadonlyArray<string>>,
  schema: Schema.Schema.Any
): Record<string, unknown> => {
  const lists = new Set(
    propertySignatures(schema.ast)
      .filter((ps) => isListField(ps.type))
      .map((ps) => String(ps.name))
  )
  const out: Record<string, unknown> = {}
  for (const [key, values] of Object.entries(fields)) out[key] = lists.has(key) ? values : values[values.length - 1]
  return out
}

const jsonTypeName = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)

/** Turns the issues of a failed decode into a DRF field-error object. */
export const toFieldErrors = (error: ParseResult.ParseError): FieldErrors => {
  const tree: Record<string, unknown> = {}
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const message =
      issue._tag === "Missing"
        ? "This field is required."
        : issue._tag === "Unexpected"
          ? "Unknown field."
          : issue.message
    addFieldError(
      tree,
      issue.path.map((segment) => String(segment)),
      [message]
    )
  }
  return tree as FieldErrors
}

/** Decodes an already-read value against a body schema, failing with DRF field errors. */
export const decodeValue = <A, I, R>(
  schema: Schema.Schema<A, I, R>,
  value: unknown
): Effect.Effect<A, ValidationError, R> => {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return Effect.fail(
      new ValidationError({
        errors: { [NON_FIELD_ERRORS]: [`Invalid data. Expected a JSON object, but got ${jsonTypeName(value)}.`] }
      })
    )
  return Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })(value).pipe(
    Effect.mapError((error) => new ValidationError({ errors: toFieldErrors(error) }))
  )
}

/**
 * Reads and decodes the request body with a body schema (built from `Fields`). Unknown and read-only fields
 * are ignored; every offending field is reported at once.
 */
export const decode = <A, I, R>(
  request: HttpServerRequest.HttpServerRequest,
  schema: Schema.Schema<A, I, R>
): Effect.Effect<A, BodyError, R> =>
  Effect.flatMap(read(request), (body) =>
    decodeValue(schema, body._tag === "Json" ? body.value : formToObject(body.fields, schema))
  )
