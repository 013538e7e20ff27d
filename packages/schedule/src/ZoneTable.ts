import { DAY_MS, daysFromCivil } from "./civil.js"

/**
 * A time zone's UTC offsets as a table of transitions over a window of years, built once per zone
 * with `Intl.DateTimeFormat` and then read with integer arithmetic and binary search only.
 *
 * Offsets are in milliseconds, `wall = instant + offset`. Outside the window every answer comes from
 * `Intl` directly (slow, but exact), so the window is a speed-up and never a limit.
 */
export interface ZoneTable {
  readonly timeZone: string
  /** First instant (inclusive) and last instant (exclusive) the table covers. */
  readonly windowStart: number
  readonly windowEnd: number
  /** Instants at which the offset changes, ascending; `offsets[i]` holds from `transitions[i - 1]`. */
  readonly transitions: Float64Array
  readonly offsets: Float64Array
  /** Per transition `i`: wall times in `[ambiguousFrom[i], ambiguousTo[i])` are skipped or repeated. */
  readonly ambiguousFrom: Float64Array
  readonly ambiguousTo: Float64Array
  /** Smallest and largest offset inside the window. */
  readonly minOffset: number
  readonly maxOffset: number
  /** Wall-clock reader for instants outside the window, created on first use. */
  fallback: OffsetProbe | undefined
}

/** Reads a zone's offset at one instant with `Intl` (the only `Intl` use besides building tables). */
export type OffsetProbe = (instant: number) => number

const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
/** Offsets are bounded by ±26 h here, wider than any zone has ever had, for reasoning outside the window. */
export const OFFSET_BOUND = 26 * HOUR_MS

/**
 * Creates the exact `Intl` reader of one zone, with seconds (for the local mean times of the distant
 * past), used outside the window; throws `RangeError` for a zone `Intl` does not know.
 */
export const makeOffsetProbe = (timeZone: string): OffsetProbe => {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric"
  })
  return (instant) => {
    // Day of month, hours, minutes and seconds of the wall clock; the offset is their distance from
    // the same fields in UTC, with the day taken modulo the month (offsets are under a day).
    const fields = format.format(instant).match(/\d+/g)!.map(Number)
    const [day, hour, minute, second] = fields as [number, number, number, number]
    const utc = new Date(instant)
    let dayDelta = day - utc.getUTCDate()
    if (dayDelta > 1) dayDelta = -1
    else if (dayDelta < -1) dayDelta = 1
    const wallSeconds = hour * 3600 + minute * 60 + second
    const utcSeconds = utc.getUTCHours() * 3600 + utc.getUTCMinutes() * 60 + utc.getUTCSeconds()
    return (dayDelta * 86_400 + wallSeconds - utcSeconds) * 1000
  }
}

/** Sun Mon Tue Wed Thu Fri Sat → 0 … 6 from the first two letters of an `en-US` short weekday, else -1. */
const weekdayOf = (c0: number, c1: number): number =>
  c0 === 77
    ? 1
    : c0 === 87
      ? 3
      : c0 === 70
        ? 5
        : c0 === 84
          ? c1 === 117
            ? 2
            : 4
          : c0 === 83
            ? c1 === 117
              ? 0
              : 6
            : -1

/**
 * The reader the window's table is built with: the zone's weekday-hour-minute formatter ("Mon 09:05"),
 * read at fixed positions. Exact for every offset in use since 1972 (whole minutes, under a day): the
 * weekday tells which day the wall clock is on, so a change of exactly 24 hours (Samoa 2011) reads as
 * one. A text of another shape (some other engine) is read by the exact reader instead.
 */
export const makeMinuteOffsetProbe = (timeZone: string): OffsetProbe => {
  const format = weekdayTimeFormat(timeZone).format
  let exact: OffsetProbe | undefined
  return (instant) => {
    const text = format(instant)
    const n = text.length
    const h1 = text.charCodeAt(n - 5) - 48
    const h2 = text.charCodeAt(n - 4) - 48
    const m1 = text.charCodeAt(n - 2) - 48
    const m2 = text.charCodeAt(n - 1) - 48
    const weekday = weekdayOf(text.charCodeAt(0), text.charCodeAt(1))
    const dayNumber = Math.floor(instant / DAY_MS)
    // Days from the UTC date to the wall date: -1, 0 or 1 (Thursday 1970-01-01 was day 0).
    let dayDelta = weekday - ((((dayNumber + 4) % 7) + 7) % 7)
    if (dayDelta > 1) dayDelta -= 7
    else if (dayDelta < -1) dayDelta += 7
    const digits = (h1 | h2 | m1 | m2) >= 0 && h1 <= 2 && h2 <= 9 && m1 <= 5 && m2 <= 9
    if (weekday < 0 || dayDelta > 1 || dayDelta < -1 || text.charCodeAt(n - 3) !== 58 || !digits) {
      if (exact === undefined) exact = makeOffsetProbe(timeZone)
      return exact(instant)
    }
    const utcMinute = Math.floor((instant - dayNumber * DAY_MS) / MINUTE_MS)
    return (dayDelta * 1440 + (h1 * 10 + h2) * 60 + m1 * 10 + m2 - utcMinute) * MINUTE_MS
  }
}

/** Days between samples: no zone has had two offset changes closer than this except those listed below. */
export const STEP_DAYS = 19

/**
 * Zones (canonical ids) whose offset has held for less than 19 days at some time, with the shortest
 * such stretch in days: the figures the Temporal polyfill samples with. `test/zoneSampling.test.ts`
 * checks every zone `Intl` lists against its step, 1970–2100.
 */
const STEP_DAYS_BY_ZONE: ReadonlyMap<string, number> = new Map([
  ["Africa/El_Aaiun", 16],
  ["America/Argentina/Tucuman", 12],
  ["Europe/Tirane", 11],
  ["Europe/Riga", 10],
  ["Europe/Simferopol", 9],
  ["Europe/Vienna", 9],
  ["Africa/Tunis", 8],
  ["America/Boa_Vista", 6],
  ["America/Fortaleza", 6],
  ["America/Maceio", 6],
  ["America/Noronha", 6],
  ["America/Recife", 6],
  ["Asia/Gaza", 6],
  ["Asia/Hebron", 6]
])

/** The sampling step of a zone in days, by its canonical id. */
export const stepDaysFor = (timeZone: string): number => {
  const canonical = weekdayTimeFormat(timeZone).resolvedOptions().timeZone
  return STEP_DAYS_BY_ZONE.get(canonical) ?? STEP_DAYS
}

const weekdayTimeFormats = new Map<string, Intl.DateTimeFormat>()

/**
 * The zone's weekday-hour-minute formatter, cached under the name asked for and the canonical name:
 * constructing an `Intl.DateTimeFormat` costs far more than formatting with one (~150 µs against ~1 µs),
 * so validation (which needs one to know the zone) and the table share it.
 * Throws `RangeError` for a zone `Intl` does not know.
 */
export const weekdayTimeFormat = (timeZone: string): Intl.DateTimeFormat => {
  let format = weekdayTimeFormats.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit"
    })
    if (weekdayTimeFormats.size >= 1024) weekdayTimeFormats.clear()
    weekdayTimeFormats.set(timeZone, format)
    const canonical = format.resolvedOptions().timeZone
    if (canonical !== timeZone && !weekdayTimeFormats.has(canonical)) weekdayTimeFormats.set(canonical, format)
  }
  return format
}

const tableCache = new Map<string, ZoneTable>()

/** Years before and after the current year that the table covers (see decision record 0100). */
export const WINDOW_YEARS_BEFORE = 10
export const WINDOW_YEARS_AFTER = 19

/** The cached table of a zone (canonical name), built on first use for the window around `now`. */
export const zoneTableFor = (timeZone: string, now: number = Date.now()): ZoneTable => {
  const cached = tableCache.get(timeZone)
  if (cached !== undefined) return cached
  const year = new Date(now).getUTCFullYear()
  const table = buildZoneTable(timeZone, year - WINDOW_YEARS_BEFORE, year + WINDOW_YEARS_AFTER + 1)
  tableCache.set(timeZone, table)
  return table
}

/**
 * Builds the table for `[fromYear-01-01, toYear-01-01)` UTC by step and bisect (decision record 0107),
 * as the Temporal polyfill finds transitions: read the offset every step (19 days, or the zone's own),
 * and where two readings differ bisect to the minute (every change since 1972 is at a whole minute).
 * No stretch of one offset is shorter than the step, so at most one change lies between two readings;
 * should a zone break that, the bisection repeats until the offsets meet, and only a change and its
 * undoing both inside one step would be missed.
 */
export const buildZoneTable = (timeZone: string, fromYear: number, toYear: number): ZoneTable => {
  const probe = makeMinuteOffsetProbe(timeZone)
  const windowStart = daysFromCivil(fromYear, 1, 1) * DAY_MS
  const windowEnd = daysFromCivil(toYear, 1, 1) * DAY_MS
  const step = stepDaysFor(timeZone) * DAY_MS
  const transitions: Array<number> = []
  const offsets = [probe(windowStart)]
  // UTC and the Etc/ zones are fixed offsets by definition: one reading is the whole table.
  const last = timeZone === "UTC" || timeZone.startsWith("Etc/") ? windowStart : windowEnd - MINUTE_MS
  for (let lo = windowStart; lo < last; ) {
    const hi = Math.min(lo + step, last)
    const offset = probe(hi)
    let before = offsets[offsets.length - 1]!
    let from = lo
    while (offset !== before) {
      // The first minute in `(from, hi]` whose offset is not `before`.
      let low = from
      let high = hi
      let highOffset = offset
      while (high - low > MINUTE_MS) {
        const mid = low + Math.floor((high - low) / (2 * MINUTE_MS)) * MINUTE_MS
        const midOffset = probe(mid)
        if (midOffset === before) low = mid
        else {
          high = mid
          highOffset = midOffset
        }
      }
      transitions.push(high)
      offsets.push(highOffset)
      before = highOffset
      from = high
    }
    lo = hi
  }
  return tableFrom(timeZone, windowStart, windowEnd, transitions, offsets)
}

const tableFrom = (
  timeZone: string,
  windowStart: number,
  windowEnd: number,
  transitionList: ReadonlyArray<number>,
  offsetList: ReadonlyArray<number>
): ZoneTable => {
  const n = transitionList.length
  const transitions = Float64Array.from(transitionList)
  const offsets = Float64Array.from(offsetList)
  const ambiguousFrom = new Float64Array(n)
  const ambiguousTo = new Float64Array(n)
  let minOffset = offsets[0]!
  let maxOffset = offsets[0]!
  for (let i = 0; i < n; i++) {
    const before = offsets[i]!
    const after = offsets[i + 1]!
    ambiguousFrom[i] = transitions[i]! + Math.min(before, after)
    ambiguousTo[i] = transitions[i]! + Math.max(before, after)
    minOffset = Math.min(minOffset, after)
    maxOffset = Math.max(maxOffset, after)
  }
  return {
    timeZone,
    windowStart,
    windowEnd,
    transitions,
    offsets,
    ambiguousFrom,
    ambiguousTo,
    minOffset,
    maxOffset,
    fallback: undefined
  }
}

/** The offset in force at an instant. */
export const offsetAt = (table: ZoneTable, instant: number): number => {
  if (instant < table.windowStart || instant >= table.windowEnd) {
    if (table.fallback === undefined) table.fallback = makeOffsetProbe(table.timeZone)
    return table.fallback(instant)
  }
  return table.offsets[countAtOrBefore(table.transitions, instant)]!
}

/** How many of the ascending `sorted` values are at or before `value` (a binary search). */
const countAtOrBefore = (sorted: Float64Array, value: number): number => {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (sorted[mid]! <= value) low = mid + 1
    else high = mid
  }
  return low
}

/**
 * The instant of a wall-clock time (given as milliseconds since 1970-01-01T00:00 wall time) under the
 * `compatible` rule: a time in a gap moves forward by the gap's length, a repeated time takes the
 * earlier instant.
 */
export const resolveWallTime = (table: ZoneTable, wall: number): number => {
  if (wall < table.windowStart + 2 * DAY_MS || wall >= table.windowEnd - 2 * DAY_MS)
    return resolveWithProbe(table, wall)
  // Number of transitions whose skipped or repeated wall times start at or before `wall`.
  const low = countAtOrBefore(table.ambiguousFrom, wall)
  if (low === 0) return wall - table.offsets[0]!
  // Inside a gap the offset before the gap applies (moving the time forward); inside a repeated hour
  // the offset before the transition is the larger one (the earlier instant). Both: offsets[low - 1].
  return wall < table.ambiguousTo[low - 1]! ? wall - table.offsets[low - 1]! : wall - table.offsets[low]!
}

/** The same rule as `resolveWallTime`, from offsets a day either side (as Temporal does). */
const resolveWithProbe = (table: ZoneTable, wall: number): number => {
  const before = offsetAt(table, wall - DAY_MS)
  const after = offsetAt(table, wall + DAY_MS)
  if (before === after) return wall - before
  const earlier = wall - Math.max(before, after)
  const later = wall - Math.min(before, after)
  const earlierValid = offsetAt(table, earlier) === wall - earlier
  const laterValid = offsetAt(table, later) === wall - later
  if (earlierValid) return earlier
  if (laterValid) return later
  return wall - before
}
