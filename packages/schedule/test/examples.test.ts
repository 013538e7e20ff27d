import { describe, expect, it } from "@effect/vitest"
import { compileSchedule, isOpenAt, nextOpenAfter, type ScheduleInput } from "@helpdesk/schedule"

const at = (iso: string) => new Date(iso)
const iso = (date: Date | null) => (date === null ? null : date.toISOString())

/**
 * A worked example: the schedule asked at `asked` — open or not, and its next opening — and, where the rule needs
 * them, whether it is open at `openAt`'s other instants.
 */
interface WorkedExample {
  readonly rule: string
  readonly input: ScheduleInput
  readonly asked: string
  readonly open: boolean
  readonly nextOpen: string
  readonly openAt?: Readonly<Record<string, boolean>>
}

const sundays = (opensAt: string, closesAt: string): ScheduleInput => ({
  timeZone: "America/New_York",
  weeklyHours: { sun: { opensAt, closesAt } }
})
const weekdays = { opensAt: "09:00", closesAt: "17:00" }

const workedExamples: ReadonlyArray<WorkedExample> = [
  {
    rule: "New York, Sun 02:30–05:00: before the DST gap the day opens when 02:30 has moved to 03:30 EDT",
    input: sundays("02:30", "05:00"),
    asked: "2024-03-10T05:00:00Z",
    open: false,
    nextOpen: "2024-03-10T07:30:00.000Z"
  },
  {
    rule: "New York, Sun 02:30–05:00: at 03:05 EDT it is still closed, opening at 03:30 EDT",
    input: sundays("02:30", "05:00"),
    asked: "2024-03-10T07:05:00Z",
    open: false,
    nextOpen: "2024-03-10T07:30:00.000Z",
    openAt: { "2024-03-10T07:30:00Z": true }
  },
  {
    rule: "New York, Sun 00:00–01:30: 01:30 resolves to the earlier instant, so 01:15 EST is after the close",
    input: sundays("00:00", "01:30"),
    asked: "2024-11-03T06:15:00Z",
    open: false,
    nextOpen: "2024-11-10T05:00:00.000Z",
    openAt: { "2024-11-03T05:29:59.999Z": true, "2024-11-03T05:30:00Z": false }
  },
  {
    rule: "Santiago, Sat 20:00–00:00: closes at the next midnight, which falls in the DST gap",
    input: { timeZone: "America/Santiago", weeklyHours: { sat: { opensAt: "20:00", closesAt: "00:00" } } },
    asked: "2024-09-07T23:00:00Z",
    open: false,
    nextOpen: "2024-09-08T00:00:00.000Z",
    // 00:00 does not exist on 8 September; it moves to 01:00 -03, i.e. 04:00Z.
    openAt: { "2024-09-08T03:59:59.999Z": true, "2024-09-08T04:00:00Z": false }
  },
  {
    rule: "Kathmandu (+05:45), Mon–Fri 09:00–17:00: on a Saturday the next opening is Monday 03:15Z",
    input: {
      timeZone: "Asia/Kathmandu",
      weeklyHours: { mon: weekdays, tue: weekdays, wed: weekdays, thu: weekdays, fri: weekdays }
    },
    asked: "2024-06-01T00:00:00Z",
    open: false,
    nextOpen: "2024-06-03T03:15:00.000Z"
  },
  {
    rule: "Berlin, weekdays closed, yearly 2024-02-29: the next opening is the next leap day",
    input: {
      timeZone: "Europe/Berlin",
      weeklyHours: {},
      exceptions: [{ date: "2024-02-29", opensAt: "09:00", closesAt: "17:00", repeatsYearly: true }]
    },
    asked: "2025-03-01T00:00:00Z",
    open: false,
    nextOpen: "2028-02-29T08:00:00.000Z"
  },
  {
    rule: "Mon 18:00–03:00 and Tue 01:00–10:00 overlap into one stretch: next opening is the following Monday",
    input: {
      timeZone: "UTC",
      weeklyHours: { mon: { opensAt: "18:00", closesAt: "03:00" }, tue: { opensAt: "01:00", closesAt: "10:00" } }
    },
    // 2024-06-03 is a Monday.
    asked: "2024-06-03T20:00:00Z",
    open: true,
    nextOpen: "2024-06-10T18:00:00.000Z",
    openAt: { "2024-06-04T05:00:00Z": true }
  }
]

/** Worked examples of the rules in the package README ("Semantics in brief"), one case each. */
describe("worked examples of the semantics", () => {
  it.each(workedExamples)("$rule", ({ input, asked, open, nextOpen, openAt = {} }) => {
    const schedule = compileSchedule(input)
    expect(isOpenAt(schedule, at(asked))).toBe(open)
    expect(iso(nextOpenAfter(schedule, at(asked)))).toBe(nextOpen)
    for (const [instant, expected] of Object.entries(openAt))
      expect(isOpenAt(schedule, at(instant)), instant).toBe(expected)
  })

  it("New York, Sun 02:30–03:15: on the day of the gap the range is empty", () => {
    const schedule = compileSchedule(sundays("02:30", "03:15"))
    for (let minute = 0; minute < 24 * 60; minute += 5) {
      const instant = new Date(Date.parse("2024-03-10T05:00:00Z") + minute * 60_000)
      expect(isOpenAt(schedule, instant)).toBe(false)
    }
    expect(iso(nextOpenAfter(schedule, at("2024-03-10T05:00:00Z")))).toBe("2024-03-17T06:30:00.000Z")
  })
})

describe("no search cap", () => {
  it("a yearly 29 February asked in 2096 answers 2104-02-29 (2100 is not a leap year)", () => {
    const schedule = compileSchedule({
      timeZone: "Europe/Berlin",
      weeklyHours: {},
      exceptions: [{ date: "2024-02-29", opensAt: "09:00", closesAt: "17:00", repeatsYearly: true }]
    })
    expect(iso(nextOpenAfter(schedule, at("2096-03-01T00:00:00Z")))).toBe("2104-02-29T08:00:00.000Z")
  })

  it("every day closed and no opening exception: closed, no next opening", () => {
    const input: ScheduleInput = {
      timeZone: "Europe/Berlin",
      weeklyHours: { mon: null },
      exceptions: [{ date: "2025-12-25", opensAt: null, closesAt: null, repeatsYearly: true }]
    }
    const schedule = compileSchedule(input)
    expect(isOpenAt(schedule, at("2025-01-01T12:00:00Z"))).toBe(false)
    expect(nextOpenAfter(schedule, at("2025-01-01T12:00:00Z"))).toBeNull()
  })
})
