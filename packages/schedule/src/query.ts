import { DAY_MS } from "./civil.js"
import { type CompiledSchedule, LAST_DAY, type Schedule, ScheduleKind } from "./Schedule.js"
import { OFFSET_BOUND, resolveWallTime, type ZoneTable } from "./ZoneTable.js"

/** The latest instant a `Date` can hold. */
export const MAX_INSTANT = 8.64e15

/** The compiled form behind the public `Schedule` (every `Schedule` is made by this package). */
export const compiled = (schedule: Schedule): CompiledSchedule => schedule as CompiledSchedule

/** The instant of a `Date`; `RangeError` for an invalid one. */
export const instantOf = (at: Date): number => {
  const t = at.getTime()
  if (Number.isNaN(t)) throw new RangeError("Invalid Date")
  return t
}

/**
 * Inside the table's window, with six days either side, every wall time a query near `instant` resolves
 * comes from the table, so the table's offset bounds hold; elsewhere ±26 h is assumed.
 */
export const innerWindow = (zone: ZoneTable, instant: number): boolean =>
  instant >= zone.windowStart + 6 * DAY_MS && instant < zone.windowEnd - 6 * DAY_MS

/**
 * The intervals containing `t`: when `widest` is false, the end of the first one found, else the
 * largest end; `-Infinity` when none. A day's range is `[resolve(day + open), resolve(day + close))`
 * and every resolved instant lies in `[wall - maxOffset, wall - minOffset]`, which bounds the days to
 * look at and lets most of them be skipped without resolving.
 */
const endOfIntervalContaining = (s: CompiledSchedule, zone: ZoneTable, t: number, widest: boolean): number => {
  const inner = innerWindow(zone, t)
  const low = inner ? zone.minOffset : -OFFSET_BOUND
  const high = inner ? zone.maxOffset : OFFSET_BOUND
  const last = Math.floor((t + high) / DAY_MS)
  let best = Number.NEGATIVE_INFINITY
  for (let day = Math.floor((t + low) / DAY_MS) - 1; day <= last; day++) {
    const rule = s.ruleOf(day)
    if (rule < 0) continue
    const base = day * DAY_MS
    const openWall = base + s.ruleOpen[rule]!
    const closeWall = base + s.ruleClose[rule]!
    if (t < openWall - high || t >= closeWall - low) continue
    if (resolveWallTime(zone, openWall) > t) continue
    const end = resolveWallTime(zone, closeWall)
    if (end <= t) continue
    if (!widest) return end
    if (end > best) best = end
  }
  return best
}

/** The earliest start of a non-empty interval strictly after `t`, or `Infinity`; no horizon. */
const firstStartAfter = (s: CompiledSchedule, zone: ZoneTable, t: number): number => {
  const inner = innerWindow(zone, t)
  let day = Math.floor((t + (inner ? zone.minOffset : -OFFSET_BOUND)) / DAY_MS)
  let best = Number.POSITIVE_INFINITY
  let lastDay = LAST_DAY
  for (;;) {
    day = s.nextCandidateDay(day, lastDay)
    if (day === Number.POSITIVE_INFINITY) return best
    const base = day * DAY_MS
    const dayInner = innerWindow(zone, base)
    // Later days start no earlier than `base - maxOffset`: once past the best so far, stop.
    if (base - (dayInner ? zone.maxOffset : OFFSET_BOUND) > best) return best
    const rule = s.ruleOf(day)
    const openWall = base + s.ruleOpen[rule]!
    if (openWall - (dayInner ? zone.minOffset : -OFFSET_BOUND) > t) {
      const start = resolveWallTime(zone, openWall)
      if (start > t && start < best && resolveWallTime(zone, base + s.ruleClose[rule]!) > start) {
        best = start
        lastDay = Math.floor((best + OFFSET_BOUND) / DAY_MS) + 1
      }
    }
    day++
  }
}

/**
 * With every weekday open 24 hours from the same time, the days without an exception chain into one
 * run; from `t`, inside the stretch, jump to the end of the run instead of walking it day by day (a
 * round-the-clock schedule with yearly holidays would otherwise walk up to a year per question).
 */
const skipPlainDays = (s: CompiledSchedule, zone: ZoneTable, t: number): number => {
  const low = innerWindow(zone, t) ? zone.minOffset : -OFFSET_BOUND
  // The slot of this day starts at or before `t`: its wall start minus the smallest offset is <= t.
  const first = Math.floor((t + low - s.uniformOpen) / DAY_MS)
  // Past the day the endless stretch begins, three more days reach `openForeverFrom`.
  const limit = Math.min(LAST_DAY, s.openForeverFromDay + 3)
  const day = s.firstNonPlainDay(first, limit)
  if (day - first < 2) return t
  const runEnd = resolveWallTime(zone, day * DAY_MS + s.uniformOpen)
  return Math.max(runEnd, t)
}

/** Whether the schedule is open at an instant (intervals are half-open: open at the opening instant). */
export const isOpenAt = (schedule: Schedule, at: Date): boolean => {
  const s = compiled(schedule)
  const t = instantOf(at)
  if (s.kind === ScheduleKind.AlwaysOpen) return true
  if (s.kind === ScheduleKind.NeverOpen) return false
  return endOfIntervalContaining(s, s.zone!, t, false) !== Number.NEGATIVE_INFINITY
}

/**
 * The next opening: when closed, the start of the next interval; when open, the start of the first
 * interval after the current stretch (touching or overlapping intervals) ends. `null` when there is
 * none, however far ahead.
 */
export const nextOpenAfter = (schedule: Schedule, at: Date): Date | null => {
  const s = compiled(schedule)
  let t = instantOf(at)
  if (s.kind !== ScheduleKind.Rules) return null
  const zone = s.zone!
  // Walk to the end of the current stretch, if open.
  for (;;) {
    if (t >= s.openForeverFrom) return null
    const end = endOfIntervalContaining(s, zone, t, true)
    if (end === Number.NEGATIVE_INFINITY) break
    t = s.uniformOpen >= 0 ? skipPlainDays(s, zone, end) : end
  }
  const start = firstStartAfter(s, zone, t)
  return start <= MAX_INSTANT ? new Date(start) : null
}
