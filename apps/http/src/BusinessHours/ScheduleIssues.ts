import { type ScheduleIssue, WEEKDAYS } from "@helpdesk/schedule"

/**
 * `@helpdesk/schedule` reports problems with its own camelCase paths (`["weeklyHours", "mon", "opensAt"]`) and
 * messages that name its own keys. The API shows them under the wire's field names
 * (`{"weekly_hours":{"mon":{"opens_at":[…]}}}`) with messages that name the wire's fields, so every issue code
 * is worded here again, per context: weekly hours accept `HH:MM` only, exceptions also `HH:MM:SS`.
 */

/** Where an issue comes from: the weekly schedule (`PUT …/business-hours/`) or one exception. */
export type IssueContext = "weekly" | "exception"

/** One field error: the wire path of the field and its message. */
export interface FieldIssue {
  readonly path: ReadonlyArray<string>
  readonly message: string
}

const WIRE_NAMES: Readonly<Record<string, string>> = {
  timeZone: "timezone",
  weeklyHours: "weekly_hours",
  opensAt: "opens_at",
  closesAt: "closes_at",
  repeatsYearly: "repeats_yearly"
}

const wireName = (segment: string | number): string => {
  const name = String(segment)
  return Object.hasOwn(WIRE_NAMES, name) ? WIRE_NAMES[name]! : name
}

const TIME_SHAPE = /^\d{2}:\d{2}(?::\d{2})?$/
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/

/** The raw value at a schedule-input path, to quote it in a message. */
const valueAt = (input: unknown, path: ReadonlyArray<string | number>): unknown => {
  let current = input
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined
    // Own values only: a path may hold a client's key such as "__proto__".
    current = Object.hasOwn(current, segment) ? (current as Record<string | number, unknown>)[segment] : undefined
  }
  return current
}

const quote = (value: unknown) => JSON.stringify(typeof value === "string" ? value.slice(0, 100) : String(value))

const timeMessage = (context: IssueContext, value: unknown): string => {
  const formats = context === "weekly" ? "HH:MM" : "HH:MM or HH:MM:SS"
  if (typeof value === "string" && TIME_SHAPE.test(value))
    return `${quote(value)} is not a time of day. Use ${formats} from 00:00 to ${context === "weekly" ? "23:59" : "23:59:59"} (24:00 only as closes_at).`
  return `Time has wrong format. Use ${formats}.`
}

/** The wire message of one schedule issue. */
const messageOf = (issue: ScheduleIssue, context: IssueContext, value: unknown): string => {
  const field = wireName(issue.path[issue.path.length - 1] ?? "")
  switch (issue.code) {
    case "required":
      return "This field is required."
    case "invalid_time_zone":
      return typeof value === "string" ? `Unknown time zone ${quote(value)}.` : "Not a valid string."
    case "invalid_time":
      return timeMessage(context, value)
    case "seconds_not_allowed":
      return "Time has wrong format. Use HH:MM (weekly hours take no seconds)."
    case "invalid_opening_time":
      return "24:00 is accepted as closes_at only. Use 00:00 to 23:59 for opens_at."
    case "unknown_weekday":
      return `Unknown weekday ${quote(field)}. Use one of ${WEEKDAYS.join(", ")}.`
    case "invalid_date":
      return typeof value === "string" && DATE_SHAPE.test(value)
        ? `${quote(value)} is not a calendar date. Use YYYY-MM-DD with a month from 01 to 12 and a day that exists in that month.`
        : "Date has wrong format. Use YYYY-MM-DD."
    case "incomplete_range": {
      const other = field === "opens_at" ? "closes_at" : "opens_at"
      return `This field is required when ${other} is set. Set both opens_at and closes_at, or ${
        context === "weekly" ? "make the day null to close it" : "leave both null to close the date"
      }.`
    }
    case "duplicate_date":
      return "An exception for this date already exists. Use one exception per date."
    case "invalid_type":
      if (field === "repeats_yearly") return "Must be a valid boolean (true/false, 1/0 or yes/no)."
      if (field === "weekly_hours") return `Expected an object with keys among ${WEEKDAYS.join(", ")}.`
      if ((WEEKDAYS as ReadonlyArray<string>).includes(field))
        return "Must be null (closed) or an object with opens_at and closes_at."
      return issue.message
  }
}

/**
 * The field errors of a schedule's issues. `input` is the schedule input the issues are about (to quote bad
 * values); `dropPrefix` removes a leading path (`["exceptions", 3]` when one exception is checked inside a
 * whole schedule).
 */
export const fieldIssues = (
  issues: ReadonlyArray<ScheduleIssue>,
  options: { readonly context: IssueContext; readonly input: unknown; readonly dropPrefix?: number }
): ReadonlyArray<FieldIssue> =>
  issues.map((issue) => ({
    path: issue.path.slice(options.dropPrefix ?? 0).map(wireName),
    message: messageOf(issue, options.context, valueAt(options.input, issue.path))
  }))
