/**
 * A brute-force reference for property tests, written with the Temporal polyfill and the semantics
 * document only: every day's rule by precedence, every range turned into instants with Temporal's
 * `compatible` disambiguation, intervals merged into stretches by sorting. Slow, obvious, independent
 * of the package's tables and day arithmetic.
 */
import { Temporal } from "temporal-polyfill"
import type { ExceptionInput, ScheduleInput } from "../src/index.js"

const WEEKDAY_KEYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const

export interface Interval {
  readonly start: number
  readonly end: number
}

const timeOf = (text: string): Temporal.PlainTime | "24:00" =>
  text.startsWith("24:") ? "24:00" : Temporal.PlainTime.from(text)

/** The rule of one calendar day: the exception on the date, else the latest active yearly one, else the weekday. */
const ruleOf = (input: ScheduleInput, date: Temporal.PlainDate): { opensAt: string; closesAt: string } | null => {
  const exceptions = input.exceptions ?? []
  const own = exceptions.find((e) => Temporal.PlainDate.from(e.date).equals(date))
  if (own !== undefined) return rangeOfException(own)
  let yearly: ExceptionInput | undefined
  for (const e of exceptions) {
    if (e.repeatsYearly !== true) continue
    const d = Temporal.PlainDate.from(e.date)
    if (d.month !== date.month || d.day !== date.day || d.year > date.year) continue
    if (yearly === undefined || Temporal.PlainDate.from(yearly.date).year < d.year) yearly = e
  }
  if (yearly !== undefined) return rangeOfException(yearly)
  return input.weeklyHours[WEEKDAY_KEYS[date.dayOfWeek - 1]!] ?? null
}

const rangeOfException = (e: ExceptionInput) =>
  e.opensAt == null || e.closesAt == null ? null : { opensAt: e.opensAt, closesAt: e.closesAt }

const instantOf = (timeZone: string, date: Temporal.PlainDate, time: Temporal.PlainTime): number =>
  date.toPlainDateTime(time).toZonedDateTime(timeZone, { disambiguation: "compatible" }).epochMilliseconds

/** The non-empty intervals of the days from `first` to `last` (inclusive), sorted by start. */
export const referenceIntervals = (
  input: ScheduleInput,
  first: Temporal.PlainDate,
  last: Temporal.PlainDate
): Array<Interval> => {
  const intervals: Array<Interval> = []
  for (let date = first; Temporal.PlainDate.compare(date, last) <= 0; date = date.add({ days: 1 })) {
    const rule = ruleOf(input, date)
    if (rule === null) continue
    const opens = timeOf(rule.opensAt)
    const closes = timeOf(rule.closesAt)
    if (opens === "24:00") throw new Error("24:00 opening")
    const start = instantOf(input.timeZone, date, opens)
    const end =
      closes === "24:00"
        ? instantOf(input.timeZone, date.add({ days: 1 }), Temporal.PlainTime.from("00:00"))
        : Temporal.PlainTime.compare(closes, opens) <= 0
          ? instantOf(input.timeZone, date.add({ days: 1 }), closes)
          : instantOf(input.timeZone, date, closes)
    if (end > start) intervals.push({ start, end })
  }
  return intervals.sort((a, b) => a.start - b.start)
}

/** Touching or overlapping intervals merged. */
export const stretchesOf = (intervals: ReadonlyArray<Interval>): Array<Interval> => {
  const stretches: Array<{ start: number; end: number }> = []
  for (const interval of intervals) {
    const last = stretches[stretches.length - 1]
    if (last !== undefined && interval.start <= last.end) last.end = Math.max(last.end, interval.end)
    else stretches.push({ ...interval })
  }
  return stretches
}

/** Whether `t` is in a stretch, and the next opening (start of the next stretch), if within the stretches given. */
export const referenceAnswer = (
  stretches: ReadonlyArray<Interval>,
  t: number
): { open: boolean; next: number | undefined } => {
  const index = stretches.findIndex((s) => s.end > t)
  if (index < 0) return { open: false, next: undefined }
  const stretch = stretches[index]!
  if (stretch.start <= t) return { open: true, next: stretches[index + 1]?.start }
  return { open: false, next: stretch.start }
}

/** Instants at which the zone's offset changes between two instants. */
export const transitionsBetween = (timeZone: string, from: number, to: number): Array<number> => {
  const found: Array<number> = []
  let zoned = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(timeZone)
  for (;;) {
    const next = zoned.getTimeZoneTransition("next")
    if (next === null || next.epochMilliseconds >= to) return found
    found.push(next.epochMilliseconds)
    zoned = next
  }
}

/** The time in `[from, to)` covered by `stretches` (sorted, disjoint), in ms. */
export const referenceBusinessMs = (stretches: ReadonlyArray<Interval>, from: number, to: number): number => {
  let total = 0
  for (const s of stretches) total += Math.max(0, Math.min(s.end, to) - Math.max(s.start, from))
  return total
}

/** The earliest instant by which `budget` ms of `stretches` have passed from `from`, or undefined past them. */
export const referenceAddMs = (
  stretches: ReadonlyArray<Interval>,
  from: number,
  budget: number
): number | undefined => {
  if (budget === 0) return from
  let left = budget
  for (const s of stretches) {
    if (s.end <= from) continue
    const start = Math.max(s.start, from)
    if (s.end - start >= left) return start + left
    left -= s.end - start
  }
  return undefined
}

const MINUTE = 60_000

/**
 * The brute-force minute count: steps minute by minute from `from` (a whole minute) and counts the
 * minutes that start inside a stretch, up to `to` or until `minutes` are counted (then the end of the
 * last counted minute). Exact when every opening, closing and offset change is on a whole minute.
 */
export const countOpenMinutes = (
  stretches: ReadonlyArray<Interval>,
  from: number,
  to: number,
  minutes = Number.POSITIVE_INFINITY
): { readonly counted: number; readonly reachedAt: number | undefined } => {
  let index = 0
  let counted = 0
  if (minutes === 0) return { counted, reachedAt: from }
  for (let m = from; m < to; m += MINUTE) {
    while (index < stretches.length && stretches[index]!.end <= m) index++
    if (index === stretches.length) break
    if (stretches[index]!.start <= m) {
      counted++
      if (counted === minutes) return { counted, reachedAt: m + MINUTE }
    }
  }
  return { counted, reachedAt: undefined }
}
