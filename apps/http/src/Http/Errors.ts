import { HttpApiSchema } from "@effect/platform"
import { type Cause, Data, Match, Schema } from "effect"
import { ownValue, setOwn, untrustedRecord } from "./UntrustedKeys.js"

/**
 * The HTTP errors of the service, in the wire shapes of docs/api-conventions.md (Django REST Framework style).
 *
 * Each error is declared once with {@link HttpError}: a yieldable `Data.TaggedError` (so handlers can
 * `yield* new NotFound()`) whose static `Wire` is the schema that encodes it to exactly `{"detail": ...}` (or the
 * field-error object) with its status. The wire schemas ({@link Wire}) are registered once on the root
 * `HttpApi`, so every endpoint may fail with any of them and `/openapi.json` documents them everywhere. Domain
 * errors never appear here: each feature maps its reasons to these in one place.
 */

/** How an HTTP error shows on the wire. */
export interface WireOptions {
  /** The response status. */
  readonly status: number
  /** The OpenAPI description of the error's component. */
  readonly description: string
}

/** What {@link HttpError} returns: the class to extend, and its wire schema. */
export interface HttpErrorClass<Self, Tag extends string, Fields, Body> {
  new (fields: Fields): Cause.YieldableError & { readonly _tag: Tag } & Readonly<Fields>
  /** The error on the wire: its body and status. */
  readonly Wire: Schema.Schema<Self, Body>
}

const wireSchemas = new WeakMap<object, Schema.Schema.Any>()

/**
 * Declares an HTTP error class and its wire schema together:
 * `class NotFound extends HttpError<NotFound>()("NotFound", Detail, { status: 404, description })`.
 * `body` decodes the response body to the error's fields; `NotFound.Wire` is the error's schema (its identifier is
 * the tag, the OpenAPI component the error is documented as).
 */
export const HttpError =
  <Self>() =>
  <const Tag extends string, Fields extends object, Body>(
    tag: Tag,
    body: Schema.Schema<Fields, Body>,
    options: WireOptions
  ): HttpErrorClass<Self, Tag, Fields, Body> => {
    class Base extends (Data.TaggedError(tag) as new (fields: Fields) => Cause.YieldableError) {
      static get Wire(): Schema.Schema.Any {
        // One schema per class, built on first use: `this` is the declared subclass, which decoding constructs.
        // biome-ignore lint/complexity/noThisInStatic: the subclass, not `Base`
        const Self = this as unknown as new (fields: Fields) => Self
        const existing = wireSchemas.get(Self)
        if (existing !== undefined) return existing
        const schema = Schema.transform(
          body,
          Schema.declare((u): u is Self => u instanceof Self),
          // The body schema keeps only its own fields of the error when it encodes.
          { strict: false, decode: (fields) => new Self(fields), encode: (error) => error }
        ).annotations({
          identifier: tag,
          description: options.description,
          ...HttpApiSchema.annotations({ status: options.status })
        })
        wireSchemas.set(Self, schema)
        return schema
      }
    }
    return Base as unknown as HttpErrorClass<Self, Tag, Fields, Body>
  }

const Detail = Schema.Struct({ detail: Schema.String })

/** 404 `{"detail":"Not found."}`: a missing resource, or one the caller may not see. */
export class NotFound extends HttpError<NotFound>()("NotFound", Detail, {
  status: 404,
  description: "Not found, or not visible to the caller."
}) {
  constructor(args: { readonly detail?: string } = {}) {
    super({ detail: args.detail ?? "Not found." })
  }
}

/** 403: the caller may read but not perform this action. */
export class PermissionDenied extends HttpError<PermissionDenied>()("PermissionDenied", Detail, {
  status: 403,
  description: "The caller's role may read but not perform this action."
}) {
  constructor(args: { readonly detail?: string } = {}) {
    super({ detail: args.detail ?? "You do not have permission to perform this action." })
  }
}

/** 401: missing or invalid credentials. The response also carries `WWW-Authenticate: X-Service-Token`. */
export class Unauthorized extends HttpError<Unauthorized>()("Unauthorized", Detail, {
  status: 401,
  description: "Missing or invalid `X-Service-Token`. The response carries `WWW-Authenticate: X-Service-Token`."
}) {
  static readonly notProvided = () => new Unauthorized({ detail: "Authentication credentials were not provided." })
  static readonly invalidToken = () => new Unauthorized({ detail: "Invalid token." })
}

/** 409: a version conflict that survived retries, or another conflicting state. */
export class Conflict extends HttpError<Conflict>()("Conflict", Detail, {
  status: 409,
  description: "A conflicting change (a version conflict that survived retries)."
}) {}

/** 413: the request body or upload is larger than the named limit. */
export class PayloadTooLarge extends HttpError<PayloadTooLarge>()("PayloadTooLarge", Detail, {
  status: 413,
  description: "The body is larger than the named limit."
}) {}

/** 415: a request body in a content type the endpoint does not accept. */
export class UnsupportedMediaType extends HttpError<UnsupportedMediaType>()("UnsupportedMediaType", Detail, {
  status: 415,
  description: "Bodies are accepted as application/json, application/x-www-form-urlencoded or multipart/form-data."
}) {
  static readonly of = (contentType: string) =>
    new UnsupportedMediaType({ detail: `Unsupported media type "${contentType}" in request.` })
}

/** 400 with a `detail` message: a body that is not parseable at all (malformed JSON, unreadable form). */
export class BadRequest extends HttpError<BadRequest>()("BadRequest", Detail, {
  status: 400,
  description: "Malformed body, e.g. `JSON parse error - <reason>`."
}) {}

/**
 * Field errors: each offending field maps to a list of messages, nested fields to nested objects, and rules
 * across fields go under `non_field_errors`.
 */
export interface FieldErrors {
  readonly [field: string]: ReadonlyArray<string> | FieldErrors
}

/** The key DRF uses for errors that belong to no single field. */
export const NON_FIELD_ERRORS = "non_field_errors"

/**
 * The field-error object on the wire, encoded as it is. (A `Schema.Record` re-encodes into a fresh `{}` by
 * assignment, which would drop a key such as `__proto__`, the unknown weekday of a hostile body.) The JSON
 * Schema is the recursive record it is; it refers to `ValidationError`, the component it is documented as.
 */
const FieldErrorsAsIs: Schema.Schema<FieldErrors> = Schema.declare(
  (u): u is FieldErrors => typeof u === "object" && u !== null && !Array.isArray(u),
  {
    jsonSchema: {
      type: "object",
      required: [],
      properties: {},
      additionalProperties: {
        anyOf: [{ type: "array", items: { type: "string" } }, { $ref: "#/components/schemas/ValidationError" }]
      }
    }
  }
)

/** 400 with a field-error object. */
export class ValidationError extends HttpError<ValidationError>()(
  "ValidationError",
  Schema.transform(FieldErrorsAsIs, Schema.Struct({ errors: FieldErrorsAsIs }), {
    strict: true,
    decode: (errors) => ({ errors }),
    encode: ({ errors }) => errors
  }),
  {
    status: 400,
    description:
      "Each offending field maps to a list of messages; nested fields to nested objects; cross-field rules under `non_field_errors`."
  }
) {
  /** One message for one (possibly nested) field: `ValidationError.field(["weekly_hours", "mon"], "…")`. */
  static readonly field = (path: string | ReadonlyArray<string>, message: string) =>
    new ValidationError({ errors: nest(typeof path === "string" ? [path] : path, [message]) })
  /** A message about the request as a whole (a broken state rule, a cross-field rule). */
  static readonly nonField = (message: string) => ValidationError.field(NON_FIELD_ERRORS, message)
}

/**
 * A feature's table from each reason a write is refused to its answer (404, or 400 naming a field): exhaustive,
 * so a reason added to the feature does not compile until it is mapped.
 */
export const writeRefusals = <Reason extends { readonly _tag: string }>() =>
  Match.typeTags<Reason, NotFound | ValidationError>()

const nest = (path: ReadonlyArray<string>, messages: ReadonlyArray<string>): FieldErrors => {
  if (path.length === 0) return { [NON_FIELD_ERRORS]: messages }
  const [head, ...rest] = path
  return { [head!]: rest.length === 0 ? messages : nest(rest, messages) }
}

/**
 * Adds `messages` at `path` in a mutable field-error tree (used while collecting schema issues). Paths may hold
 * untrusted keys (an unknown weekday, a criterion name): only own properties are read and written.
 */
export const addFieldError = (
  tree: Record<string, unknown>,
  path: ReadonlyArray<string>,
  messages: ReadonlyArray<string>
): void => {
  if (path.length === 0) {
    addFieldError(tree, [NON_FIELD_ERRORS], messages)
    return
  }
  const [head, ...rest] = path as [string, ...Array<string>]
  const existing = ownValue(tree, head)
  if (rest.length === 0) {
    const list = Array.isArray(existing) ? existing : []
    for (const m of messages) if (!list.includes(m)) list.push(m)
    setOwn(tree, head, list)
    return
  }
  const next =
    existing !== null && typeof existing === "object" && !Array.isArray(existing) ? existing : untrustedRecord()
  setOwn(tree, head, next)
  addFieldError(next as Record<string, unknown>, rest, messages)
}

/** 500 `{"detail":"Internal server error.","request_id":"…"}`; the cause is logged under the same id. */
export class InternalServerError extends HttpError<InternalServerError>()(
  "InternalServerError",
  Schema.transform(
    Schema.Struct({ detail: Schema.Literal("Internal server error."), request_id: Schema.String }),
    Schema.Struct({ requestId: Schema.String }),
    {
      strict: true,
      decode: ({ request_id }) => ({ requestId: request_id }),
      encode: ({ requestId }) => ({ detail: "Internal server error." as const, request_id: requestId })
    }
  ),
  { status: 500, description: "An unexpected failure; the log holds the cause under `request_id`." }
) {}

/** Wire schemas of the errors above, to register on the root API and to name in endpoint definitions. */
export const Wire = {
  NotFound: NotFound.Wire,
  PermissionDenied: PermissionDenied.Wire,
  Unauthorized: Unauthorized.Wire,
  Conflict: Conflict.Wire,
  PayloadTooLarge: PayloadTooLarge.Wire,
  UnsupportedMediaType: UnsupportedMediaType.Wire,
  BadRequest: BadRequest.Wire,
  ValidationError: ValidationError.Wire,
  InternalServerError: InternalServerError.Wire
}
