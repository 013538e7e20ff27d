import { Effect, ParseResult, Schema, SchemaAST } from "effect"

/**
 * Body field schemas with Django REST Framework semantics and messages.
 *
 * Each field decodes from `unknown`, so one schema serves JSON, form and multipart bodies alike: form values are
 * strings, so booleans accept `true/false/1/0/yes/no` (any case) and integers accept digit strings, in JSON too,
 * as DRF does. A failure carries a human message ("Ensure this field has no more than 255 characters.") that
 * `RequestBody` puts under the field's name. Each field declares its JSON Schema, so `/openapi.json` shows the
 * accepted type rather than "anything".
 *
 * Use them inside `Schema.Struct`; wrap fields that may be omitted (every field of a PATCH) in {@link optional}.
 */

/** Marks list fields, so form bodies wrap a single `key=value` into a one-element list. */
export const ListFieldId: unique symbol = Symbol.for("@helpdesk/http/Fields/List")

type JsonSchema = Record<string, unknown>

/** A field from a parse function returning the value or an error message. */
export const make = <A>(
  to: Schema.Schema<A>,
  jsonSchema: JsonSchema,
  parse: (input: unknown) => { readonly ok: true; readonly value: A } | { readonly ok: false; readonly message: string }
): Schema.Schema<A, unknown> =>
  Schema.transformOrFail(Schema.Unknown, to, {
    strict: true,
    decode: (input, _, ast) => {
      if (input === null) return ParseResult.fail(new ParseResult.Type(ast, input, "This field may not be null."))
      const result = parse(input)
      return result.ok
        ? ParseResult.succeed(result.value)
        : ParseResult.fail(new ParseResult.Type(ast, input, result.message))
    },
    encode: ParseResult.succeed
  }).annotations({ jsonSchema })

const ok = <A>(value: A) => ({ ok: true as const, value })
const fail = (message: string) => ({ ok: false as const, message })

/** Options of a text field. Strings are trimmed first, as DRF does. */
export interface TextOptions {
  readonly maxLength: number
  readonly minLength?: number
  /** `""` is accepted (the default for optional settings). */
  readonly allowBlank?: boolean
  readonly description?: string
  /** A further rule on the trimmed, non-blank value: the error message, or `undefined` when it holds. */
  readonly check?: (value: string) => string | undefined
}

const textValue = (input: unknown): string | undefined =>
  typeof input === "string"
    ? input.trim()
    : typeof input === "number" && Number.isFinite(input)
      ? String(input)
      : undefined

const checkLength = (value: string, options: TextOptions) => {
  if (value === "" && !options.allowBlank) return fail("This field may not be blank.")
  if ([...value].length > options.maxLength)
    return fail(`Ensure this field has no more than ${options.maxLength} characters.`)
  if (options.minLength !== undefined && value !== "" && [...value].length < options.minLength)
    return fail(`Ensure this field has at least ${options.minLength} characters.`)
  return ok(value)
}

/** A string, trimmed, with a maximum length counted in characters (code points). */
export const text = (options: TextOptions) =>
  make(
    Schema.String,
    {
      type: "string",
      maxLength: options.maxLength,
      ...(options.allowBlank ? {} : { minLength: 1 }),
      ...(options.description ? { description: options.description } : {})
    },
    (input) => {
      const value = textValue(input)
      if (value === undefined) return fail("Not a valid string.")
      const length = checkLength(value, options)
      const problem = length.ok && value !== "" ? options.check?.(value) : undefined
      return problem === undefined ? length : fail(problem)
    }
  )

// The HTML living standard's e-mail grammar (what browsers accept in <input type=email>), plus a dot in the domain.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/

/** True when `value` is an e-mail address the service accepts. */
export const isEmail = (value: string): boolean => EMAIL.test(value)

/**
 * A trimmed string of an OpenAPI `format` (at most `defaultMaxLength` characters unless told otherwise), blank only
 * when allowed; a non-blank value of the right length is then read by `parse`.
 */
const formatted =
  (
    format: string,
    defaultMaxLength: number,
    parse: (
      value: string
    ) => { readonly ok: true; readonly value: string } | { readonly ok: false; readonly message: string }
  ) =>
  (options: { readonly maxLength?: number; readonly allowBlank?: boolean } = {}) => {
    const opts: TextOptions = {
      maxLength: options.maxLength ?? defaultMaxLength,
      allowBlank: options.allowBlank ?? false
    }
    return make(
      Schema.String,
      { type: "string", format, maxLength: opts.maxLength, ...(opts.allowBlank ? {} : { minLength: 1 }) },
      (input) => {
        const value = textValue(input)
        if (value === undefined) return fail("Not a valid string.")
        const length = checkLength(value, opts)
        return !length.ok || value === "" ? length : parse(value)
      }
    )
  }

/** An e-mail address (at most 254 characters unless told otherwise); the domain is lower-cased. */
export const email = formatted("email", 254, (value) => {
  if (!isEmail(value)) return fail("Enter a valid email address.")
  const at = value.lastIndexOf("@")
  return ok(`${value.slice(0, at)}@${value.slice(at + 1).toLowerCase()}`)
})

/** An absolute `http`/`https` URL (at most 200 characters unless told otherwise, as DRF's URLField). */
export const url = formatted("uri", 200, (value) => {
  try {
    const parsed = new URL(value)
    if ((parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "") return ok(value)
  } catch {
    // falls through to the message
  }
  return fail("Enter a valid URL (http:// or https://).")
})

const TRUE = new Set(["true", "1", "yes"])
const FALSE = new Set(["false", "0", "no"])

/** The string values a boolean field accepts (any case), besides JSON `true`/`false`. */
export const parseBooleanText = (value: string): boolean | undefined => {
  const folded = value.trim().toLowerCase()
  return TRUE.has(folded) ? true : FALSE.has(folded) ? false : undefined
}

/** A boolean: JSON `true`/`false`, `1`/`0`, or the strings `true/false/1/0/yes/no` in any case. */
export const boolean = make(Schema.Boolean, { type: "boolean" }, (input) => {
  if (typeof input === "boolean") return ok(input)
  if (input === 1 || input === 0) return ok(input === 1)
  const parsed = typeof input === "string" ? parseBooleanText(input) : undefined
  return parsed === undefined ? fail("Must be a valid boolean (true/false, 1/0 or yes/no).") : ok(parsed)
})

/** Options of an integer field. */
export interface IntegerOptions {
  readonly minimum?: number
  readonly maximum?: number
  readonly description?: string
}

// Form values are strings: digits with an optional sign, nothing else (no spaces, fraction, exponent or hex).
const INTEGER_TEXT = /^[-+]?[0-9]+$/

/**
 * An integer: a JSON number without fraction, or a string of digits with an optional sign. JSON booleans,
 * fractions, `"1e3"`, `" 1"`, `"0x1"` and integers beyond 2^53 − 1 are refused ("A valid integer is required.").
 */
export const integer = (options: IntegerOptions = {}) =>
  make(
    Schema.Int,
    {
      type: "integer",
      ...(options.minimum !== undefined ? { minimum: options.minimum } : {}),
      ...(options.maximum !== undefined ? { maximum: options.maximum } : {}),
      ...(options.description ? { description: options.description } : {})
    },
    (input) => {
      const value =
        typeof input === "number"
          ? input
          : typeof input === "string" && INTEGER_TEXT.test(input)
            ? Number(input)
            : Number.NaN
      if (!Number.isSafeInteger(value)) return fail("A valid integer is required.")
      if (options.minimum !== undefined && value < options.minimum)
        return fail(`Ensure this value is greater than or equal to ${options.minimum}.`)
      if (options.maximum !== undefined && value > options.maximum)
        return fail(`Ensure this value is less than or equal to ${options.maximum}.`)
      return ok(value)
    }
  )

/** Largest id a reference field accepts: every stored id is a PostgreSQL `bigint`, read as a JS number. */
export const MAX_ID = Number.MAX_SAFE_INTEGER

// DRF names the received type in Python's words ("Incorrect type. Expected pk value, received bool.").
const pythonTypeName = (input: unknown) =>
  typeof input === "boolean"
    ? "bool"
    : typeof input === "string"
      ? "str"
      : typeof input === "number"
        ? "float"
        : Array.isArray(input)
          ? "list"
          : typeof input === "object"
            ? "dict"
            : typeof input

const shownPk = (input: string) => (input.length > 32 ? `${input.slice(0, 32)}…` : input)

/**
 * Parses a reference to a stored object by its integer primary key, with the messages of DRF's
 * `PrimaryKeyRelatedField`: a JSON integer or a string of ASCII digits (form values) is a pk; anything else
 * (booleans, fractions, `"1e3"`, `" 1"`, `"+1"`, `"0x1"`, lists, objects) is
 * `Incorrect type. Expected pk value, received <type>.`; a pk no object can have (zero, negative, beyond
 * {@link MAX_ID}) is `Invalid pk "<pk>" - object does not exist.`, the message of an unknown reference.
 */
export const parseId = (
  input: unknown
): { readonly ok: true; readonly value: number } | { readonly ok: false; readonly message: string } => {
  if (input === null) return fail("This field may not be null.")
  const pk =
    typeof input === "number" && Number.isInteger(input)
      ? input
      : typeof input === "string" && /^-?[0-9]+$/.test(input)
        ? Number(input)
        : undefined
  if (pk === undefined) return fail(`Incorrect type. Expected pk value, received ${pythonTypeName(input)}.`)
  if (pk < 1 || pk > MAX_ID)
    return fail(`Invalid pk "${shownPk(typeof input === "string" ? input : String(input))}" - object does not exist.`)
  return ok(pk)
}

/**
 * A reference to a stored object by its integer id (DRF's `PrimaryKeyRelatedField`; see {@link parseId}).
 * Whether the object exists in the organization is checked where the reference is used, with the same
 * `Invalid pk "<pk>" - object does not exist.` message.
 */
export const id = make(Schema.Int, { type: "integer", minimum: 1, maximum: MAX_ID }, parseId)

/**
 * A client's value as a message quotes it, as `String` shows it, for any JSON or form value: `String` itself
 * throws on `{"toString": 1}` (and on prototype-less objects) and overflows the stack on a 10,000-deep list.
 */
export const shown = (input: unknown, depth = 0): string =>
  Array.isArray(input)
    ? depth >= 8
      ? "…"
      : input.map((item) => (item === null || item === undefined ? "" : shown(item, depth + 1))).join(",")
    : input !== null && typeof input === "object"
      ? "[object Object]"
      : String(input)

/** One of a fixed set of strings. */
export const choice = <const Values extends ReadonlyArray<string>>(values: Values) =>
  make(Schema.Literal(...values), { type: "string", enum: [...values] }, (input) =>
    typeof input === "string" && (values as ReadonlyArray<string>).includes(input)
      ? ok(input as Values[number])
      : fail(`"${shown(input)}" is not a valid choice. Allowed: ${values.join(", ")}.`)
  )

const LANGUAGE_TAG = /^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{1,8})*$/

/** Canonical form of a BCP 47 language tag (`pt-br` → `pt-BR`), or undefined when it is not one. */
export const canonicalLanguageTag = (value: string): string | undefined => {
  if (!LANGUAGE_TAG.test(value)) return undefined
  try {
    const [canonical] = Intl.getCanonicalLocales(value)
    return canonical
  } catch {
    return undefined
  }
}

/** A BCP 47 language tag starting with an ISO 639 language code (`en`, `pt-BR`), stored in canonical case. */
export const languageTag = make(
  Schema.String,
  { type: "string", pattern: LANGUAGE_TAG.source, description: "BCP 47 language tag, e.g. `en` or `pt-BR`." },
  (input) => {
    const canonical = typeof input === "string" ? canonicalLanguageTag(input.trim()) : undefined
    return canonical === undefined
      ? fail(`"${shown(input)}" is not a valid language code. Use a BCP 47 tag such as "en" or "pt-BR".`)
      : ok(canonical)
  }
)

/** A list: a JSON array, or a repeated key in a form body (`ids=a&ids=b`). */
export const list = <A>(item: Schema.Schema<A, unknown>, options: { readonly maxItems?: number } = {}) =>
  Schema.transformOrFail(Schema.Unknown, Schema.Array(Schema.typeSchema(item)), {
    strict: true,
    decode: (input, parseOptions, ast) => {
      if (input === null) return ParseResult.fail(new ParseResult.Type(ast, input, "This field may not be null."))
      if (!Array.isArray(input))
        return ParseResult.fail(
          new ParseResult.Type(ast, input, `Expected a list of items but got type "${typeof input}".`)
        )
      if (options.maxItems !== undefined && input.length > options.maxItems)
        return ParseResult.fail(
          new ParseResult.Type(ast, input, `Ensure this field has no more than ${options.maxItems} elements.`)
        )
      return ParseResult.decodeUnknown(Schema.Array(item))(input, parseOptions)
    },
    encode: ParseResult.succeed
  }).annotations({
    [ListFieldId]: true,
    // The item's own schema, so `/openapi.json` documents what each element must be.
    jsonSchema: {
      type: "array",
      items: jsonSchemaOf(item),
      ...(options.maxItems !== undefined ? { maxItems: options.maxItems } : {})
    }
  })

/**
 * A field that also accepts `null`. An empty string is `null` too unless the field itself accepts it (a blank
 * text stays blank): a form body cannot send `null`, so `assignee_id=` clears, as in DRF, and JSON bodies get the
 * same rule so one field means one thing whatever the media type.
 */
export const nullable = <A>(field: Schema.Schema<A, unknown>) =>
  Schema.transformOrFail(Schema.Unknown, Schema.NullOr(Schema.typeSchema(field)), {
    strict: true,
    decode: (input, options) => {
      if (input === null) return ParseResult.succeed(null)
      const decoded = ParseResult.decodeUnknown(field)(input, options)
      return input === "" ? Effect.orElseSucceed(decoded, () => null) : decoded
    },
    encode: ParseResult.succeed
  }).annotations({
    jsonSchema: { anyOf: [{ type: "null" }, jsonSchemaOf(field)] },
    [ListFieldId]: field.ast.annotations[ListFieldId] === true
  })

const jsonSchemaOf = (field: Schema.Schema.Any): JsonSchema => {
  const annotation = field.ast.annotations[SchemaAST.JSONSchemaAnnotationId]
  return (annotation as JsonSchema | undefined) ?? {}
}

/** True when the schema of a body property is a list field (through `optional` and `nullable`). */
export const isListField = (ast: SchemaAST.AST): boolean => {
  if (ast.annotations[ListFieldId] === true) return true
  switch (ast._tag) {
    case "Union":
      return ast.types.some(isListField)
    case "Suspend":
      return isListField(ast.f())
    case "Refinement":
      return isListField(ast.from)
    default:
      return false
  }
}

/**
 * A field that may be omitted. Exact (no `undefined` member), so a bad value gets only the field's own message
 * and not also "Expected undefined".
 */
export const optional = <S extends Schema.Schema.All>(field: S) => Schema.optionalWith(field, { exact: true })

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A UUID in any case, returned lower-cased (the wire form of UUIDs). */
export const uuid = make(Schema.String, { type: "string", format: "uuid" }, (input) => {
  const value = typeof input === "string" ? input.trim().toLowerCase() : undefined
  return value !== undefined && UUID.test(value) ? ok(value) : fail(`"${shown(input)}" is not a valid UUID.`)
})
