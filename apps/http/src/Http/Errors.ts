import { HttpApiSchema } from "@effect/platform"
import { Data, Schema } from "effect"
import { ownValue, setOwn, untrustedRecord } from "./UntrustedKeys.js"

/**
 * The HTTP errors of the service, in the wire shapes of docs/api-conventions.md (Django REST Framework style).
 *
 * Each error is a yieldable `Data.TaggedError` (so handlers can `yield* new NotFound()`), paired with a wire
 * schema that encodes it to exactly `{"detail": ...}` (or the field-error object) with its status. The wire
 * schemas are registered once on the root `HttpApi`, so every endpoint may fail with any of them and
 * `/openapi.json` documents them everywhere. Domain errors never appear here: map them in the handler.
 */

const Detail = Schema.Struct({ detail: Schema.String })

const detailError = <E extends { readonly detail: string }>(
  ctor: new (args: { readonly detail: string }) => E,
  identifier: string,
  status: number,
  description: string
) =>
  Schema.transform(
    Detail,
    Schema.declare((u): u is E => u instanceof ctor),
    {
      strict: true,
      decode: ({ detail }) => new ctor({ detail }),
      encode: (error) => ({ detail: error.detail })
    }
  ).annotations({ identifier, description, ...HttpApiSchema.annotations({ status }) })

/** 404 `{"detail":"Not found."}`: a missing resource, or one the caller may not see. */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly detail: string }> {
  constructor(args: { readonly detail?: string } = {}) {
    super({ detail: args.detail ?? "Not found." })
  }
}

/** 403: the caller may read but not perform this action. */
export class PermissionDenied extends Data.TaggedError("PermissionDenied")<{ readonly detail: string }> {
  constructor(args: { readonly detail?: string } = {}) {
    super({ detail: args.detail ?? "You do not have permission to perform this action." })
  }
}

/** 401: missing or invalid credentials. The response also carries `WWW-Authenticate: X-Service-Token`. */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly detail: string }> {
  static readonly notProvided = () => new Unauthorized({ detail: "Authentication credentials were not provided." })
  static readonly invalidToken = () => new Unauthorized({ detail: "Invalid token." })
}

/** 409: a version conflict that survived retries, or another conflicting state. */
export class Conflict extends Data.TaggedError("Conflict")<{ readonly detail: string }> {}

/** 413: the request body or upload is larger than the named limit. */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly detail: string }> {}

/** 415: a request body in a content type the endpoint does not accept. */
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{ readonly detail: string }> {
  static readonly of = (contentType: string) =>
    new UnsupportedMediaType({ detail: `Unsupported media type "${contentType}" in request.` })
}

/** 400 with a `detail` message: a body that is not parseable at all (malformed JSON, unreadable form). */
export class BadRequest extends Data.TaggedError("BadRequest")<{ readonly detail: string }> {}

/**
 * Field errors: each offending field maps to a list of messages, nested fields to nested objects, and rules
 * across fields go under `non_field_errors`.
 */
export interface FieldErrors {
  readonly [field: string]: ReadonlyArray<string> | FieldErrors
}

/** The key DRF uses for errors that belong to no single field. */
export const NON_FIELD_ERRORS = "non_field_errors"

/** 400 with a field-error object. */
export class ValidationError extends Data.TaggedError("ValidationError")<{ readonly errors: FieldErrors }> {
  /** One message for one (possibly nested) field: `ValidationError.field(["weekly_hours", "mon"], "…")`. */
  static readonly field = (path: string | ReadonlyArray<string>, message: string) =>
    new ValidationError({ errors: nest(typeof path === "string" ? [path] : path, [message]) })
  /** A message about the request as a whole (a broken state rule, a cross-field rule). */
  static readonly nonField = (message: string) => ValidationError.field(NON_FIELD_ERRORS, message)
}

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
export class InternalServerError extends Data.TaggedError("InternalServerError")<{ readonly requestId: string }> {}

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

/** Wire schemas of the errors above, to register on the root API and to name in endpoint definitions. */
export const Wire = {
  NotFound: detailError(NotFound, "NotFound", 404, "Not found, or not visible to the caller."),
  PermissionDenied: detailError(
    PermissionDenied,
    "PermissionDenied",
    403,
    "The caller's role may read but not perform this action."
  ),
  Unauthorized: detailError(
    Unauthorized,
    "Unauthorized",
    401,
    "Missing or invalid `X-Service-Token`. The response carries `WWW-Authenticate: X-Service-Token`."
  ),
  Conflict: detailError(Conflict, "Conflict", 409, "A conflicting change (a version conflict that survived retries)."),
  PayloadTooLarge: detailError(PayloadTooLarge, "PayloadTooLarge", 413, "The body is larger than the named limit."),
  UnsupportedMediaType: detailError(
    UnsupportedMediaType,
    "UnsupportedMediaType",
    415,
    "Bodies are accepted as application/json, application/x-www-form-urlencoded or multipart/form-data."
  ),
  BadRequest: detailError(BadRequest, "BadRequest", 400, "Malformed body, e.g. `JSON parse error - <reason>`."),
  ValidationError: Schema.transform(
    FieldErrorsAsIs,
    Schema.declare((u): u is ValidationError => u instanceof ValidationError),
    {
      strict: true,
      decode: (errors) => new ValidationError({ errors }),
      encode: (error) => error.errors
    }
  ).annotations({
    identifier: "ValidationError",
    description:
      "Each offending field maps to a list of messages; nested fields to nested objects; cross-field rules under `non_field_errors`.",
    ...HttpApiSchema.annotations({ status: 400 })
  }),
  InternalServerError: Schema.transform(
    Schema.Struct({ detail: Schema.Literal("Internal server error."), request_id: Schema.String }),
    Schema.declare((u): u is InternalServerError => u instanceof InternalServerError),
    {
      strict: true,
      decode: ({ request_id }) => new InternalServerError({ requestId: request_id }),
      encode: (error) => ({ detail: "Internal server error." as const, request_id: error.requestId })
    }
  ).annotations({
    identifier: "InternalServerError",
    description: "An unexpected failure; the log holds the cause under `request_id`.",
    ...HttpApiSchema.annotations({ status: 500 })
  })
}
