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
import { ownValue, untrustedRecord } from "./UntrustedKeys.js"
import {
  BODY_NOT_UTF8,
  decodeUtf8,
  decodeUtf8Lenient,
  formPairIssues,
  formPairs,
  jsonTextIssues,
  MAX_TEXT_ISSUES,
  type TextIssue,
  textIssuesError,
  textProblem,
  UTF8_MESSAGE
} from "./UntrustedText.js"

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

/**
 * A body as read from the wire, before field decoding: JSON value, or form fields. Every key and string in it is
 * UTF-8 without U+0000 or lone surrogates (`UntrustedText`); form and multipart records have no prototype, so
 * a field named `__proto__` is an ordinary key (`UntrustedKeys`).
 */
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

const readBytes = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(bounded(request, request.arrayBuffer), (buffer) => new Uint8Array(buffer))

const isBlank = (bytes: Uint8Array) => decodeUtf8Lenient(bytes).trim() === ""

const append = <A>(record: Record<string, Array<A>>, key: string, value: A) => {
  const list = ownValue(record, key)
  if (list === undefined) record[key] = [value]
  else list.push(value)
}

/** A JSON body: strict UTF-8, parsed, and every key and string checked (`UntrustedText`). */
const parseJson = (bytes: Uint8Array): Effect.Effect<unknown, BadRequest | ValidationError> => {
  const text = decodeUtf8(bytes)
  if (text === undefined) {
    // Name the fields the bad bytes are in, when the body still parses with them replaced.
    let lenient: unknown
    try {
      lenient = JSON.parse(decodeUtf8Lenient(bytes))
    } catch {
      return Effect.fail(new BadRequest({ detail: BODY_NOT_UTF8 }))
    }
    const issues = jsonTextIssues(lenient, (s) => (s.includes("\uFFFD") ? UTF8_MESSAGE : undefined))
    return Effect.fail(issues.length > 0 ? textIssuesError(issues) : new BadRequest({ detail: BODY_NOT_UTF8 }))
  }
  if (text.trim() === "") return Effect.succeed({})
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return Effect.fail(new BadRequest({ detail: `JSON parse error - ${(error as Error).message}` }))
  }
  const issues = jsonTextIssues(value)
  return issues.length > 0 ? Effect.fail(textIssuesError(issues)) : Effect.succeed(value)
}

/** A form body: pairs decoded strictly (`%FF` is refused, not U+FFFD), grouped by name. */
const parseForm = (bytes: Uint8Array): Effect.Effect<Record<string, Array<string>>, ValidationError> => {
  const pairs = formPairs(bytes)
  const issues = formPairIssues(pairs)
  if (issues.length > 0) return Effect.fail(textIssuesError(issues))
  const fields = untrustedRecord<Array<string>>()
  for (const pair of pairs) append(fields, pair.name!, pair.value!)
  return Effect.succeed(fields)
}

const CRLF = Buffer.from("\r\n")
const HEADERS_END = Buffer.from("\r\n\r\n")

/**
 * The text parts of a multipart body whose bytes (or part headers) are not UTF-8. The WHATWG parser decodes them
 * with U+FFFD in place, so they are found here, in the raw parts; file contents are not text and are skipped.
 */
const multipartPartsNotUtf8 = (body: Uint8Array, contentType: string): ReadonlyArray<TextIssue> => {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  if (boundary === null) return []
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`, "latin1")
  const between = Buffer.concat([CRLF, delimiter])
  const issues: Array<TextIssue> = []
  let at = bytes.indexOf(delimiter)
  while (at >= 0 && issues.length < MAX_TEXT_ISSUES) {
    const start = at + delimiter.length
    const end = bytes.indexOf(between, start)
    if (end < 0) break
    const part = bytes.subarray(start, end)
    const headersEnd = part.indexOf(HEADERS_END)
    if (headersEnd >= 0) {
      const headerBytes = part.subarray(0, headersEnd)
      const headers = decodeUtf8Lenient(headerBytes)
      const isFile = /\bfilename\*?=/i.test(headers)
      if (decodeUtf8(headerBytes) === undefined || (!isFile && decodeUtf8(part.subarray(headersEnd + 4)) === undefined))
        issues.push({ path: [/\bname="([^"]*)"/i.exec(headers)?.[1] ?? ""], message: UTF8_MESSAGE })
    }
    at = end + CRLF.length
  }
  return issues
}

/** Reads the body in whichever accepted media type it has, without interpreting its fields. */
export const read = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<RawBody, BodyError> =>
  Effect.gen(function* () {
    const mediaType = mediaTypeOf(request)
    if (mediaType === undefined) {
      // No content type: fine for an empty body (a PATCH that changes nothing), otherwise unsupported.
      if (isBlank(yield* readBytes(request))) return { _tag: "Json", value: {} } as const
      return yield* UnsupportedMediaType.of("")
    }
    if (mediaType === "application/json" || mediaType.endsWith("+json")) {
      return { _tag: "Json", value: yield* parseJson(yield* readBytes(request)) } as const
    }
    if (mediaType === "application/x-www-form-urlencoded") {
      return { _tag: "Form", fields: yield* parseForm(yield* readBytes(request)) } as const
    }
    if (mediaType === "multipart/form-data") {
      // Parsed from the (bounded) bytes with the WHATWG parser: it rejects a truncated body, where a streaming
      // parser waits for a boundary that never comes. Large file uploads use their own endpoints.
      const contentType = request.headers["content-type"]!
      const bytes = yield* readBytes(request)
      const form = yield* Effect.tryPromise({
        try: () => new Response(bytes, { headers: { "content-type": contentType } }).formData(),
        catch: (error) => new BadRequest({ detail: `Multipart form parse error - ${(error as Error).message}` })
      })
      const issues: Array<TextIssue> =
        decodeUtf8(bytes) === undefined ? [...multipartPartsNotUtf8(bytes, contentType)] : []
      const fields = untrustedRecord<Array<string>>()
      const files = untrustedRecord<Array<File>>()
      form.forEach((value, key) => {
        const text = typeof value === "string" ? value : value.name
        const message = textProblem(key) ?? textProblem(text)
        if (message !== undefined && issues.length < MAX_TEXT_ISSUES) issues.push({ path: [key], message })
        if (typeof value === "string") append(fields, key, value)
        else append(files, key, value)
      })
      if (issues.length > 0) return yield* textIssuesError(issues)
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
  const out = untrustedRecord<unknown>()
  for (const [key, values] of Object.entries(fields)) out[key] = lists.has(key) ? values : values[values.length - 1]
  return out
}

const jsonTypeName = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)

/** Turns the issues of a failed decode into a DRF field-error object. */
export const toFieldErrors = (error: ParseResult.ParseError): FieldErrors => {
  const tree = untrustedRecord<unknown>()
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

/** A rule across fields, checked on the body as sent: its field errors (none: `[]`), keyed by field path. */
export type BodyRule = (body: Readonly<Record<string, unknown>>) => ReadonlyArray<{
  readonly path: ReadonlyArray<string>
  readonly message: string
}>

/**
 * {@link decode}, and `rules` checked on the body as sent even when a field fails to decode, so that every
 * offending field (a malformed one and a missing one alike) is reported in one answer.
 */
export const decodeChecked = <A, I, R>(
  request: HttpServerRequest.HttpServerRequest,
  schema: Schema.Schema<A, I, R>,
  rules: BodyRule
): Effect.Effect<A, BodyError, R> =>
  Effect.flatMap(read(request), (body) => {
    const value = body._tag === "Json" ? body.value : formToObject(body.fields, schema)
    const broken =
      value !== null && typeof value === "object" && !Array.isArray(value)
        ? rules(value as Record<string, unknown>)
        : []
    return decodeValue(schema, value).pipe(
      Effect.either,
      Effect.flatMap((decoded) => {
        if (broken.length === 0) return decoded
        const tree = untrustedRecord<unknown>()
        if (decoded._tag === "Left")
          for (const [key, messages] of Object.entries(decoded.left.errors)) tree[key] = messages
        for (const { path, message } of broken) addFieldError(tree, path, [message])
        return Effect.fail(new ValidationError({ errors: tree as FieldErrors }))
      })
    )
  })
