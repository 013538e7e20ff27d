import { DAY_MS } from "./civil.js"
import { compiled, innerWindow, instantOf, MAX_INSTANT } from "./query.js"
import { type CompiledSchedule, LAST_DAY, type Schedule, ScheduleKind } from "./Schedule.js"
import { OFFSET_BOUND, resolveWallTime, type ZoneTable } from "./ZoneTable.js"

const MINUTE_MS = 60_000

/**
 * Intervals resolved but not yet counted, ascending by start. A day's interval can start before an
 * earlier day's (a range opening inside a DST gap moves forward by the gap, 24 hours in Samoa 2011), so
 * each waits here until no later day can start before it; with offsets within ±26 h that is at most
 * four intervals. Module scratch: the sweep is synchronous and allocates nothing.
 */
const pendingStart = new Float64Array(8)
const pendingEnd = new Float64Array(8)
/** The business time `sweep` counted, in ms. */
let counted = 0

/**
 * No interval of `day` or a later day starts before this instant. Past the table's window later days are
 * bounded by ±26 h only, so the table's bound is used only when the next day is inside it too.
 */
const earliestStartFrom = (zone: ZoneTable, day: number): number => {
  const base = day * DAY_MS
  const inner = innerWindow(zone, base) && innerWindow(zone, base + DAY_MS)
  return base - (inner ? zone.maxOffset : OFFSET_BOUND)
}

/**
 * Counts the time in `[from, to)` covered by the union of the schedule's intervals, sweeping them in
 * order of start: returns the earliest instant by which `budget` ms are counted, or `NaN` when `to` or
 * the schedule's last opening comes first; `counted` then holds the time counted. No horizon: closed
 * days are skipped with `nextCandidateDay` (whole empty years at once), and from `openForeverFrom` on
 * the rest is counted in one step.
 *
 * Invariant: `counted` is the union's time in `[from, reach)`, and every interval not yet counted
 * starts at or after the last one counted, inside which (or inside an earlier one) `reach` lies.
 */
const sweep = (s: CompiledSchedule, from: number, to: number, budget: number): number => {
  const zone = s.zone!
  counted = 0
  let reach = from
  let pending = 0
  let day = Math.floor((from + (innerWindow(zone, from) ? zone.minOffset : -OFFSET_BOUND)) / DAY_MS) - 1
  for (;;) {
    if (reach >= s.openForeverFrom) {
      // Open at every instant from here on.
      if (to - reach >= budget - counted) return reach + (budget - counted)
      counted += to - reach
      return Number.NaN
    }
    // The day → rule array answers open days; closed runs are skipped in one call.
    if (day > LAST_DAY || s.ruleOf(day) < 0) day = s.nextCandidateDay(day, LAST_DAY)
    const frontier = day === Number.POSITIVE_INFINITY ? day : earliestStartFrom(zone, day)
    let taken = 0
    while (taken < pending && pendingStart[taken]! <= frontier) {
      const start = pendingStart[taken]!
      const end = pendingEnd[taken]!
      taken++
      if (start >= to) return Number.NaN
      const countFrom = Math.max(start, reach)
      const countTo = Math.min(end, to)
      if (countTo > countFrom) {
        if (countTo - countFrom >= budget - counted) return countFrom + (budget - counted)
        counted += countTo - countFrom
      }
      if (end > reach) reach = end
    }
    if (taken > 0) {
      for (let i = taken; i < pending; i++) {
        pendingStart[i - taken] = pendingStart[i]!
        pendingEnd[i - taken] = pendingEnd[i]!
      }
      pending -= taken
      if (reach >= s.openForeverFrom) continue
    }
    // Every interval still to come starts at or after `frontier`.
    if (frontier >= to) return Number.NaN
    const rule = s.ruleOf(day)
    const base = day * DAY_MS
    const start = resolveWallTime(zone, base + s.ruleOpen[rule]!)
    const end = resolveWallTime(zone, base + s.ruleClose[rule]!)
    // An interval ending by `reach` lies inside time already counted.
    if (end > start && end > reach) {
      let i = pending
      while (i > 0 && pendingStart[i - 1]! > start) {
        pendingStart[i] = pendingStart[i - 1]!
        pendingEnd[i] = pendingEnd[i - 1]!
        i--
      }
      pendingStart[i] = start
      pendingEnd[i] = end
      pending++
    }
    day++
  }
}

/** A budget in minutes as whole milliseconds; `RangeError` unless finite and not negative. */
const budgetOf = (minutes: number): number => {
  if (!Number.isFinite(minutes) || minutes < 0) {
    throw new RangeError(`Business minutes must be a finite number >= 0, got ${minutes}`)
  }
  return Math.round(minutes * MINUTE_MS)
}

/**
 * The instant at which `minutes` of business time have passed from `at`: the earliest instant `T >= at`
 * such that the schedule is open for exactly `minutes` in `[at, T)` (counted to the millisecond; the
 * minutes may be fractional). So:
 * - a budget that runs out exactly at a closing time answers that closing instant, not the next opening
 *   (9:00–17:00 with 60 minutes left at 16:00 answers 17:00, the first instant the budget is spent);
 * - from a closed instant, counting starts at the next opening; `minutes = 0` answers `at` itself;
 * - open time is the union of the intervals (overlapping or touching ones count once), with the same
 *   DST, overnight-range and exception rules as `isOpenAt`; there is no search horizon.
 * `null` when the schedule never again opens for that long (a schedule with nothing open, or whose last
 * opening comes first), or when the answer is past the last instant a `Date` holds. `ALWAYS_OPEN` adds
 * the minutes as they are. Throws `RangeError` for an invalid `Date` or a negative or non-finite budget.
 */
export const addBusinessTime = (schedule: Schedule, at: Date, minutes: number): Date | null => {
  const s = compiled(schedule)
  const t = instantOf(at)
  const budget = budgetOf(minutes)
  if (budget === 0) return new Date(t)
  if (s.kind === ScheduleKind.NeverOpen) return null
  const due = s.kind === ScheduleKind.AlwaysOpen ? t + budget : sweep(s, t, Number.POSITIVE_INFINITY, budget)
  return due <= MAX_INSTANT ? new Date(due) : null
}

/**
 * Business time from `from` to `to`, in minutes (fractional when an end or an opening is not on a whole
 * minute): the time in `[from, to)` at which the schedule is open, overlapping intervals counted once.
 * Negative (the same amount) when `to` is before `from`. Exact across DST, overnight ranges and
 * exceptions, for spans of any length. `ALWAYS_OPEN` counts every minute; a schedule with nothing open,
 * none. The inverse of `addBusinessTime`: `addBusinessTime(s, from, businessTimeBetween(s, from, to))`
 * is `to` when `to` is open or a closing instant, else the last closing before it.
 * Throws `RangeError` for an invalid `Date`.
 */
export const businessTimeBetween = (schedule: Schedule, from: Date, to: Date): number => {
  const s = compiled(schedule)
  const a = instantOf(from)
  const b = instantOf(to)
  if (b < a) return 0 - businessTimeBetween(schedule, to, from)
  if (s.kind === ScheduleKind.AlwaysOpen) return (b - a) / MINUTE_MS
  if (s.kind === ScheduleKind.NeverOpen || a === b) return 0
  sweep(s, a, b, Number.POSITIVE_INFINITY)
  return counted / MINUTE_MS
}
