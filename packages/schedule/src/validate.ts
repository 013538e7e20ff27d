import { DAY_MS, daysFromCivil, daysInMonth } from "./civil.js"
import type { ScheduleIssue, ScheduleIssueCode } from "./ScheduleError.js"
import { WEEKDAYS } from "./ScheduleInput.js"
import { weekdayTimeFormat } from "./ZoneTable.js"

/** An opening as offsets from the start of its day, in ms; `closeMs` past `DAY_MS` closes on the next day. */
export interface ParsedRange {
  readonly openMs: number
  readonly closeMs: number
}

export interface ParsedException {
  readonly dayNumber: number
  readonly year: number
  readonly month: number
  readonly day: number
  /** `null` closes the date. */
  readonly range: ParsedRange | null
  readonly repeatsYearly: boolean
}

export interface ParsedSchedule {
  /** The zone's canonical name as `Intl` reports it. */
  readonly timeZone: string
  /** Monday first; `null` is closed. */
  readonly weekly: ReadonlyArray<ParsedRange | null>
  readonly exceptions: ReadonlyArray<ParsedException>
}

type Path = ReadonlyArray<string | number>
type Issues = Array<ScheduleIssue>

const issue = (path: Path, code: ScheduleIssueCode, message: string): ScheduleIssue => ({ path, code, message })

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const ZONE_EXAMPLE = "Use an IANA time zone name such as Europe/Berlin or America/New_York."

/** The canonical name of an IANA time zone, or `undefined` when `Intl` does not know it. */
export const canonicalTimeZone = (timeZone: string): string | undefined => {
  const cached = canonicalNames.get(timeZone)
  if (cached !== undefined) return cached
  // Offsets such as "+05:00" are not IANA names, whatever the runtime accepts.
  if (!/^[A-Za-z]/.test(timeZone)) return undefined
  try {
    const canonical = weekdayTimeFormat(timeZone).resolvedOptions().timeZone
    if (canonicalNames.size >= 1024) canonicalNames.clear()
    canonicalNames.set(timeZone, canonical)
    return canonical
  } catch {
    return undefined
  }
}

const canonicalNames = new Map<string, string>()

const TIME = /^(\d{2}):(\d{2})(?::(\d{2}))?$/

type TimeRole = "opensAt" | "closesAt"

/** Parses `HH:MM` (and `HH:MM:SS` when `withSeconds`) into ms after midnight; `24:00` only closes. */
const parseTime = (
  value: unknown,
  role: TimeRole,
  withSeconds: boolean,
  path: Path,
  issues: Issues
): number | undefined => {
  const accepted = withSeconds ? "Use HH:MM or HH:MM:SS (24-hour)." : "Use HH:MM (24-hour)."
  const match = typeof value === "string" ? TIME.exec(value) : null
  if (match === null) {
    issues.push(issue(path, "invalid_time", `Time has wrong format. ${accepted}`))
    return undefined
  }
  const hours = Number(match[1])
  const minutes = Number(match[2])
  const seconds = match[3] === undefined ? 0 : Number(match[3])
  if (match[3] !== undefined && !withSeconds) {
    issues.push(issue(path, "seconds_not_allowed", "Seconds are not accepted in weekly hours. Use HH:MM (24-hour)."))
    return undefined
  }
  if (hours === 24 && minutes === 0 && seconds === 0) {
    if (role === "closesAt") return DAY_MS
    issues.push(
      issue(path, "invalid_opening_time", "24:00 is accepted as a closing time only. Use 00:00 to 23:59 to open.")
    )
    return undefined
  }
  if (hours > 23 || minutes > 59 || seconds > 59) {
    issues.push(
      issue(
        path,
        "invalid_time",
        `${String(value)} is not a time of day: hours go from 00 to 23, minutes${withSeconds ? " and seconds" : ""} from 00 to 59 (24:00 only as a closing time). ${accepted}`
      )
    )
    return undefined
  }
  return ((hours * 60 + minutes) * 60 + seconds) * 1000
}

/** The day's range from two parsed times: a closing at or before the opening runs into the next day. */
const rangeOf = (openMs: number, closeMs: number): ParsedRange => ({
  openMs,
  closeMs: closeMs <= openMs ? closeMs + DAY_MS : closeMs
})

/**
 * Both times of a range: both null (or absent) is `null` (closed); both set is the range; one without
 * the other is reported on the missing one.
 */
const parseRangeTimes = (
  record: Record<string, unknown>,
  withSeconds: boolean,
  path: Path,
  issues: Issues,
  closedHint: string
): ParsedRange | null | undefined => {
  const opens = record.opensAt
  const closes = record.closesAt
  const opensSet = opens !== null && opens !== undefined
  const closesSet = closes !== null && closes !== undefined
  if (!opensSet && !closesSet) return null
  const before = issues.length
  if (!opensSet || !closesSet) {
    const missing: TimeRole = opensSet ? "closesAt" : "opensAt"
    const other: TimeRole = opensSet ? "opensAt" : "closesAt"
    // Still check the time that is there, so every problem is reported at once.
    parseTime(record[other], other, withSeconds, [...path, other], issues)
    issues.push(
      issue(
        [...path, missing],
        "incomplete_range",
        `${missing} is required when ${other} is set. Set both opensAt and closesAt, or ${closedHint}.`
      )
    )
    return undefined
  }
  const openMs = parseTime(opens, "opensAt", withSeconds, [...path, "opensAt"], issues)
  const closeMs = parseTime(closes, "closesAt", withSeconds, [...path, "closesAt"], issues)
  if (issues.length > before || openMs === undefined || closeMs === undefined) return undefined
  return rangeOf(openMs, closeMs)
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

const parseDate = (
  value: unknown,
  path: Path,
  issues: Issues
): { year: number; month: number; day: number } | undefined => {
  if (value === undefined || value === null) {
    issues.push(issue(path, "required", "This field is required. Use YYYY-MM-DD."))
    return undefined
  }
  const match = typeof value === "string" ? DATE.exec(value) : null
  if (match === null) {
    issues.push(issue(path, "invalid_date", "Date has wrong format. Use YYYY-MM-DD."))
    return undefined
  }
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    issues.push(
      issue(
        path,
        "invalid_date",
        `${value} is not a calendar date. Use YYYY-MM-DD with a month from 01 to 12 and a day that exists in that month.`
      )
    )
    return undefined
  }
  return { year, month, day }
}

const parseException = (value: unknown, path: Path, issues: Issues): ParsedException | undefined => {
  if (!isRecord(value)) {
    issues.push(
      issue(path, "invalid_type", "Must be an object with date, opensAt, closesAt and optionally repeatsYearly.")
    )
    return undefined
  }
  const before = issues.length
  const date = parseDate(value.date, [...path, "date"], issues)
  const range = parseRangeTimes(value, true, path, issues, "leave both null to close the date")
  const repeats = value.repeatsYearly
  if (repeats !== undefined && repeats !== null && typeof repeats !== "boolean") {
    issues.push(issue([...path, "repeatsYearly"], "invalid_type", "Must be true or false."))
  }
  if (issues.length > before || date === undefined || range === undefined) return undefined
  return {
    dayNumber: daysFromCivil(date.year, date.month, date.day),
    ...date,
    range,
    repeatsYearly: repeats === true
  }
}

/**
 * Checks one exception on its own (`date`, `opensAt`, `closesAt`, `repeatsYearly`), as an endpoint that
 * creates or edits a single exception needs. Paths are relative to the exception (`["opensAt"]`).
 * Returns no issues when it is valid.
 */
export const validateException = (input: unknown): ReadonlyArray<ScheduleIssue> => {
  const issues: Issues = []
  parseException(input, [], issues)
  return issues
}

/** Parses a whole schedule input, collecting every problem. */
export const parseScheduleInput = (
  input: unknown
): { readonly issues: ReadonlyArray<ScheduleIssue>; readonly parsed: ParsedSchedule | undefined } => {
  const issues: Issues = []
  if (!isRecord(input)) {
    issues.push(issue([], "invalid_type", "Must be an object with timeZone, weeklyHours and optionally exceptions."))
    return { issues, parsed: undefined }
  }

  let timeZone: string | undefined
  const zone = input.timeZone
  if (zone === undefined || zone === null || zone === "") {
    issues.push(issue(["timeZone"], "required", `This field is required. ${ZONE_EXAMPLE}`))
  } else if (typeof zone !== "string") {
    issues.push(issue(["timeZone"], "invalid_time_zone", `Must be a string. ${ZONE_EXAMPLE}`))
  } else {
    timeZone = canonicalTimeZone(zone)
    if (timeZone === undefined) {
      issues.push(issue(["timeZone"], "invalid_time_zone", `Unknown time zone "${zone}". ${ZONE_EXAMPLE}`))
    }
  }

  const weekly: Array<ParsedRange | null> = [null, null, null, null, null, null, null]
  const hours = input.weeklyHours
  if (hours === undefined) {
    issues.push(
      issue(
        ["weeklyHours"],
        "required",
        `This field is required. Use an object with keys among ${WEEKDAYS.join(", ")} (an empty object closes every day).`
      )
    )
  } else if (!isRecord(hours)) {
    issues.push(issue(["weeklyHours"], "invalid_type", `Must be an object with keys among ${WEEKDAYS.join(", ")}.`))
  } else {
    for (const key of Object.keys(hours)) {
      const index = (WEEKDAYS as ReadonlyArray<string>).indexOf(key)
      const path = ["weeklyHours", key]
      if (index < 0) {
        issues.push(issue(path, "unknown_weekday", `Unknown weekday "${key}". Use one of ${WEEKDAYS.join(", ")}.`))
        continue
      }
      const value = hours[key]
      if (value === null || value === undefined) continue
      if (!isRecord(value)) {
        issues.push(issue(path, "invalid_type", "Must be null (closed) or an object with opensAt and closesAt."))
        continue
      }
      const range = parseRangeTimes(value, false, path, issues, "make the day null to close it")
      if (range !== undefined) weekly[index] = range
    }
  }

  const exceptions: Array<ParsedException> = []
  const list = input.exceptions
  if (list !== undefined && list !== null && !Array.isArray(list)) {
    issues.push(issue(["exceptions"], "invalid_type", "Must be a list of exceptions."))
  } else if (Array.isArray(list)) {
    const firstIndexByDate = new Map<string, number>()
    list.forEach((value: unknown, index: number) => {
      const parsed = parseException(value, ["exceptions", index], issues)
      if (isRecord(value) && typeof value.date === "string") {
        const first = firstIndexByDate.get(value.date)
        if (first === undefined) firstIndexByDate.set(value.date, index)
        else {
          issues.push(
            issue(
              ["exceptions", index, "date"],
              "duplicate_date",
              `Exception ${first} already has the date ${value.date}. Use one exception per date.`
            )
          )
          return
        }
      }
      if (parsed !== undefined) exceptions.push(parsed)
    })
  }

  if (issues.length > 0 || timeZone === undefined) return { issues, parsed: undefined }
  return { issues, parsed: { timeZone, weekly, exceptions } }
}
