import { civilFromDays, civilInto, DAY_MS, daysFromCivil, daysInMonth } from "./civil.js"

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

/**
 * Zones of the list above whose short stretches are all of one offset and in some months of the year:
 * Palestine's summer time (+03:00), cut to one or two weeks where Ramadan meets its start (late March) or
 * its end (October, before the last Saturday): 2040, 2053–2054, 2072–2073 and 2086 in the tz data. Its
 * standard time has never lasted under 19 days, and summer time that short lies in March–October.
 * And north-eastern Brazil's summer time of October 2000, one or two weeks long (Brazil has had none since
 * 2019). `test/zoneSampling.test.ts` checks these premises for every zone against a plain scan of `Intl`.
 */
const SHORT_STRETCHES_BY_NAME: Readonly<
  Record<string, { readonly offsetMinutes: number; readonly fromMonth: number; readonly toMonth: number }>
> = {
  Gaza: { offsetMinutes: 180, fromMonth: 3, toMonth: 11 },
  Hebron: { offsetMinutes: 180, fromMonth: 3, toMonth: 11 },
  Boa_Vista: { offsetMinutes: -180, fromMonth: 10, toMonth: 11 },
  Fortaleza: { offsetMinutes: -120, fromMonth: 10, toMonth: 11 },
  Maceio: { offsetMinutes: -120, fromMonth: 10, toMonth: 11 },
  Recife: { offsetMinutes: -120, fromMonth: 10, toMonth: 11 },
  Noronha: { offsetMinutes: -60, fromMonth: 10, toMonth: 11 },
  DeNoronha: { offsetMinutes: -60, fromMonth: 10, toMonth: 11 }
}

/**
 * How far apart a zone's offset may be sampled (decision record 0100). Every stretch of one offset lasts at
 * least `shortStretch`; where `shortOffset` is set, only stretches of that offset, between the first day of
 * month `fromMonth` and of `toMonth` (1–12, UTC), last less than the default 19 days.
 */
export interface Sampling {
  readonly shortStretch: number
  readonly shortOffset: number | undefined
  readonly fromMonth: number
  readonly toMonth: number
}

/** The sampling of a zone, by the last part of its name. */
export const samplingFor = (timeZone: string): Sampling => {
  const name = timeZone.slice(timeZone.lastIndexOf("/") + 1)
  const short = SHORT_STRETCHES_BY_NAME[name]
  return {
    shortStretch: (SAMPLE_DAYS_BY_NAME[name] ?? SAMPLE_DAYS_DEFAULT) * DAY_MS,
    shortOffset: short === undefined ? undefined : short.offsetMinutes * MINUTE_MS,
    fromMonth: short?.fromMonth ?? 1,
    toMonth: short?.toMonth ?? 13
  }
}

const DEFAULT_STEP = SAMPLE_DAYS_DEFAULT * DAY_MS

/** The shortest a stretch of `offset` lasts. */
const stretchOf = (sampling: Sampling, offset: number): number =>
  sampling.shortOffset === undefined || offset === sampling.shortOffset ? sampling.shortStretch : DEFAULT_STEP

/** How far apart samples may be while the offset is `offset`, all year: the shortest stretch of any other. */
const stepWhile = (sampling: Sampling, offset: number): number =>
  sampling.shortOffset === undefined || offset !== sampling.shortOffset ? sampling.shortStretch : DEFAULT_STEP

/**
 * The next sample after a change into `offset` at `t`: the change after it comes no earlier than that offset's
 * shortest stretch, the one after that no earlier than a step more, so one minute before then at most one
 * change lies in between.
 */
const sampleAfterChange = (sampling: Sampling, t: number, offset: number): number =>
  t + stretchOf(sampling, offset) + stepWhile(sampling, offset) - MINUTE_MS

const civilScratch: [number, number, number] = [0, 0, 0]

/**
 * The next sample after one at `at` that read `offset`: `stepWhile` later, or up to the default step later
 * when no short stretch can come before it (outside its months).
 */
const nextSample = (sampling: Sampling, at: number, offset: number): number => {
  const step = stepWhile(sampling, offset)
  if (step === DEFAULT_STEP || sampling.shortOffset === undefined) return at + step
  civilInto(Math.floor(at / DAY_MS), civilScratch)
  const [year, month] = civilScratch
  if (month >= sampling.fromMonth && month < sampling.toMonth) return at + step
  const monthsStart = daysFromCivil(month < sampling.fromMonth ? year : year + 1, sampling.fromMonth, 1) * DAY_MS
  return monthsStart <= at + step ? at + step : Math.min(at + DEFAULT_STEP, monthsStart)
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
 * Builds the table for `[fromYear-01-01, toYear-01-01)` UTC (decision record 0100): samples the offset
 * every 19 days (less for the zones listed above, while a short stretch can come), and where two samples
 * differ finds the exact transition (see `findTransition`).
 *
 * No stretch of another offset is shorter than the step taken while the clock reads one (`samplingFor`),
 * so samples that far apart see every change, one change at most between two samples; and after a
 * change into an offset at `t`, the next change is no earlier than `t` plus that offset's shortest
 * stretch, and the one after it no earlier than a step more: the next sample can be taken just before
 * then, and still at most one change lies between it and the sample before. Only a stretch shorter than
 * the premise allows can be missed, as with plain sampling. Where last year's transitions
 * predict the next change, the samples go to the predicted instant and the minute before it (never later
 * than the grid allows), so a correct prediction confirms the change with those two readings.
 */
export const buildZoneTable = (timeZone: string, fromYear: number, toYear: number): ZoneTable => {
  const probe = makeMinuteOffsetProbe(timeZone)
  const windowStart = daysFromCivil(fromYear, 1, 1) * DAY_MS
  const windowEnd = daysFromCivil(toYear, 1, 1) * DAY_MS
  const sampling = samplingFor(timeZone)
  const transitions: Array<number> = []
  const offsets: Array<number> = []
  const found = { offset: 0 }
  let current = probe(windowStart)
  offsets.push(current)
  // UTC and the Etc/ zones are fixed offsets by definition: one reading is the whole table.
  const fixed = timeZone === "UTC" || timeZone.startsWith("Etc/")
  let at = windowStart
  let next = nextSample(sampling, windowStart, current)
  // Where the next change is expected (from last year's), if anywhere: the samples go to that instant
  // and the minute before it, which then also confirm the change.
  let expected = Number.POSITIVE_INFINITY
  const last = fixed ? windowStart : windowEnd - MINUTE_MS
  while (at < last) {
    let sampleAt = Math.min(next, last)
    let sampled: number
    if (expected <= sampleAt && expected - MINUTE_MS > at) {
      const beforeExpected = probe(expected - MINUTE_MS)
      if (beforeExpected === current) {
        const atExpected = probe(expected)
        at = expected
        if (atExpected === current) {
          // Not there (yet): sample on from here.
          next = nextSample(sampling, expected, current)
        } else {
          transitions.push(expected)
          offsets.push(atExpected)
          current = atExpected
          next = sampleAfterChange(sampling, expected, current)
          expected = expectedChange(transitions, offsets, current, at)
          continue
        }
        expected = Number.POSITIVE_INFINITY
        continue
      }
      // It came earlier: look for it before the minute just read.
      sampleAt = expected - MINUTE_MS
      sampled = beforeExpected
    } else {
      sampled = probe(sampleAt)
    }
    if (sampled === current) {
      next = nextSample(sampling, sampleAt, current)
    } else {
      // One change between the samples; more only if the zone breaks the step's premise: find them all.
      let before = current
      let change = at
      do {
        change = findTransition(probe, change, before, sampleAt, sampled, transitions, offsets, found)
        transitions.push(change)
        offsets.push(found.offset)
        before = found.offset
      } while (before !== sampled)
      current = sampled
      next = sampleAfterChange(sampling, change, current)
      expected = expectedChange(transitions, offsets, current, sampleAt)
    }
    at = sampleAt
  }
  return tableFrom(timeZone, windowStart, windowEnd, transitions, offsets)
}

/**
 * Where the change that will leave `offset` is likeliest, after `after`: the best prediction from the
 * latest transition that left it (at the same wall time); infinity when there is none.
 */
const expectedChange = (
  transitions: ReadonlyArray<number>,
  offsets: ReadonlyArray<number>,
  offset: number,
  after: number
): number => {
  let same = transitions.length - 1
  while (same >= 0 && offsets[same] !== offset) same--
  if (same < 0) return Number.POSITIVE_INFINITY
  const wall = transitions[same]! + offset
  const day = Math.floor(wall / DAY_MS)
  const instant = predictedDays(day, transitions, offsets, same, offset)[0]! * DAY_MS + (wall - day * DAY_MS) - offset
  return instant > after ? instant : Number.POSITIVE_INFINITY
}

const QUARTER_HOUR_MS = 15 * MINUTE_MS
const FIRST_WALL_TIMES: ReadonlyArray<number> = [2 * HOUR_MS]
/** Days from a transition to where last year's rule would put this year's: same weekday, then same date. */
const WEEKLY_PREDICTIONS = [364, 371, 357, 350, 378] as const

/**
 * The first instant in `(lo, hi]` whose offset is not `before` (`hiOffset` is the offset at `hi`), to
 * the minute; its offset goes to `found.offset`. Every probe narrows `(lo, hi]`, so a wrong guess costs
 * one or two probes and loses nothing:
 * 1. where last year's transition that left the same offset predicts it, at the same wall time: the
 *    same week of the month first (second Sunday, last Sunday…), or the same date when last year's came
 *    on the same date as the year before; each confirmed by probes at `t − 1 min` and `t`;
 * 2. bisection over the days, at that wall time (transitions keep their time of day);
 * 3. bisection over quarter hours (transitions are at whole quarter hours UTC in practice), then minutes.
 */
const findTransition = (
  probe: OffsetProbe,
  lo: number,
  before: number,
  hi: number,
  hiOffset: number,
  transitions: ReadonlyArray<number>,
  offsets: ReadonlyArray<number>,
  found: { offset: number }
): number => {
  // The latest transition that left the same offset about a year or more earlier (a zone may leave an
  // offset twice a year, as Morocco did for summer time and Ramadan), else the latest one that did.
  let same = transitions.length - 1
  while (same >= 0 && (offsets[same] !== before || transitions[same]! > hi - 300 * DAY_MS)) same--
  if (same < 0) {
    same = transitions.length - 1
    while (same >= 0 && offsets[same] !== before) same--
  }
  const anchor = same >= 0 ? same : transitions.length - 1
  // Wall times of day to look at, on the clock before the change: the anchor's (the latest transition
  // that left the same offset, else the latest), then the anchor's UTC time of day (Europe changes at
  // 01:00 UTC both ways); with no transition yet, 02:00, the most common.
  let anchorDay = 0
  let wallTimes: ReadonlyArray<number> = FIRST_WALL_TIMES
  if (anchor >= 0) {
    const wall = transitions[anchor]! + offsets[anchor]!
    anchorDay = Math.floor(wall / DAY_MS)
    const utc = transitions[anchor]! - Math.floor(transitions[anchor]! / DAY_MS) * DAY_MS
    wallTimes = [wall - anchorDay * DAY_MS, utc + before]
  }
  for (let w = 0; w < wallTimes.length; w++) {
    // The instant of local day `day` at that wall time is `day * DAY_MS + atDay0`.
    const atDay0 = wallTimes[w]! - before
    if (w === 0 && same >= 0) {
      for (const day of predictedDays(anchorDay, transitions, offsets, same, before)) {
        const candidate = day * DAY_MS + atDay0
        if (candidate <= lo || candidate > hi) continue
        const offset = probe(candidate)
        if (offset === before) {
          lo = candidate
          continue
        }
        hi = candidate
        hiOffset = offset
        const previous = candidate - MINUTE_MS <= lo ? before : probe(candidate - MINUTE_MS)
        if (previous === before) {
          found.offset = offset
          return candidate
        }
        hi = candidate - MINUTE_MS
        hiOffset = previous
      }
    }
    let dayLo = Math.floor((lo - atDay0) / DAY_MS) + 1
    let dayHi = Math.floor((hi - atDay0) / DAY_MS)
    let onDay = false
    while (dayLo <= dayHi) {
      const day = Math.floor((dayLo + dayHi) / 2)
      const candidate = day * DAY_MS + atDay0
      const offset = probe(candidate)
      if (offset === before) {
        lo = candidate
        dayLo = day + 1
      } else {
        hi = candidate
        hiOffset = offset
        dayHi = day - 1
        onDay = true
      }
    }
    if (onDay) {
      const previous = hi - MINUTE_MS <= lo ? before : probe(hi - MINUTE_MS)
      if (previous === before) {
        found.offset = hiOffset
        return hi
      }
      hi -= MINUTE_MS
      hiOffset = previous
    }
  }
  for (;;) {
    const first = Math.floor(lo / QUARTER_HOUR_MS) + 1
    const lastQuarter = Math.ceil(hi / QUARTER_HOUR_MS) - 1
    if (first > lastQuarter) break
    const mid = Math.floor((first + lastQuarter) / 2) * QUARTER_HOUR_MS
    const offset = probe(mid)
    if (offset === before) lo = mid
    else {
      hi = mid
      hiOffset = offset
    }
  }
  if (hi % QUARTER_HOUR_MS === 0 && hi - MINUTE_MS > lo) {
    const previous = probe(hi - MINUTE_MS)
    if (previous === before) {
      found.offset = hiOffset
      return hi
    }
    hi -= MINUTE_MS
    hiOffset = previous
  }
  // Every offset change since 1972 is at a whole minute.
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.max(MINUTE_MS, Math.floor((hi - lo) / (2 * MINUTE_MS)) * MINUTE_MS)
    const offset = probe(mid)
    if (offset === before) lo = mid
    else {
      hi = mid
      hiOffset = offset
    }
  }
  found.offset = hiOffset
  return hi
}

/** Days in a lunar year: Ramadan-bound transitions (Morocco) come back about this much later. */
const LUNAR_YEAR_DAYS = 354.367

/**
 * How likely a day of month `N` is as the start of a "weekday on or after the N-th" rule (`lastDays`:
 * the month's length): the last seven days first, then the first and second weeks, as in the tz rules.
 */
const ruleStartScore = (n: number, monthDays: number): number =>
  n === monthDays - 6 ? 5 : n === 1 || n === 8 ? 4 : n === 2 || n === 15 ? 3 : n === 22 ? 2 : 0

/**
 * Local day numbers where next year's transition of the kind of `same` (at local day `day`) is likely,
 * best first. History: up to four transitions that left the same offset about a year apart. A candidate
 * is a day 50 to 54 weeks later (same weekday) or the same date next year, and scores by which rule
 * explains it with the history: the same date every year; a "weekday on or after day N of this month"
 * rule, higher for the usual N (last week, 1, 8…); a weekday near a date that moves by a lunar year.
 */
const predictedDays = (
  day: number,
  transitions: ReadonlyArray<number>,
  offsets: ReadonlyArray<number>,
  same: number,
  before: number
): Array<number> => {
  const history = [day]
  for (let i = same - 1; i >= 0 && history.length < 4; i--) {
    if (offsets[i] !== before) continue
    const earlier = Math.floor((transitions[i]! + offsets[i]!) / DAY_MS)
    const gap = history[history.length - 1]! - earlier
    if (gap < 340) continue // another kind of change that left the same offset
    if (gap > 380) break
    history.push(earlier)
  }
  const [year, month, dayOfMonth] = civilFromDays(day)
  // Days of month of the history while it stays in this month (a weekday rule keeps its month).
  let lowest = dayOfMonth
  let highest = dayOfMonth
  let sameMonth = true
  let sameDate = history.length > 1
  for (let j = 1; j < history.length; j++) {
    const [, m, d] = civilFromDays(history[j]!)
    if (m !== month) sameMonth = false
    if (m !== month || d !== dayOfMonth) sameDate = false
    lowest = Math.min(lowest, d)
    highest = Math.max(highest, d)
  }
  const candidates: Array<number> = []
  const scores: Array<number> = []
  if (dayOfMonth <= daysInMonth(year + 1, month)) {
    candidates.push(daysFromCivil(year + 1, month, dayOfMonth))
    scores.push(sameDate ? 6 : 0.5)
  }
  for (const gap of WEEKLY_PREDICTIONS) {
    const candidate = day + gap
    const [y, m, d] = civilFromDays(candidate)
    let score = 0
    if (sameMonth && m === month) {
      // Feasible N: every day of the history and the candidate within [N, N + 6].
      const from = Math.max(highest, d) - 6
      const to = Math.min(lowest, d)
      for (let n = Math.max(1, from); n <= to; n++) score = Math.max(score, 1, ruleStartScore(n, daysInMonth(y, m)))
    }
    if (score === 0) {
      // Feasible lunar drift: one point of the drifting date within 6 days after every transition.
      let from = candidate
      let to = candidate + 6
      for (let j = 0; j < history.length; j++) {
        const ideal = history[j]! + (j + 1) * LUNAR_YEAR_DAYS
        from = Math.max(from, ideal)
        to = Math.min(to, ideal + 6)
      }
      if (from <= to) score = 1
    }
    candidates.push(candidate)
    scores.push(score)
  }
  const order = candidates.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b)
  return order.map((i) => candidates[i]!)
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
