import { WEEKDAYS } from "@helpdesk/schedule"
import { Array as Arr, Effect, Either, ParseResult, Schema } from "effect"
import { NON_FIELD_ERRORS, ValidationError } from "../Http/Errors.js"
import type { RawBody } from "../Http/RequestBody.js"
import { ownValue, untrustedRecord } from "../Http/UntrustedKeys.js"
import { jsonTextIssues, textIssuesError } from "../Http/UntrustedText.js"
import { ScheduleChange, validateScheduleBody } from "./Validation.js"

/**
 * Business-hours bodies as one JSON-like object, whatever their media type. The kernel's field decoding handles
 * flat fields; these bodies have a nested `weekly_hours` map and nullable times, which form and multipart bodies
 * spell in their own ways:
 * - `weekly_hours` as a JSON string (`weekly_hours={"mon":{"opens_at":"09:00","closes_at":"17:00"}}`), or as
 *   fields `weekly_hours.mon.opens_at=09:00` / `weekly_hours[mon][opens_at]=09:00`, with `weekly_hours.mon=`
 *   closing the day;
 * - an empty `opens_at=` / `closes_at=` is null, as DRF reads a blank form value of a nullable field.
 */

const jsonTypeName = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)

/** A JSON body that is not an object, in the kernel's words. */
const notAnObject = (value: unknown) =>
  new ValidationError({
    errors: { [NON_FIELD_ERRORS]: [`Invalid data. Expected a JSON object, but got ${jsonTypeName(value)}.`] }
  })

const lastValues = (fields: Record<string, ReadonlyArray<string>>): Record<string, string> => {
  const out = untrustedRecord<string>()
  for (const [key, values] of Object.entries(fields)) out[key] = values[values.length - 1] ?? ""
  return out
}

const NESTED_KEY = /^weekly_hours(?:\.([^.[\]]+)(?:\.([^.[\]]+))?|\[([^[\]]+)\](?:\[([^[\]]+)\])?)$/

/** The fields a day of a form body may set; any other nested field is ignored, as unknown fields are. */
const DAY_FIELDS: ReadonlyArray<string> = ["opens_at", "closes_at"]

/**
 * `weekly_hours` of a form body: the JSON string, or the object its nested fields spell. The day keys are the
 * client's (an unknown one is reported by validation), so the objects have no prototype (`UntrustedKeys`).
 */
const weeklyHoursOfForm = (fields: Record<string, string>): Effect.Effect<unknown, ValidationError> => {
  const nested = untrustedRecord<Record<string, unknown> | null>()
  let hasNested = false
  for (const [key, value] of Object.entries(fields)) {
    const match = NESTED_KEY.exec(key)
    if (match === null) continue
    hasNested = true
    const dayKey = (match[1] ?? match[3])!
    const field = match[2] ?? match[4]
    if (field === undefined) {
      if (value.trim() === "" || value.trim() === "null") nested[dayKey] = null
      continue
    }
    const current = ownValue(nested, dayKey)
    const record = current === null || current === undefined ? untrustedRecord<unknown>() : current
    if (DAY_FIELDS.includes(field)) record[field] = value.trim() === "" ? null : value
    nested[dayKey] = record
  }
  const text = ownValue(fields, "weekly_hours")
  if (text !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return Effect.fail(
        ValidationError.field(
          "weekly_hours",
          `Value must be valid JSON: an object with keys among ${WEEKDAYS.join(", ")}, e.g. {"mon":{"opens_at":"09:00","closes_at":"17:00"}}.`
        )
      )
    }
    // The JSON text of a form field, checked as a JSON body is (no U+0000, no lone surrogates).
    const refused = jsonTextIssues(parsed)
    return refused.length > 0
      ? Effect.fail(textIssuesError(refused.map(({ path, message }) => ({ path: ["weekly_hours", ...path], message }))))
      : Effect.succeed(parsed)
  }
  return Effect.succeed(hasNested ? nested : undefined)
}

/** A JSON body as an object, or the kernel's refusal of any other JSON value. */
const jsonObject = (value: unknown): Effect.Effect<Record<string, unknown>, ValidationError> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? Effect.succeed(value as Record<string, unknown>)
    : Effect.fail(notAnObject(value))

/** The body of `PUT …/business-hours/` as an object. */
export const scheduleBody = (body: RawBody): Effect.Effect<Record<string, unknown>, ValidationError> => {
  if (body._tag === "Json") return jsonObject(body.value)
  const fields = lastValues(body.fields)
  return Effect.map(weeklyHoursOfForm(fields), (weekly) => {
    const out = untrustedRecord<unknown>()
    const timezone = ownValue(fields, "timezone")
    if (timezone !== undefined) out.timezone = timezone
    if (weekly !== undefined) out.weekly_hours = weekly
    return out
  })
}

/** The body of an exception `POST`/`PATCH` as an object. */
export const exceptionBody = (body: RawBody): Effect.Effect<Record<string, unknown>, ValidationError> => {
  if (body._tag === "Json") return jsonObject(body.value)
  const out: Record<string, unknown> = lastValues(body.fields)
  for (const key of DAY_FIELDS) {
    const value = ownValue(out, key)
    if (typeof value === "string" && value.trim() === "") out[key] = null
  }
  return Effect.succeed(out)
}

/**
 * The body of `PUT …/business-hours/` (as {@link scheduleBody} gives it) decoded into the schedule change it asks
 * for: every field error as an issue at its wire path (`["weekly_hours", "mon", "opens_at"]`).
 */
export const ScheduleChangeFromBody = Schema.transformOrFail(Schema.Unknown, ScheduleChange, {
  strict: true,
  decode: (body, _, ast) =>
    Either.match(validateScheduleBody(body as Record<string, unknown>, []), {
      onLeft: (issues) => {
        const located = issues.map(({ path, message }) => {
          const problem = new ParseResult.Type(ast, body, message)
          return Arr.isNonEmptyReadonlyArray(path) ? new ParseResult.Pointer(path, body, problem) : problem
        })
        // Validation reports at least one issue whenever it refuses a body.
        return ParseResult.fail(
          Arr.isNonEmptyArray(located) ? new ParseResult.Composite(ast, body, located) : new ParseResult.Type(ast, body)
        )
      },
      onRight: (valid) => ParseResult.succeed({ timeZone: valid.timeZone, weeklyHours: valid.weeklyHours })
    }),
  encode: (change, _, ast) =>
    ParseResult.fail(new ParseResult.Forbidden(ast, change, "A schedule change is not encoded."))
})
