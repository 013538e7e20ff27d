import { describe, expect, it } from "@effect/vitest"
import { compileSchedule, type ExceptionInput, isOpenAt, nextOpenAfter, type ScheduleInput } from "@helpdesk/schedule"
import { FastCheck as fc } from "effect"
import { Temporal } from "temporal-polyfill"
import { closing, DAY, pad, scheduleInput, time, YEARS, ZONES } from "./arbitraries.js"
import { referenceAnswer, referenceIntervals, stretchesOf, transitionsBetween } from "./reference.js"

const scheduleCase = fc
  .tuple(fc.constantFrom(...ZONES), fc.constantFrom(...YEARS))
  .chain(([timeZone, year]) =>
    fc.tuple(
      scheduleInput(timeZone, year),
      fc.constant(year),
      fc.array(fc.integer({ min: 0, max: 365 * 86_400_000 }), { maxLength: 8 })
    )
  )

/** Checks `isOpenAt` and `nextOpenAfter` against the reference around every boundary of `year`. */
const checkAgainstReference = (input: ScheduleInput, year: number, offsets: ReadonlyArray<number>) => {
  const schedule = compileSchedule(input)
  const first = Temporal.PlainDate.from({ year: year - 1, month: 12, day: 25 })
  const last = Temporal.PlainDate.from({ year: year + 1, month: 2, day: 20 })
  const intervals = referenceIntervals(input, first, last)
  const stretches = stretchesOf(intervals)
  const yearStart = Date.UTC(year, 0, 1)
  const yearEnd = Date.UTC(year + 1, 0, 1)
  // Past this instant the reference has not listed every interval.
  const known = Date.UTC(year + 1, 1, 18)

  const instants = new Set<number>()
  const inYear = intervals.filter((i) => i.start >= yearStart && i.start < yearEnd)
  const step = Math.max(1, Math.floor(inYear.length / 25))
  for (let k = 0; k < inYear.length; k += step) {
    for (const edge of [inYear[k]!.start, inYear[k]!.end]) for (const d of [-1, 0, 1]) instants.add(edge + d)
  }
  for (const t of transitionsBetween(input.timeZone, yearStart, yearEnd)) {
    for (const d of [-1, 0, 1, DAY / 2]) instants.add(t + d)
  }
  for (const offset of offsets) instants.add(yearStart + offset)

  for (const t of instants) {
    const expected = referenceAnswer(stretches, t)
    const at = new Date(t)
    expect(isOpenAt(schedule, at), `open at ${at.toISOString()}`).toBe(expected.open)
    const next = nextOpenAfter(schedule, at)
    if (expected.next !== undefined && expected.next < known) {
      expect(next?.toISOString(), `next after ${at.toISOString()}`).toBe(new Date(expected.next).toISOString())
    } else if (expected.open && stretches.find((s) => s.start <= t && s.end > t)!.end >= known) {
      // The stretch runs past what the reference listed: nothing to compare.
    } else if (next !== null) {
      expect(next.getTime(), `next after ${at.toISOString()}`).toBeGreaterThanOrEqual(known - 2 * DAY)
    }
  }
}

/** Every weekday open 24 hours from one time, with exceptions: long stretches that end only at exceptions. */
const roundTheClockCase = fc
  .tuple(fc.constantFrom(...ZONES), fc.constantFrom(...YEARS), fc.constantFrom("00:00", "02:30", "09:00", "23:30"))
  .chain(([timeZone, year, open]) => {
    const date = fc
      .tuple(fc.integer({ min: year - 2, max: year }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
      .map(([y, m, d]) => `${y}-${pad(m)}-${pad(d)}`)
    const exception: fc.Arbitrary<ExceptionInput> = fc
      .record({
        date,
        times: fc.option(fc.tuple(time, closing), { freq: 2 }),
        repeatsYearly: fc.boolean()
      })
      .map(({ date, times, repeatsYearly }) => ({
        date,
        opensAt: times?.[0] ?? null,
        closesAt: times?.[1] ?? null,
        repeatsYearly
      }))
    const full = { opensAt: open, closesAt: open === "00:00" ? "24:00" : open }
    const input: fc.Arbitrary<ScheduleInput> = fc.record({
      timeZone: fc.constant(timeZone),
      weeklyHours: fc.constant({ mon: full, tue: full, wed: full, thu: full, fri: full, sat: full, sun: full }),
      exceptions: fc.uniqueArray(exception, { maxLength: 5, selector: (e) => e.date })
    })
    return fc.tuple(input, fc.constant(year), fc.array(fc.integer({ min: 0, max: 365 * DAY }), { maxLength: 12 }))
  })

describe("isOpenAt and nextOpenAfter agree with a brute-force Temporal reference", () => {
  it("at, and 1 ms either side of, every opening, closing and offset change of a year", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(scheduleCase, ([input, year, offsets]) => checkAgainstReference(input, year, offsets)),
      { numRuns: 80 }
    )
  })

  it("for round-the-clock schedules whose stretches end only at exceptions", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(roundTheClockCase, ([input, year, offsets]) => checkAgainstReference(input, year, offsets)),
      { numRuns: 25 }
    )
  })
})

describe("no search cap", () => {
  it("a schedule whose only opening is one yearly exception finds it decades ahead", { timeout: 60_000 }, () => {
    const yearly = fc.record({
      timeZone: fc.constantFrom(...ZONES),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
      ownYear: fc.integer({ min: 1990, max: 2040 }),
      opensAt: time,
      closesAt: closing,
      askedYear: fc.integer({ min: 2030, max: 2400 }),
      askedOffset: fc.integer({ min: 0, max: 365 * DAY })
    })
    fc.assert(
      fc.property(yearly, (c) => {
        const leapOwn = c.month === 2 && c.day === 29 ? c.ownYear - (c.ownYear % 4) : c.ownYear
        const ownYear =
          c.month === 2 && c.day === 29 && leapOwn % 100 === 0 && leapOwn % 400 !== 0 ? leapOwn + 4 : leapOwn
        const date = Temporal.PlainDate.from({ year: ownYear, month: c.month, day: c.day }, { overflow: "constrain" })
        const input: ScheduleInput = {
          timeZone: c.timeZone,
          weeklyHours: {},
          exceptions: [{ date: date.toString(), opensAt: c.opensAt, closesAt: c.closesAt, repeatsYearly: true }]
        }
        const t = Date.UTC(c.askedYear, 0, 1) + c.askedOffset
        let expected: number | undefined
        for (let year = c.askedYear - 1; expected === undefined && year < c.askedYear + 12; year++) {
          if (year < date.year) continue
          const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
          if (date.month === 2 && date.day === 29 && !leap) continue
          const candidate = Temporal.PlainDate.from({ year, month: date.month, day: date.day })
          const [interval] = referenceIntervals(input, candidate, candidate)
          if (interval !== undefined && interval.start > t) expected = interval.start
        }
        if (expected === undefined) return
        const schedule = compileSchedule(input)
        expect(nextOpenAfter(schedule, new Date(t))?.toISOString()).toBe(new Date(expected).toISOString())
      }),
      { numRuns: 100 }
    )
  })
})
