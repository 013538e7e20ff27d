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
    const text = format.format(instant)
    let field = 0
    let value = -1
    let day = 0
    let hour = 0
    let minute = 0
    let second = 0
    for (let i = 0; i <= text.length; i++) {
      const code = i < text.length ? text.charCodeAt(i) : -1
      if (code >= 48 && code <= 57) {
        value = (value < 0 ? 0 : value * 10) + (code - 48)
      } else if (value >= 0) {
        if (field === 0) day = value
        else if (field === 1) hour = value
        else if (field === 2) minute = value
        else second = value
        field++
        value = -1
      }
    }
    const utc = new Date(instant)
    let dayDelta = day - utc.getUTCDate()
    if (dayDelta > 1) dayDelta = -1
    else if (dayDelta < -1) dayDelta = 1
    const wallSeconds = hour * 3600 + minute * 60 + second
    const utcSeconds = utc.getUTCHours() * 3600 + utc.getUTCMinutes() * 60 + utc.getUTCSeconds()
    return (dayDelta * 86_400 + wallSeconds - utcSeconds) * 1000
  }
}

const MINUTE_MS = 60_000

/**
 * The reader the window's table is built with: the zone's weekday-hour-minute formatter ("Mon 09:05"),
 * read at fixed positions with integer arithmetic (no `Date`). Exact for every offset in use since 1972
 * (whole minutes, under a day): the weekday tells which day the wall clock is on, so a change of
 * exactly 24 hours (Samoa 2011) reads as one. A text of another shape (some other engine) is read by
 * the exact reader instead.
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
    const c0 = text.charCodeAt(0)
    const c1 = text.charCodeAt(1)
    // Sun Mon Tue Wed Thu Fri Sat → 0 … 6
    const weekday =
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
    const dayNumber = Math.floor(instant / DAY_MS)
    let dayDelta = weekday - ((((dayNumber + 4) % 7) + 7) % 7)
    if (dayDelta > 1) dayDelta -= 7
    else if (dayDelta < -1) dayDelta += 7
    if (
      weekday < 0 ||
      dayDelta > 1 ||
      dayDelta < -1 ||
      text.charCodeAt(n - 3) !== 58 ||
      (h1 | h2 | m1 | m2) < 0 ||
      h1 > 2 ||
      h2 > 9 ||
      m1 > 5 ||
      m2 > 9
    ) {
      if (exact === undefined) exact = makeOffsetProbe(timeZone)
      return exact(instant)
    }
    const utcMinute = Math.floor((instant - dayNumber * DAY_MS) / MINUTE_MS)
    return (dayDelta * 1440 + (h1 * 10 + h2) * 60 + m1 * 10 + m2 - utcMinute) * MINUTE_MS
  }
}

/**
 * Days between samples. No zone has had two offset changes closer than 19 days except those listed
 * (last part of the name → smallest distance), figures from the tz database as also used by the
 * Temporal polyfill; a zone missing from the list would lose only pairs of changes closer than this.
 */
const SAMPLE_DAYS_DEFAULT = 19
const SAMPLE_DAYS_BY_NAME: Readonly<Record<string, number>> = {
  El_Aaiun: 16,
  Tucuman: 12,
  Tirane: 11,
  Riga: 10,
  Simferopol: 9,
  Vienna: 9,
  Tunis: 8,
  Boa_Vista: 6,
  Fortaleza: 6,
  Maceio: 6,
  Noronha: 6,
  Recife: 6,
  Gaza: 6,
  Hebron: 6,
  DeNoronha: 6
}

/** Days between two samples of a zone's offset. */
export const sampleDaysFor = (timeZone: string): number =>
  SAMPLE_DAYS_BY_NAME[timeZone.slice(timeZone.lastIndexOf("/") + 1)] ?? SAMPLE_DAYS_DEFAULT

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
 * Builds the table for `[fromYear-01-01, toYear-01-01)` UTC: samples the offset every 19 days (fewer
 * for the zones listed above), and where two samples differ finds the exact transition, first by trying where last year's
 * transition of the same kind predicts it (same weekday 52 or 53 weeks later, or same date), then by
 * bisection to the minute and the second.
 */
export const buildZoneTable = (timeZone: string, fromYear: number, toYear: number): ZoneTable => {
  const probe = makeMinuteOffsetProbe(timeZone)
  const windowStart = daysFromCivil(fromYear, 1, 1) * DAY_MS
  const windowEnd = daysFromCivil(toYear, 1, 1) * DAY_MS
  const step = sampleDaysFor(timeZone) * DAY_MS
  const transitions: Array<number> = []
  const offsets: Array<number> = []
  let current = probe(windowStart)
  offsets.push(current)
  // UTC and the Etc/ zones are fixed offsets by definition: one reading is the whole table.
  const fixed = timeZone === "UTC" || timeZone.startsWith("Etc/")
  let at = windowStart
  const last = fixed ? windowStart : windowEnd - 60_000
  while (at < last) {
    const next = Math.min(at + step, last)
    const nextOffset = probe(next)
    if (nextOffset === current) {
      at = next
      continue
    }
    const found = findTransition(probe, at, current, next, transitions, offsets)
    transitions.push(found)
    current = probe(found)
    offsets.push(current)
    // Another change may hide between this transition and the next sample: look again from here.
    at = found
  }
  return tableFrom(timeZone, windowStart, windowEnd, transitions, offsets)
}

const PREDICTION_DAYS = [364, 371, 365, 366, 357] as const

const findTransition = (
  probe: OffsetProbe,
  from: number,
  before: number,
  to: number,
  transitions: ReadonlyArray<number>,
  offsets: ReadonlyArray<number>
): number => {
  // Predict from the latest earlier transition that left the same offset.
  for (let i = transitions.length - 1; i >= 0; i--) {
    if (offsets[i] !== before) continue
    const previous = transitions[i]!
    for (const days of PREDICTION_DAYS) {
      const candidate = previous + days * DAY_MS
      if (candidate <= from || candidate > to) continue
      if (probe(candidate) !== before && probe(candidate - 60_000) === before) return candidate
    }
    break
  }
  // Bisect on whole minutes: every offset change since 1972 is at a whole minute.
  let low = from
  let high = to
  while (high - low > 60_000) {
    const mid = low + Math.max(60_000, Math.floor((high - low) / 120_000) * 60_000)
    if (probe(mid) === before) low = mid
    else high = mid
  }
  return high
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
  const transitions = table.transitions
  let low = 0
  let high = transitions.length
  // Number of transitions at or before `instant`.
  while (low < high) {
    const mid = (low + high) >>> 1
    if (transitions[mid]! <= instant) low = mid + 1
    else high = mid
  }
  return table.offsets[low]!
}

/**
 * The instant of a wall-clock time (given as milliseconds since 1970-01-01T00:00 wall time) under the
 * `compatible` rule: a time in a gap moves forward by the gap's length, a repeated time takes the
 * earlier instant.
 */
export const resolveWallTime = (table: ZoneTable, wall: number): number => {
  if (wall < table.windowStart + 2 * DAY_MS || wall >= table.windowEnd - 2 * DAY_MS)
    return resolveWithProbe(table, wall)
  const from = table.ambiguousFrom
  let low = 0
  let high = from.length
  // Number of transitions whose skipped or repeated wall times start at or before `wall`.
  while (low < high) {
    const mid = (low + high) >>> 1
    if (from[mid]! <= wall) low = mid + 1
    else high = mid
  }
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
