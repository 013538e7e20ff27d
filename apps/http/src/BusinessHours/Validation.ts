import {
  compileSchedule,
  type ExceptionInput,
  type Schedule,
  ScheduleError,
  type ScheduleInput,
  validateException,
  WEEKDAYS,
  type Weekday
} from "@helpdesk/schedule"
import { Either, ParseResult, Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { ownValue, untrustedRecord } from "../Http/UntrustedKeys.js"
import { type FieldIssue, fieldIssues } from "./ScheduleIssues.js"

/**
 * Validation of business-hours bodies, as pure functions over the decoded wire body (a JSON object, or form
 * fields turned into one). Shapes and types are checked here with the kernel's field messages; everything about
 * times, dates and zones is decided by `@helpdesk/schedule` (`validateException`, `compileSchedule`) and its
 * issues are reworded for the wire by `ScheduleIssues`. Every problem is reported at once.
 */

/** One weekday's opening as stored and shown: `HH:MM` times; a closing at or before the opening is overnight. */
export interface DayHours {
  readonly opens_at: string
  readonly closes_at: string
}

/** Weekly hours as stored and shown: all seven weekdays, each closed (`null`) or one range. */
export type WeeklyHours = { readonly [K in Weekday]: DayHours | null }

/** The writable fields of a business-hours exception, as stored and shown (`HH:MM:SS` times once stored). */
export interface ExceptionFields {
  /** `YYYY-MM-DD`, a date in the schedule's time zone. */
  readonly date: string
  /** A label for the date; may be empty; at most 64 characters. */
  readonly name: string
  /** Repeats on this month and day every year from the date's year on (29 February only in leap years). */
  readonly repeats_yearly: boolean
  /** Both null: the date is closed; both set: its one range (overnight when closing is earlier). */
  readonly opens_at: string | null
  readonly closes_at: string | null
}

/** A stored exception. */
export interface StoredException extends ExceptionFields {
  readonly id: number
}

/** Weekly hours as a schema (all seven weekdays, each closed or one range), as stored and as a change carries them. */
export const WeeklyHoursModel: Schema.Schema<WeeklyHours> = Schema.Record({
  key: Schema.Literal(...WEEKDAYS),
  value: Schema.NullOr(Schema.Struct({ opens_at: Schema.String, closes_at: Schema.String }))
})

/** A valid replacement of the weekly schedule: the canonical zone and all seven days (omitted days closed). */
export const ScheduleChange = Schema.Struct({ timeZone: Schema.String, weeklyHours: WeeklyHoursModel })

/** A valid replacement of the weekly schedule. */
export type ScheduleChange = typeof ScheduleChange.Type

/** Outcome of a validation: the valid value, or every field error found. */
export type Validated<A> = Either.Either<A, ReadonlyArray<FieldIssue>>

/** Largest `name` of an exception. */
export const EXCEPTION_NAME_MAX_LENGTH = 64

/** A weekly schedule in which every day is closed. */
export const CLOSED_WEEK: WeeklyHours = {
  mon: null,
  tue: null,
  wed: null,
  thu: null,
  fri: null,
  sat: null,
  sun: null
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const hasOwn = (record: Record<string, unknown>, key: string) => Object.hasOwn(record, key)

const exceptionInput = (exception: ExceptionFields): ExceptionInput => ({
  date: exception.date,
  opensAt: exception.opens_at,
  closesAt: exception.closes_at,
  repeatsYearly: exception.repeats_yearly
})

/** The schedule package's input for a stored schedule and its exceptions. */
export const scheduleInputOf = (
  timeZone: string,
  weekly: WeeklyHours,
  exceptions: ReadonlyArray<ExceptionFields>
): ScheduleInput => ({
  timeZone,
  weeklyHours: Object.fromEntries(
    WEEKDAYS.map((day) => {
      const range = weekly[day]
      return [day, range === null ? null : { opensAt: range.opens_at, closesAt: range.closes_at }]
    })
  ),
  exceptions: exceptions.map(exceptionInput)
})

/** Compiles a stored schedule (which was valid when saved). */
export const compileStored = (
  timeZone: string,
  weekly: WeeklyHours,
  exceptions: ReadonlyArray<ExceptionFields>
): Schedule => compileSchedule(scheduleInputOf(timeZone, weekly, exceptions))

const issue = (path: ReadonlyArray<string>, message: string): FieldIssue => ({ path, message })

/** A field that may not be null, and what to say when it is missing or null. */
const presence = (record: Record<string, unknown>, key: string, required: boolean): FieldIssue | "absent" | "ok" => {
  if (!hasOwn(record, key) || record[key] === undefined)
    return required ? issue([key], "This field is required.") : "absent"
  if (record[key] === null) return issue([key], "This field may not be null.")
  return "ok"
}

/** Runs a kernel field schema on one value; its first message on failure. */
const checkField = <A>(schema: Schema.Schema<A, unknown>, value: unknown): Either.Either<A, string> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema)(value),
    (error) => ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "Invalid value."
  )

const ZONE_HINT = "Use an IANA time zone name such as Europe/Berlin or America/New_York."

/** The accepted value of the time zone field: a non-blank string (trimmed). */
const timeZoneField = (record: Record<string, unknown>): Either.Either<string, FieldIssue> => {
  const present = presence(record, "timezone", true)
  if (present !== "ok") return Either.left(present as FieldIssue)
  const value = record.timezone
  if (typeof value !== "string") return Either.left(issue(["timezone"], `Not a valid string. ${ZONE_HINT}`))
  const trimmed = value.trim()
  if (trimmed === "") return Either.left(issue(["timezone"], "This field may not be blank."))
  return Either.right(trimmed)
}

/**
 * The weekly hours field as the schedule package reads them: wire keys renamed, bad values kept for it to report.
 * An object without either time is refused here (the package would read it as closed; the API asks for `null`).
 */
const weeklyField = (
  record: Record<string, unknown>
): Either.Either<
  { readonly input: Record<string, unknown>; readonly issues: ReadonlyArray<FieldIssue> },
  FieldIssue
> => {
  const present = presence(record, "weekly_hours", true)
  if (present !== "ok") return Either.left(present as FieldIssue)
  const value = record.weekly_hours
  if (!isRecord(value))
    return Either.left(
      issue(
        ["weekly_hours"],
        `Expected an object with keys among ${WEEKDAYS.join(", ")} (each null or {opens_at, closes_at}; an omitted day is closed).`
      )
    )
  // No prototype: a key such as "__proto__" stays a key (reported as an unknown weekday).
  const input = untrustedRecord<unknown>()
  const issues: Array<FieldIssue> = []
  for (const [day, hours] of Object.entries(value)) {
    if (!isRecord(hours)) {
      input[day] = hours
      continue
    }
    const opens = ownValue(hours, "opens_at")
    const closes = ownValue(hours, "closes_at")
    if ((opens === undefined || opens === null) && (closes === undefined || closes === null)) {
      if ((WEEKDAYS as ReadonlyArray<string>).includes(day)) {
        for (const key of ["opens_at", "closes_at"])
          issues.push(
            issue(["weekly_hours", day, key], "This field is required. Use HH:MM, or make the day null to close it.")
          )
        continue
      }
    }
    input[day] = { opensAt: opens, closesAt: closes }
  }
  return Either.right({ input, issues })
}

const weeklyHoursOf = (input: Record<string, unknown>): WeeklyHours => {
  const out: Record<string, DayHours | null> = { ...CLOSED_WEEK }
  for (const day of WEEKDAYS) {
    const range = ownValue(input, day) as { opensAt: string; closesAt: string } | null | undefined
    if (range !== null && range !== undefined) out[day] = { opens_at: range.opensAt, closes_at: range.closesAt }
  }
  return out as WeeklyHours
}

const scheduleIssues = (error: unknown, context: "weekly" | "exception", input: unknown, dropPrefix = 0) => {
  if (error instanceof ScheduleError) return fieldIssues(error.issues, { context, input, dropPrefix })
  throw error
}

/** A valid replacement of the schedule: the canonical zone, all seven days, and the compiled schedule. */
export interface ValidSchedule {
  readonly timeZone: string
  readonly weeklyHours: WeeklyHours
  readonly schedule: Schedule
}

/**
 * Validates the body of `PUT …/business-hours/` (`timezone`, `weekly_hours`) with `exceptions`, compiling the
 * whole schedule (none at the HTTP boundary: `BusinessHours.replace` compiles the change with the stored ones). The zone is stored under its canonical name (`europe/berlin` →
 * `Europe/Berlin`); omitted days are closed.
 */
export const validateScheduleBody = (
  body: Record<string, unknown>,
  exceptions: ReadonlyArray<ExceptionFields>
): Validated<ValidSchedule> => {
  const issues: Array<FieldIssue> = []
  const zone = timeZoneField(body)
  if (Either.isLeft(zone)) issues.push(zone.left)
  const weekly = weeklyField(body)
  if (Either.isLeft(weekly)) issues.push(weekly.left)
  else issues.push(...weekly.right.issues)
  // Compile even when the zone is bad, with a stand-in zone, so day problems are reported in the same answer.
  const input: ScheduleInput = {
    timeZone: Either.getOrElse(zone, () => "UTC"),
    weeklyHours: Either.isRight(weekly) ? weekly.right.input : {},
    exceptions: exceptions.map(exceptionInput)
  }
  let schedule: Schedule | undefined
  try {
    schedule = compileSchedule(input)
  } catch (error) {
    const wireInput = { ...input, weeklyHours: Either.isRight(weekly) ? weekly.right.input : {} }
    issues.push(...scheduleIssues(error, "weekly", wireInput))
  }
  if (issues.length > 0 || schedule === undefined || Either.isLeft(weekly)) return Either.left(issues)
  return Either.right({
    timeZone: schedule.timeZone ?? input.timeZone,
    weeklyHours: weeklyHoursOf(weekly.right.input),
    schedule
  })
}

/** Defaults of a new exception's optional fields. */
const NEW_EXCEPTION = { name: "", repeats_yearly: false, opens_at: null, closes_at: null } as const

const nameField = Fields.text({ maxLength: EXCEPTION_NAME_MAX_LENGTH, allowBlank: true })

/**
 * Validates an exception body: the whole exception for `POST` (`base` undefined: `date` required, the rest
 * defaulting to an unnamed, non-repeating closed day), or the changes of a `PATCH` merged onto `base` and the
 * merged result checked as a whole. Dates and times are checked by `@helpdesk/schedule`.
 */
export const validateExceptionBody = (
  body: Record<string, unknown>,
  base: ExceptionFields | undefined
): Validated<ExceptionFields> => {
  const issues: Array<FieldIssue> = []
  const merged: Record<string, unknown> = { ...NEW_EXCEPTION, ...base }
  // Fields whose own check failed are not checked again by the schedule package.
  const failed = new Set<string>()
  const fail = (key: string, message: string) => {
    issues.push(issue([key], message))
    failed.add(key)
  }

  const date = presence(body, "date", base === undefined)
  if (date === "ok") {
    if (typeof body.date === "string") merged.date = body.date.trim()
    else fail("date", "Date has wrong format. Use YYYY-MM-DD.")
  } else if (date !== "absent") fail("date", date.message)

  if (presence(body, "name", false) !== "absent") {
    const name = checkField(nameField, body.name)
    if (Either.isLeft(name)) fail("name", name.left)
    else merged.name = name.right
  }

  if (presence(body, "repeats_yearly", false) !== "absent") {
    const repeats = checkField(Fields.boolean, body.repeats_yearly)
    if (Either.isLeft(repeats)) fail("repeats_yearly", repeats.left)
    else merged.repeats_yearly = repeats.right
  }

  for (const key of ["opens_at", "closes_at"] as const) {
    if (!hasOwn(body, key) || body[key] === undefined) continue
    const value = body[key]
    if (value === null || typeof value === "string") merged[key] = typeof value === "string" ? value.trim() : null
    else fail(key, "Time has wrong format. Use HH:MM or HH:MM:SS, or null.")
  }

  // The schedule package's own check of the merged exception, on the fields not already refused.
  const candidate = {
    date: failed.has("date") ? "2000-01-01" : merged.date,
    opensAt: failed.has("opens_at") ? (failed.has("closes_at") ? null : "00:00") : merged.opens_at,
    closesAt: failed.has("closes_at") ? (failed.has("opens_at") ? null : "00:00") : merged.closes_at,
    repeatsYearly: merged.repeats_yearly
  }
  const scheduleProblems = fieldIssues(validateException(candidate), { context: "exception", input: candidate })
  issues.push(...scheduleProblems.filter((problem) => !failed.has(problem.path[0] ?? "")))
  if (issues.length > 0) return Either.left(issues)
  return Either.right(merged as unknown as ExceptionFields)
}

/**
 * Compiles a valid schedule change with the organization's stored exceptions, so it is only saved when the whole
 * schedule compiles.
 */
export const compileChange = (
  change: ScheduleChange,
  exceptions: ReadonlyArray<ExceptionFields>
): Validated<Schedule> => {
  const input = scheduleInputOf(change.timeZone, change.weeklyHours, exceptions)
  try {
    return Either.right(compileSchedule(input))
  } catch (error) {
    return Either.left(scheduleIssues(error, "weekly", input))
  }
}

/**
 * Compiles the schedule with `candidate` among its exceptions (replacing the one with `replacing`'s id on a
 * PATCH), so an exception is only stored when the whole schedule it joins compiles. A second exception on the
 * same date is reported on `date`.
 */
export const validateScheduleWith = (
  schedule: { readonly timeZone: string; readonly weeklyHours: WeeklyHours },
  exceptions: ReadonlyArray<StoredException>,
  candidate: ExceptionFields,
  replacing?: number
): Validated<Schedule> => {
  const others = exceptions.filter((exception) => exception.id !== replacing)
  const input = scheduleInputOf(schedule.timeZone, schedule.weeklyHours, [...others, candidate])
  try {
    return Either.right(compileSchedule(input))
  } catch (error) {
    const index = others.length
    const issues = (error as ScheduleError).issues ?? []
    const own = issues.filter((i) => i.path[0] === "exceptions" && i.path[1] === index)
    if (own.length === 0 && !(error instanceof ScheduleError)) throw error
    const mapped = scheduleIssues(new ScheduleError(own), "exception", input, 2)
    const foreign = issues.length - own.length
    return Either.left(
      foreign > 0 && mapped.length === 0
        ? [issue([], "The stored business hours no longer compile; save them again with PUT.")]
        : mapped
    )
  }
}
