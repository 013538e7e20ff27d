import { describe, expect, it } from "@effect/vitest"
import { addBusinessTime, businessTimeBetween, compileSchedule, type ScheduleInput } from "@helpdesk/schedule"
import { FastCheck as fc } from "effect"
import { Temporal } from "temporal-polyfill"
import { DAY, scheduleInput, YEARS, ZONES } from "./arbitraries.js"
import {
  countOpenMinutes,
  type Interval,
  referenceAddMs,
  referenceBusinessMs,
  referenceIntervals,
  stretchesOf
} from "./reference.js"

const MINUTE = 60_000
/** Minutes back to whole milliseconds (minutes × 60,000 is the count in ms up to float rounding). */
const msOf = (minutes: number) => Math.round(minutes * MINUTE) + 0
/** Zones the brief names first (DST both ways, a 30-minute DST), then the rest of the query properties' zones. */
const BUSINESS_ZONES = ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe", ...ZONES] as const

/** The reference's stretches for the local days from two before `from` to `days` after it. */
const referenceStretches = (input: ScheduleInput, from: number, days: number): Array<Interval> => {
  const first = Temporal.Instant.fromEpochMilliseconds(from - 2 * DAY)
    .toZonedDateTimeISO(input.timeZone)
    .toPlainDate()
  return stretchesOf(referenceIntervals(input, first, first.add({ days: days + 2 })))
}

/**
 * `input` compiled, beside the reference's stretches for `days` local days from `from` and the instant `known` past
 * which the reference has not listed every interval (its last day may spill 2 days either way).
 */
const withReference = (input: ScheduleInput, from: number, days: number) => ({
  schedule: compileSchedule(input),
  stretches: referenceStretches(input, from, days),
  known: from + (days - 2) * DAY
})

const wholeMinuteCase = fc
  .tuple(fc.constantFrom(...BUSINESS_ZONES), fc.constantFrom(...YEARS))
  .chain(([timeZone, year]) =>
    fc.tuple(
      scheduleInput(timeZone, year, { wholeMinutes: true }),
      // A whole minute in the year, the span in minutes (up to 45 days), the budget in minutes.
      fc.integer({ min: 0, max: 365 * 1440 }).map((m) => Date.UTC(year, 0, 1) + m * MINUTE),
      fc.integer({ min: 0, max: 45 * 1440 }),
      fc.oneof(fc.constantFrom(0, 1, 60, 480, 30 * 480), fc.integer({ min: 0, max: 20_000 }))
    )
  )

describe("business time agrees with a brute-force minute count", () => {
  it("businessTimeBetween and addBusinessTime, whole-minute schedules and instants", { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(wholeMinuteCase, ([input, from, spanMinutes, minutes]) => {
        const { schedule, stretches, known } = withReference(input, from, 90)
        const to = from + spanMinutes * MINUTE
        expect(businessTimeBetween(schedule, new Date(from), new Date(to))).toBe(
          countOpenMinutes(stretches, from, to).counted
        )
        const expected = countOpenMinutes(stretches, from, known, minutes).reachedAt
        const due = addBusinessTime(schedule, new Date(from), minutes)
        if (expected !== undefined) expect(due?.toISOString()).toBe(new Date(expected).toISOString())
        else if (due !== null) expect(due.getTime()).toBeGreaterThan(known - 4 * DAY)
      }),
      { numRuns: 120 }
    )
  })
})

const exactCase = fc.tuple(fc.constantFrom(...BUSINESS_ZONES), fc.constantFrom(...YEARS)).chain(([timeZone, year]) =>
  fc.tuple(
    scheduleInput(timeZone, year),
    fc.integer({ min: 0, max: 365 * DAY }).map((ms) => Date.UTC(year, 0, 1) + ms),
    fc.integer({ min: 0, max: 40 * DAY }),
    fc.integer({ min: 0, max: 300 * 3_600_000 })
  )
)

describe("business time is exact to the millisecond", () => {
  it("with seconds in exceptions and instants anywhere, against the reference's stretches", {
    timeout: 120_000
  }, () => {
    fc.assert(
      fc.property(exactCase, ([input, from, span, budget]) => {
        const { schedule, stretches, known } = withReference(input, from, 60)
        expect(msOf(businessTimeBetween(schedule, new Date(from), new Date(from + span)))).toBe(
          referenceBusinessMs(stretches, from, from + span)
        )
        // Backwards: the same amount, negative.
        expect(msOf(businessTimeBetween(schedule, new Date(from + span), new Date(from)))).toBe(
          0 - referenceBusinessMs(stretches, from, from + span)
        )
        const expected = referenceAddMs(stretches, from, budget)
        const due = addBusinessTime(schedule, new Date(from), budget / MINUTE)
        if (expected !== undefined && expected < known) {
          expect(due?.toISOString()).toBe(new Date(expected).toISOString())
          // And back: the business time up to the due instant is the budget.
          expect(msOf(businessTimeBetween(schedule, new Date(from), due!))).toBe(budget)
        } else if (due !== null) {
          expect(due.getTime()).toBeGreaterThan(known - 4 * DAY)
        }
      }),
      { numRuns: 120 }
    )
  })

  it("over spans of up to three years, across year ends and yearly exceptions", { timeout: 120_000 }, () => {
    const longCase = fc
      .tuple(fc.constantFrom("America/New_York", "Europe/Berlin", "Australia/Lord_Howe"), fc.constantFrom(2019, 2026))
      .chain(([timeZone, year]) =>
        fc.tuple(
          scheduleInput(timeZone, year),
          fc.integer({ min: 0, max: 365 * DAY }).map((ms) => Date.UTC(year, 0, 1) + ms),
          fc.integer({ min: 300 * DAY, max: 3 * 365 * DAY })
        )
      )
    fc.assert(
      fc.property(longCase, ([input, from, span]) => {
        const { schedule, stretches } = withReference(input, from, Math.ceil(span / DAY) + 4)
        const total = referenceBusinessMs(stretches, from, from + span)
        expect(msOf(businessTimeBetween(schedule, new Date(from), new Date(from + span)))).toBe(total)
        const due = addBusinessTime(schedule, new Date(from), total / MINUTE)
        if (total > 0) expect(due?.toISOString()).toBe(new Date(referenceAddMs(stretches, from, total)!).toISOString())
      }),
      { numRuns: 12 }
    )
  })
})
