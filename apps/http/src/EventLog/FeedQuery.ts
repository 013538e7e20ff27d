import { type GlobalCheckpoint, GlobalCheckpointStart, ticketEventClasses } from "@helpdesk/domain"
import { Duration, Effect, Either } from "effect"
import { ValidationError } from "../Http/Errors.js"
import { decodeCursor } from "./Cursor.js"

/** Events per page of the feed when `page_size` is absent. */
export const FEED_DEFAULT_PAGE_SIZE = 100
/** The most events a page of the feed holds (`page_size` above it is clamped). */
export const FEED_MAX_PAGE_SIZE = 500
/** The longest `wait` of the feed, in seconds. */
export const FEED_MAX_WAIT_SECONDS = 30

/** The event types the feed can be narrowed to. */
export const EVENT_TYPES: ReadonlyArray<string> = Object.keys(ticketEventClasses)

/** A parsed feed query. */
export interface FeedQuery {
  /** Where to start; `"now"`: after the last event visible now (only what comes next). */
  readonly after: GlobalCheckpoint | "now"
  readonly limit: number
  readonly types: ReadonlyArray<string> | undefined
  readonly wait: Duration.Duration
}

const DIGITS = /^\d{1,9}$/

const integerIn = (
  field: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
  clamp: boolean
) => {
  if (value === undefined || value === "") return Either.right(fallback)
  if (!DIGITS.test(value)) return Either.left(ValidationError.field(field, "A valid integer is required."))
  const n = Number(value)
  if (n < min) return Either.left(ValidationError.field(field, `Ensure this value is greater than or equal to ${min}.`))
  if (n > max)
    return clamp
      ? Either.right(max)
      : Either.left(ValidationError.field(field, `Ensure this value is less than or equal to ${max}.`))
  return Either.right(n)
}

/** Splits repeated and comma-separated values, dropping empty ones. */
const listOf = (value: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> | undefined => {
  if (value === undefined) return undefined
  const values = (typeof value === "string" ? [value] : value).flatMap((v) => v.split(",")).map((v) => v.trim())
  return values.filter((v) => v !== "")
}

/**
 * Parses the feed's query: `after` (a cursor, or `now`; 400 when it is not one of ours), `page_size` (as pagination:
 * a positive integer, clamped), `types` (known event types), `wait` (0 to {@link FEED_MAX_WAIT_SECONDS}).
 * Every offending parameter is reported at once.
 */
export const parseFeedQuery = (query: {
  readonly after?: string | undefined
  readonly types?: string | ReadonlyArray<string> | undefined
  readonly wait?: string | undefined
  readonly page_size?: string | undefined
}): Effect.Effect<FeedQuery, ValidationError> => {
  const errors: Record<string, ReadonlyArray<string>> = {}
  const add = (error: ValidationError) => Object.assign(errors, error.errors)
  let after: GlobalCheckpoint | "now" = GlobalCheckpointStart
  if (query.after === "now") after = "now"
  else if (query.after !== undefined && query.after !== "") {
    const decoded = decodeCursor(query.after)
    if (Either.isLeft(decoded)) errors.after = ["Invalid cursor. Pass a `cursor` the feed answered."]
    else after = decoded.right
  }
  const limit = integerIn("page_size", query.page_size?.trim(), FEED_DEFAULT_PAGE_SIZE, 1, FEED_MAX_PAGE_SIZE, true)
  if (Either.isLeft(limit)) add(limit.left)
  const wait = integerIn("wait", query.wait?.trim(), 0, 0, FEED_MAX_WAIT_SECONDS, false)
  if (Either.isLeft(wait)) add(wait.left)
  const types = listOf(query.types)
  const unknown = (types ?? []).filter((type) => !EVENT_TYPES.includes(type))
  if (unknown.length > 0)
    errors.types = [
      `Unknown event type${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}. Allowed: ${EVENT_TYPES.join(", ")}.`
    ]
  if (Object.keys(errors).length > 0) return Effect.fail(new ValidationError({ errors }))
  return Effect.succeed({
    after,
    limit: Either.getOrElse(limit, () => FEED_DEFAULT_PAGE_SIZE),
    types: types === undefined || types.length === 0 ? undefined : types,
    wait: Duration.seconds(Either.getOrElse(wait, () => 0))
  })
}
