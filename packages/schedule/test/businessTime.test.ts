import { describe, expect, it } from "@effect/vitest"
import {
  ALWAYS_OPEN,
  addBusinessTime,
  businessTimeBetween,
  compileSchedule,
  type WeeklyRange
} from "@helpdesk/schedule"
import { Temporal } from "temporal-polyfill"

const at = (iso: string) => new Date(iso)
const iso = (date: Date | null) => (date === null ? null : date.toISOString())
const office: WeeklyRange = { opensAt: "09:00", closesAt: "17:00" }
const weekdays = { mon: office, tue: office, wed: office, thu: office, fri: office }
const allWeek = (range: WeeklyRange) => ({
  mon: range,
  tue: range,
  wed: range,
  thu: range,
  fri: range,
  sat: range,
  sun: range
})
/** New York, Mon–Fri 09:00–17:00 (14:00–22:00Z in winter, 13:00–21:00Z in summer). */
const newYork = compileSchedule({ timeZone: "America/New_York", weeklyHours: weekdays })

describe("addBusinessTime: the contract", () => {
  it("a budget that ends exactly at a closing time answers the closing instant, not the next opening", () => {
    // Friday 2024-03-08 16:00 EST, one hour left of the day.
    expect(iso(addBusinessTime(newYork, at("2024-03-08T21:00:00Z"), 60))).toBe("2024-03-08T22:00:00.000Z")
    // One more minute: Monday 09:01 EDT (the clocks went forward on Sunday).
    expect(iso(addBusinessTime(newYork, at("2024-03-08T21:00:00Z"), 61))).toBe("2024-03-11T13:01:00.000Z")
    // From the closing instant itself, counting starts at the next opening.
    expect(iso(addBusinessTime(newYork, at("2024-03-08T22:00:00Z"), 1))).toBe("2024-03-11T13:01:00.000Z")
  })

  it("0 minutes answers the instant itself, open or closed", () => {
    expect(iso(addBusinessTime(newYork, at("2024-03-08T21:00:00Z"), 0))).toBe("2024-03-08T21:00:00.000Z")
    expect(iso(addBusinessTime(newYork, at("2024-03-09T12:34:56.789Z"), 0))).toBe("2024-03-09T12:34:56.789Z")
    expect(
      iso(addBusinessTime(compileSchedule({ timeZone: "UTC", weeklyHours: {} }), at("2024-03-09T00:00Z"), 0))
    ).toBe("2024-03-09T00:00:00.000Z")
  })

  it("inside open time counts from the instant; outside, from the next opening", () => {
    expect(iso(addBusinessTime(newYork, at("2024-03-08T15:30:00Z"), 90))).toBe("2024-03-08T17:00:00.000Z")
    // Saturday: Monday 09:00 EDT + 90 minutes.
    expect(iso(addBusinessTime(newYork, at("2024-03-09T15:30:00Z"), 90))).toBe("2024-03-11T14:30:00.000Z")
    // Fractional minutes count to the millisecond.
    expect(iso(addBusinessTime(newYork, at("2024-03-08T14:00:00Z"), 0.5))).toBe("2024-03-08T14:00:30.000Z")
  })

  it("30 business days of 8 hours from a Friday afternoon end on the 30th business day after it", () => {
    expect(iso(addBusinessTime(newYork, at("2024-03-08T21:00:00Z"), 30 * 480))).toBe("2024-04-19T20:00:00.000Z")
    expect(businessTimeBetween(newYork, at("2024-03-08T21:00:00Z"), at("2024-04-19T20:00:00Z"))).toBe(30 * 480)
  })

  it("a schedule with nothing open answers null (0 minutes: the instant); ALWAYS_OPEN adds the minutes", () => {
    const never = compileSchedule({ timeZone: "Europe/Berlin", weeklyHours: {} })
    expect(addBusinessTime(never, at("2024-01-01T00:00:00Z"), 1)).toBeNull()
    expect(businessTimeBetween(never, at("2024-01-01T00:00:00Z"), at("2025-01-01T00:00:00Z"))).toBe(0)
    expect(iso(addBusinessTime(ALWAYS_OPEN, at("2024-01-01T00:00:00Z"), 90))).toBe("2024-01-01T01:30:00.000Z")
    expect(businessTimeBetween(ALWAYS_OPEN, at("2024-01-01T00:00:00Z"), at("2024-01-02T00:00:00Z"))).toBe(1440)
  })

  it("null when the last opening ends before the budget is spent", () => {
    const once = compileSchedule({
      timeZone: "Europe/Berlin",
      weeklyHours: {},
      exceptions: [{ date: "2024-06-03", opensAt: "09:00", closesAt: "10:00" }]
    })
    expect(iso(addBusinessTime(once, at("2024-06-03T07:30:00Z"), 30))).toBe("2024-06-03T08:00:00.000Z")
    expect(addBusinessTime(once, at("2024-06-03T07:30:00Z"), 31)).toBeNull()
    expect(addBusinessTime(once, at("2024-06-03T08:00:00Z"), 1)).toBeNull()
  })

  it("refuses a negative, NaN or infinite budget and an invalid Date", () => {
    for (const minutes of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => addBusinessTime(newYork, at("2024-03-08T21:00:00Z"), minutes)).toThrow(RangeError)
    }
    expect(() => addBusinessTime(newYork, new Date(Number.NaN), 1)).toThrow(RangeError)
    expect(() => businessTimeBetween(newYork, new Date(Number.NaN), at("2024-03-08T21:00:00Z"))).toThrow(RangeError)
  })
})

describe("businessTimeBetween", () => {
  it("is negative when `to` is before `from`, and 0 for an empty span", () => {
    expect(businessTimeBetween(newYork, at("2024-03-11T22:00:00Z"), at("2024-03-11T12:00:00Z"))).toBe(-480)
    expect(Object.is(businessTimeBetween(newYork, at("2024-03-09T22:00:00Z"), at("2024-03-09T12:00:00Z")), 0)).toBe(
      true
    )
    expect(businessTimeBetween(newYork, at("2024-03-11T15:00:00Z"), at("2024-03-11T15:00:00Z"))).toBe(0)
  })

  it("counts the DST days' real length: 23 and 25 hours in New York, 24½ in Lord Howe", () => {
    const allDay = { opensAt: "00:00", closesAt: "24:00" }
    const sundays = compileSchedule({ timeZone: "America/New_York", weeklyHours: { sun: allDay } })
    expect(businessTimeBetween(sundays, at("2024-03-09T12:00:00Z"), at("2024-03-11T12:00:00Z"))).toBe(23 * 60)
    expect(businessTimeBetween(sundays, at("2024-11-02T12:00:00Z"), at("2024-11-04T12:00:00Z"))).toBe(25 * 60)
    const lordHowe = compileSchedule({ timeZone: "Australia/Lord_Howe", weeklyHours: { sun: allDay } })
    expect(businessTimeBetween(lordHowe, at("2024-04-05T00:00:00Z"), at("2024-04-08T00:00:00Z"))).toBe(24.5 * 60)
    // Saturday 22:00–06:00 across the spring-forward night is 7 hours.
    const nights = compileSchedule({
      timeZone: "America/New_York",
      weeklyHours: { sat: { opensAt: "22:00", closesAt: "06:00" } }
    })
    expect(businessTimeBetween(nights, at("2024-03-09T00:00:00Z"), at("2024-03-11T00:00:00Z"))).toBe(7 * 60)
    expect(iso(addBusinessTime(nights, at("2024-03-09T00:00:00Z"), 7 * 60))).toBe("2024-03-10T10:00:00.000Z")
  })

  it("counts overlapping overnight ranges once", () => {
    const schedule = compileSchedule({
      timeZone: "Europe/Berlin",
      weeklyHours: { mon: { opensAt: "18:00", closesAt: "03:00" }, tue: { opensAt: "01:00", closesAt: "10:00" } }
    })
    // Monday 18:00 to Tuesday 10:00 CEST: 16 hours, not 9 + 9.
    expect(businessTimeBetween(schedule, at("2024-06-03T00:00:00Z"), at("2024-06-05T00:00:00Z"))).toBe(16 * 60)
    expect(iso(addBusinessTime(schedule, at("2024-06-03T00:00:00Z"), 16 * 60))).toBe("2024-06-04T08:00:00.000Z")
  })

  it("counts yearly holidays across a year end", () => {
    const schedule = compileSchedule({
      timeZone: "Europe/Berlin",
      weeklyHours: weekdays,
      exceptions: [
        { date: "2020-12-25", opensAt: null, closesAt: null, repeatsYearly: true },
        { date: "2020-01-01", opensAt: null, closesAt: null, repeatsYearly: true }
      ]
    })
    // Mon 2026-12-21 to Mon 2027-01-04: ten weekdays, Friday 25 December and Friday 1 January closed.
    expect(businessTimeBetween(schedule, at("2026-12-21T00:00:00Z"), at("2027-01-04T00:00:00Z"))).toBe(8 * 480)
    // Thursday 31 December 16:00 CET + 2 hours: 1 hour, then Monday 4 January 10:00.
    expect(iso(addBusinessTime(schedule, at("2026-12-31T15:00:00Z"), 120))).toBe("2027-01-04T09:00:00.000Z")
  })

  it("has no horizon: a yearly 29 February, counted over a century and added across eight years", () => {
    const leapDays = compileSchedule({
      timeZone: "Europe/Berlin",
      weeklyHours: {},
      exceptions: [{ date: "2024-02-29", opensAt: "09:00", closesAt: "17:00", repeatsYearly: true }]
    })
    // 2028…2124 every fourth year but 2100: 24 days of 8 hours.
    expect(businessTimeBetween(leapDays, at("2025-01-01T00:00:00Z"), at("2125-01-01T00:00:00Z"))).toBe(24 * 480)
    expect(iso(addBusinessTime(leapDays, at("2096-03-01T00:00:00Z"), 480))).toBe("2104-02-29T16:00:00.000Z")
  })

  it("counts a day whose range moves into the next day's (Samoa skipped 30 December 2011) once, in order", () => {
    const schedule = compileSchedule({
      timeZone: "Pacific/Apia",
      weeklyHours: allWeek({ opensAt: "08:00", closesAt: "11:00" }),
      // Friday 30 December did not exist: its 10:00–12:00 resolves to Saturday 31 December 10:00–12:00,
      // after Saturday's own 08:00–11:00 opens.
      exceptions: [{ date: "2011-12-30", opensAt: "10:00", closesAt: "12:00" }]
    })
    const local = (text: string) =>
      new Date(Temporal.PlainDateTime.from(text).toZonedDateTime("Pacific/Apia").epochMilliseconds)
    expect(businessTimeBetween(schedule, local("2011-12-31T00:00"), local("2012-01-01T00:00"))).toBe(4 * 60)
    expect(iso(addBusinessTime(schedule, local("2011-12-31T00:00"), 3 * 60 + 30))).toBe(
      local("2011-12-31T11:30").toISOString()
    )
  })
})
