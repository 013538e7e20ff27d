import { civilInto, DAY_MS, daysFromCivil, isLeapYear, weekdayOfDay, yearOfDay } from "./civil.js"
import { ScheduleError } from "./ScheduleError.js"
import type { ScheduleInput } from "./ScheduleInput.js"
import { type ParsedSchedule, parseScheduleInput } from "./validate.js"
import { OFFSET_BOUND, type ZoneTable, zoneTableFor } from "./ZoneTable.js"

/**
 * A compiled schedule: built once by `compileSchedule` (or `ALWAYS_OPEN`), then asked with `isOpenAt`
 * and `nextOpenAfter`. Immutable as far as callers can tell; safe to share and cache.
 */
export interface Schedule {
  /** The zone's canonical IANA name; `null` for `ALWAYS_OPEN`. */
  readonly timeZone: string | null
}

/** What a compiled schedule can ever do, decided once at compile time. */
export const ScheduleKind = { AlwaysOpen: 0, NeverOpen: 1, Rules: 2 } as const
export type ScheduleKind = (typeof ScheduleKind)[keyof typeof ScheduleKind]

/** Rows of the per-era tables: 7 weekdays of 1 January × leap or not; columns: day of year 0..366. */
const TABLE_ROW = 367
const TABLE_ROWS = 14
/** The last day number a `Date` can hold (8.64e15 ms), plus a margin for the ranges of that day. */
export const LAST_DAY = 100_000_002

const BLOCK_BITS = 9
const BLOCK_DAYS = 1 << BLOCK_BITS

/** Day-of-year → `month * 32 + day`, for common and for leap years. */
const monthDayOfDayOfYear = (leap: boolean): Int16Array => {
  const table = new Int16Array(366)
  let doy = 0
  for (let month = 1; month <= 12; month++) {
    const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
    for (let day = 1; day <= days; day++) table[doy++] = month * 32 + day
  }
  return table
}
const MONTH_DAY_COMMON = monthDayOfDayOfYear(false)
const MONTH_DAY_LEAP = monthDayOfDayOfYear(true)

/** The compiled form; every field is read on the hot path with integer arithmetic only. */
export class CompiledSchedule implements Schedule {
  /** Per rule: opening and closing, in ms after the start of the rule's day (closing up to two days). */
  readonly ruleOpen: Float64Array
  readonly ruleClose: Float64Array
  /** Rule of each weekday (Monday first), -1 closed. */
  readonly weekdayRule: Int32Array
  /** Per weekday: days until the next weekday (itself included) that opens; -1 when none does. */
  private readonly weekdayGap: Int32Array
  /** Rule of each dated exception's own day (-1 closes it). */
  readonly dated: Map<number, number>
  readonly hasDated: boolean
  /** Days of dated exceptions that open, ascending. */
  readonly datedOpenDays: Float64Array
  /** Per `month * 32 + day`: pairs (own year, rule) of yearly exceptions, latest own year first. */
  readonly yearlyByMonthDay: ReadonlyArray<Int32Array | undefined>
  readonly hasYearly: boolean
  /** Scratch for the civil date of a day, so yearly lookups allocate nothing. */
  private readonly civil: [number, number, number] = [0, 0, 0]
  /** Distinct own years of yearly exceptions, ascending: era `j` is the years from `eraYears[j - 1]`. */
  readonly eraYears: Int32Array
  private readonly eraTables: Array<Int16Array | undefined>
  private readonly eraEmpty: Uint8Array
  /** First day of the rule blocks (the zone window's first day) and the blocks, filled lazily. */
  private readonly blockBase: number
  private readonly blocks: Array<Int32Array | undefined>
  /** Opening time of every weekday when all seven are open 24 hours from the same time, else -1. */
  readonly uniformOpen: number
  /** From this day on the schedule is one endless stretch (see `computeOpenForeverFromDay`), else `Infinity`. */
  readonly openForeverFromDay: number
  /** An instant by which the endless stretch has surely begun, else `Infinity`. */
  readonly openForeverFrom: number

  constructor(
    readonly kind: ScheduleKind,
    readonly timeZone: string | null,
    readonly zone: ZoneTable | undefined,
    parsed: ParsedSchedule | undefined
  ) {
    const opens: Array<number> = []
    const closes: Array<number> = []
    const weekdayRule = new Int32Array(7).fill(-1)
    const dated = new Map<number, number>()
    const datedOpen: Array<number> = []
    const yearly = new Map<number, Array<[number, number]>>()
    const addRule = (range: { openMs: number; closeMs: number } | null): number => {
      if (range === null) return -1
      opens.push(range.openMs)
      closes.push(range.closeMs)
      return opens.length - 1
    }
    let lastDatedDay = Number.NEGATIVE_INFINITY
    if (parsed !== undefined) {
      parsed.weekly.forEach((range, weekday) => {
        weekdayRule[weekday] = addRule(range)
      })
      for (const exception of parsed.exceptions) {
        const rule = addRule(exception.range)
        dated.set(exception.dayNumber, rule)
        if (rule >= 0) datedOpen.push(exception.dayNumber)
        lastDatedDay = Math.max(lastDatedDay, exception.dayNumber)
        if (exception.repeatsYearly) {
          const key = exception.month * 32 + exception.day
          const list = yearly.get(key) ?? []
          list.push([exception.year, rule])
          yearly.set(key, list)
        }
      }
    }
    this.ruleOpen = Float64Array.from(opens)
    this.ruleClose = Float64Array.from(closes)
    this.weekdayRule = weekdayRule
    this.weekdayGap = new Int32Array(7).fill(-1)
    for (let weekday = 0; weekday < 7; weekday++) {
      for (let gap = 0; gap < 7; gap++) {
        if (weekdayRule[(weekday + gap) % 7]! >= 0) {
          this.weekdayGap[weekday] = gap
          break
        }
      }
    }
    this.dated = dated
    this.hasDated = dated.size > 0
    this.datedOpenDays = Float64Array.from(datedOpen.sort((a, b) => a - b))
    const byMonthDay: Array<Int32Array | undefined> = new Array(13 * 32).fill(undefined)
    const years = new Set<number>()
    for (const [key, list] of yearly) {
      list.sort((a, b) => b[0] - a[0])
      byMonthDay[key] = Int32Array.from(list.flat())
      for (const [year] of list) years.add(year)
    }
    this.yearlyByMonthDay = byMonthDay
    this.hasYearly = yearly.size > 0
    this.eraYears = Int32Array.from([...years].sort((a, b) => a - b))
    this.eraTables = new Array(this.eraYears.length + 1).fill(undefined)
    this.eraEmpty = new Uint8Array(this.eraYears.length + 1)
    this.uniformOpen = this.computeUniformOpen()
    this.openForeverFromDay = this.computeOpenForeverFromDay(lastDatedDay)
    this.openForeverFrom = this.openForeverFromDay * DAY_MS + this.uniformOpen + OFFSET_BOUND
    this.blockBase = zone === undefined ? 0 : Math.floor(zone.windowStart / DAY_MS)
    this.blocks =
      zone === undefined
        ? []
        : new Array(Math.ceil((zone.windowEnd - zone.windowStart) / DAY_MS / BLOCK_DAYS)).fill(undefined)
  }

  /**
   * The rule of a calendar day (-1 closed). With exceptions, the days of the zone table's window are
   * looked up in blocks of 512 days filled on first use, so the hot path reads one array element.
   */
  ruleOf(dayNumber: number): number {
    if (!this.hasDated && !this.hasYearly) return this.weekdayRule[weekdayOfDay(dayNumber)]!
    const offset = dayNumber - this.blockBase
    if (offset >= 0 && offset < this.blocks.length * BLOCK_DAYS) {
      const block = this.blocks[offset >> BLOCK_BITS] ?? this.fillBlock(offset >> BLOCK_BITS)
      return block[offset & (BLOCK_DAYS - 1)]!
    }
    return this.computeRuleOf(dayNumber)
  }

  private fillBlock(index: number): Int32Array {
    const block = new Int32Array(BLOCK_DAYS)
    const first = this.blockBase + index * BLOCK_DAYS
    for (let i = 0; i < BLOCK_DAYS; i++) block[i] = this.computeRuleOf(first + i)
    this.blocks[index] = block
    return block
  }

  /** The rule by precedence: the day's dated exception, else its active yearly exception, else its weekday. */
  computeRuleOf(dayNumber: number): number {
    if (this.hasDated) {
      const rule = this.dated.get(dayNumber)
      if (rule !== undefined) return rule
    }
    if (this.hasYearly) {
      const rule = this.yearlyRuleOf(dayNumber)
      if (rule !== -2) return rule
    }
    return this.weekdayRule[weekdayOfDay(dayNumber)]!
  }

  /** The active yearly exception's rule of a day, or -2 when none applies. */
  private yearlyRuleOf(dayNumber: number): number {
    const civil = this.civil
    civilInto(dayNumber, civil)
    const year = civil[0]
    const month = civil[1]
    const day = civil[2]
    const list = this.yearlyByMonthDay[month * 32 + day]
    if (list === undefined) return -2
    for (let i = 0; i < list.length; i += 2) if (list[i]! <= year) return list[i + 1]!
    return -2
  }

  /** Index of the era (set of active yearly exceptions) of a year. */
  private eraOf(year: number): number {
    const years = this.eraYears
    let era = 0
    while (era < years.length && years[era]! <= year) era++
    return era
  }

  /**
   * Per era, for each kind of year (weekday of 1 January, leap or not) and each day of the year: the
   * first day of the year at or after it whose weekday or yearly rule opens, or -1. Dated exceptions
   * are applied on top by `nextCandidateDay`. Built on first use.
   */
  private eraTable(era: number): Int16Array {
    const cached = this.eraTables[era]
    if (cached !== undefined) return cached
    const table = new Int16Array(TABLE_ROWS * TABLE_ROW).fill(-1)
    const activeYear = era === 0 ? Number.NEGATIVE_INFINITY : this.eraYears[era - 1]!
    let empty = 1
    for (let row = 0; row < TABLE_ROWS; row++) {
      const leap = row >= 7
      const firstWeekday = row % 7
      const monthDays = leap ? MONTH_DAY_LEAP : MONTH_DAY_COMMON
      let next = -1
      for (let doy = (leap ? 366 : 365) - 1; doy >= 0; doy--) {
        let rule = this.weekdayRule[(firstWeekday + doy) % 7]!
        const list = this.yearlyByMonthDay[monthDays[doy]!]
        if (list !== undefined) {
          for (let i = 0; i < list.length; i += 2) {
            if (list[i]! <= activeYear) {
              rule = list[i + 1]!
              break
            }
          }
        }
        if (rule >= 0) next = doy
        table[row * TABLE_ROW + doy] = next
      }
      if (next >= 0) empty = 0
    }
    this.eraEmpty[era] = empty
    this.eraTables[era] = table
    return table
  }

  /**
   * The first day at or after `dayNumber` whose rule opens (its range may still resolve empty), or
   * `Infinity` when there is none up to `lastDay`.
   */
  nextCandidateDay(dayNumber: number, lastDay: number): number {
    let day = dayNumber
    // Opening dated exceptions come from their sorted list; the first one at or after `day` stays the
    // first one as `day` advances, because every branch below returns it before passing it.
    const dated = this.hasDated ? this.firstDatedOpenFrom(day) : Number.POSITIVE_INFINITY
    if (!this.hasYearly) {
      if (this.weekdayGap[0]! < 0) return dated <= lastDay ? dated : Number.POSITIVE_INFINITY
      for (;;) {
        if (day > lastDay) return Number.POSITIVE_INFINITY
        const candidate = day + this.weekdayGap[weekdayOfDay(day)]!
        if (dated <= candidate) return dated
        if (this.hasDated && (this.dated.get(candidate) ?? 0) < 0) {
          day = candidate + 1
          continue
        }
        return candidate
      }
    }
    let year = yearOfDay(day)
    let firstOfYear = daysFromCivil(year, 1, 1)
    let leap = isLeapYear(year)
    let firstOfNextYear = firstOfYear + (leap ? 366 : 365)
    let era = this.eraOf(year)
    for (;;) {
      if (day > lastDay) return Number.POSITIVE_INFINITY
      if (day >= firstOfNextYear) {
        year = yearOfDay(day)
        firstOfYear = daysFromCivil(year, 1, 1)
        leap = isLeapYear(year)
        firstOfNextYear = firstOfYear + (leap ? 366 : 365)
        era = this.eraOf(year)
      }
      const table = this.eraTable(era)
      const next = table[((leap ? 7 : 0) + weekdayOfDay(firstOfYear)) * TABLE_ROW + (day - firstOfYear)]!
      if (next >= 0) {
        const candidate = firstOfYear + next
        if (dated <= candidate) return dated
        if (this.hasDated && (this.dated.get(candidate) ?? 0) < 0) {
          day = candidate + 1
          continue
        }
        return candidate
      }
      if (dated < firstOfNextYear) return dated
      if (this.eraEmpty[era] === 1) {
        // Nothing opens for the rest of this era: skip to the next era, or only dated days are left.
        if (era === this.eraYears.length) return dated <= lastDay ? dated : Number.POSITIVE_INFINITY
        day = daysFromCivil(this.eraYears[era]!, 1, 1)
        if (dated < day) return dated
        continue
      }
      // Next year, without going back to the calendar arithmetic.
      year++
      day = firstOfNextYear
      firstOfYear = firstOfNextYear
      leap = isLeapYear(year)
      firstOfNextYear = firstOfYear + (leap ? 366 : 365)
      if (era < this.eraYears.length && this.eraYears[era]! <= year) era++
    }
  }

  private firstDatedOpenFrom(dayNumber: number): number {
    const days = this.datedOpenDays
    let low = 0
    let high = days.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (days[mid]! < dayNumber) low = mid + 1
      else high = mid
    }
    return low < days.length ? days[low]! : Number.POSITIVE_INFINITY
  }

  /** The opening time shared by all seven weekdays when each is open 24 hours from it, else -1. */
  private computeUniformOpen(): number {
    if (this.kind !== ScheduleKind.Rules || this.weekdayRule[0]! < 0) return -1
    const open = this.ruleOpen[this.weekdayRule[0]!]!
    for (let weekday = 0; weekday < 7; weekday++) {
      const rule = this.weekdayRule[weekday]!
      if (rule < 0 || this.ruleOpen[rule] !== open || this.ruleClose[rule]! - open !== DAY_MS) return -1
    }
    return open
  }

  /**
   * With uniform 24-hour weekdays, the day after which the schedule is one endless stretch: after the
   * last dated exception and in the last era, if the yearly exceptions left say the same; else `Infinity`.
   */
  private computeOpenForeverFromDay(lastDatedDay: number): number {
    if (this.uniformOpen < 0) return Number.POSITIVE_INFINITY
    for (const list of this.yearlyByMonthDay) {
      if (list === undefined) continue
      const rule = list[1]!
      if (rule < 0 || this.ruleOpen[rule] !== this.uniformOpen || this.ruleClose[rule]! - this.uniformOpen !== DAY_MS) {
        return Number.POSITIVE_INFINITY
      }
    }
    const lastEra =
      this.eraYears.length > 0
        ? daysFromCivil(this.eraYears[this.eraYears.length - 1]!, 1, 1)
        : Number.NEGATIVE_INFINITY
    return Math.max(lastDatedDay + 1, lastEra)
  }

  /**
   * The first day from `dayNumber` (before `limit`) that is not plain, i.e. has an exception's rule;
   * a plain day has its weekday's own rule: with uniform weekdays, an unbroken 24 hours. Weekday rules
   * were added first, so they are the indexes 0..6 when all seven days open. Reads the rule blocks in a
   * tight loop inside the window.
   */
  firstNonPlainDay(dayNumber: number, limit: number): number {
    let day = dayNumber
    const end = this.blockBase + this.blocks.length * BLOCK_DAYS
    while (day < limit) {
      const offset = day - this.blockBase
      if (offset >= 0 && day < end) {
        const block = this.blocks[offset >> BLOCK_BITS] ?? this.fillBlock(offset >> BLOCK_BITS)
        const start = offset & (BLOCK_DAYS - 1)
        const stop = Math.min(BLOCK_DAYS, start + (limit - day))
        for (let i = start; i < stop; i++) {
          const rule = block[i]!
          if (rule < 0 || rule >= 7) return day + (i - start)
        }
        day += stop - start
        continue
      }
      const rule = this.ruleOf(day)
      if (rule < 0 || rule >= 7) return day
      day++
    }
    return day
  }
}

/**
 * Validates and compiles a schedule. Throws `ScheduleError` listing every problem in the input.
 * Building a zone's offset table costs about a millisecond the first time; it is cached per zone.
 */
export const compileSchedule = (input: ScheduleInput): Schedule => {
  const { issues, parsed } = parseScheduleInput(input)
  if (parsed === undefined) throw new ScheduleError(issues)
  const opens = parsed.weekly.some((range) => range !== null) || parsed.exceptions.some((e) => e.range !== null)
  if (!opens) return new CompiledSchedule(ScheduleKind.NeverOpen, parsed.timeZone, undefined, parsed)
  return new CompiledSchedule(ScheduleKind.Rules, parsed.timeZone, zoneTableFor(parsed.timeZone), parsed)
}

/** "No schedule saved": open at every instant, with no next opening. */
export const ALWAYS_OPEN: Schedule = new CompiledSchedule(ScheduleKind.AlwaysOpen, null, undefined, undefined)
