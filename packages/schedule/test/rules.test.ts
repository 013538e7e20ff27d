import { describe, expect, it } from "@effect/vitest"
import {
  ALWAYS_OPEN,
  compileSchedule,
  formatOpening,
  isOpenAt,
  nextOpenAfter,
  type Schedule,
  ScheduleError,
  type ScheduleInput
} from "@helpdesk/schedule"

const at = (iso: string) => new Date(iso)
const iso = (date: Date | null) => (date === null ? null : date.toISOString())
const ms = (iso: string, delta: number) => new Date(Date.parse(iso) + delta)

/** Asserts whether `schedule` is open at each instant of `expected` (one comparison, naming the instants that differ). */
const expectOpenAt = (schedule: Schedule, expected: Readonly<Record<string, boolean>>) =>
  expect(
    Object.fromEntries(Object.keys(expected).map((instant) => [instant, isOpenAt(schedule, at(instant))]))
  ).toEqual(expected)

/** A schedule in `timeZone` with no weekly hours, open only as the one exception `exception` says. */
const onlyException = (timeZone: string, exception: NonNullable<ScheduleInput["exceptions"]>[number]) =>
  compileSchedule({ timeZone, weeklyHours: {}, exceptions: [exception] })

describe("a range belongs to the day that opens it", () => {
  // 2024-06-07 is a Friday.
  const friday = { fri: { opensAt: "22:00", closesAt: "02:00" } }
  /** Open Fridays 22:00–02:00 (UTC), closed all day on `date` by an exception. */
  const fridaysClosedOn = (date: string) =>
    compileSchedule({ timeZone: "UTC", weeklyHours: friday, exceptions: [{ date, opensAt: null, closesAt: null }] })

  it("Friday 22:00–02:00 keeps Saturday 00:00–02:00 open when Saturday is closed by an exception", () => {
    const schedule = fridaysClosedOn("2024-06-08")
    expectOpenAt(schedule, { "2024-06-08T01:00:00Z": true, "2024-06-08T02:00:00Z": false })
  })

  it("closing Friday by an exception removes its overnight part too", () => {
    const schedule = fridaysClosedOn("2024-06-07")
    expectOpenAt(schedule, { "2024-06-07T23:00:00Z": false, "2024-06-08T01:00:00Z": false })
    expect(iso(nextOpenAfter(schedule, at("2024-06-07T23:00:00Z")))).toBe("2024-06-14T22:00:00.000Z")
  })

  it("an overnight exception runs into the next day even when that day is closed", () => {
    const schedule = onlyException("Europe/Berlin", { date: "2024-12-31", opensAt: "20:00", closesAt: "03:30:15" })
    expectOpenAt(schedule, { "2025-01-01T02:30:14.999Z": true, "2025-01-01T02:30:15Z": false })
  })
})

describe("intervals are half-open", () => {
  const schedule = compileSchedule({ timeZone: "UTC", weeklyHours: { wed: { opensAt: "09:00", closesAt: "17:00" } } })
  it("open at the opening instant, closed at the closing instant, ±1 ms", () => {
    expect(isOpenAt(schedule, ms("2024-06-05T09:00:00Z", -1))).toBe(false)
    expect(isOpenAt(schedule, ms("2024-06-05T09:00:00Z", 0))).toBe(true)
    expect(isOpenAt(schedule, ms("2024-06-05T17:00:00Z", -1))).toBe(true)
    expect(isOpenAt(schedule, ms("2024-06-05T17:00:00Z", 0))).toBe(false)
  })
  it("asked exactly at an opening, the next opening is the one after the current stretch", () => {
    expect(iso(nextOpenAfter(schedule, at("2024-06-05T09:00:00Z")))).toBe("2024-06-12T09:00:00.000Z")
    expect(iso(nextOpenAfter(schedule, ms("2024-06-05T09:00:00Z", -1)))).toBe("2024-06-05T09:00:00.000Z")
    expect(iso(nextOpenAfter(schedule, at("2024-06-05T17:00:00Z")))).toBe("2024-06-12T09:00:00.000Z")
  })
})

describe("24:00 and equal times", () => {
  it("24:00 closes at the end of the opening day", () => {
    const schedule = compileSchedule({ timeZone: "UTC", weeklyHours: { mon: { opensAt: "20:00", closesAt: "24:00" } } })
    expectOpenAt(schedule, { "2024-06-03T23:59:59.999Z": true, "2024-06-04T00:00:00Z": false })
  })
  it("09:00–09:00 is 24 hours, 00:00–00:00 is the whole day", () => {
    const schedule = compileSchedule({
      timeZone: "UTC",
      weeklyHours: { mon: { opensAt: "09:00", closesAt: "09:00" }, wed: { opensAt: "00:00", closesAt: "00:00" } }
    })
    expectOpenAt(schedule, {
      "2024-06-04T08:59:59.999Z": true,
      "2024-06-04T09:00:00Z": false,
      "2024-06-05T00:00:00Z": true,
      "2024-06-05T23:59:59.999Z": true,
      "2024-06-06T00:00:00Z": false
    })
  })
  it("a 24-hour day in a zone with DST lasts 23 hours on the day of the gap", () => {
    const schedule = compileSchedule({
      timeZone: "Europe/Berlin",
      weeklyHours: { sun: { opensAt: "00:00", closesAt: "24:00" } }
    })
    // 2024-03-31: 00:00 CET = 23:00Z the day before, 24:00 CEST = 22:00Z.
    expectOpenAt(schedule, {
      "2024-03-30T23:00:00Z": true,
      "2024-03-31T21:59:59.999Z": true,
      "2024-03-31T22:00:00Z": false
    })
  })
})

describe("stretches", () => {
  it("touching ranges (Mon until 24:00, Tue from 00:00) are one stretch", () => {
    const schedule = compileSchedule({
      timeZone: "Asia/Kolkata",
      weeklyHours: { mon: { opensAt: "09:00", closesAt: "24:00" }, tue: { opensAt: "00:00", closesAt: "12:00" } }
    })
    // Monday 2024-06-03 10:00 IST.
    expect(iso(nextOpenAfter(schedule, at("2024-06-03T04:30:00Z")))).toBe("2024-06-10T03:30:00.000Z")
  })
  it("open every day for 24 hours from the same time: open, no next opening", () => {
    const full = { opensAt: "07:00", closesAt: "07:00" }
    const schedule = compileSchedule({
      timeZone: "America/New_York",
      weeklyHours: { mon: full, tue: full, wed: full, thu: full, fri: full, sat: full, sun: full }
    })
    expect(isOpenAt(schedule, at("2024-03-10T07:30:00Z"))).toBe(true)
    expect(nextOpenAfter(schedule, at("2024-03-10T07:30:00Z"))).toBeNull()
  })
  it("open around the clock except a yearly closed Christmas: the next opening is 26 December", () => {
    const full = { opensAt: "00:00", closesAt: "24:00" }
    const schedule = compileSchedule({
      timeZone: "Europe/Berlin",
      weeklyHours: { mon: full, tue: full, wed: full, thu: full, fri: full, sat: full, sun: full },
      exceptions: [{ date: "2020-12-25", opensAt: null, closesAt: null, repeatsYearly: true }]
    })
    expect(iso(nextOpenAfter(schedule, at("2025-01-10T12:00:00Z")))).toBe("2025-12-25T23:00:00.000Z")
  })
})

describe("yearly exceptions", () => {
  const weekdays = { opensAt: "09:00", closesAt: "17:00" }
  /** Mon–Fri 09:00–17:00 UTC with `exceptions`. */
  const weekdaysWith = (exceptions: ScheduleInput["exceptions"]) =>
    compileSchedule({
      timeZone: "UTC",
      weeklyHours: { mon: weekdays, tue: weekdays, wed: weekdays, thu: weekdays, fri: weekdays },
      exceptions
    })

  it("apply from their own year on, not before", () => {
    const schedule = weekdaysWith([{ date: "2025-12-25", opensAt: null, closesAt: null, repeatsYearly: true }])
    expectOpenAt(schedule, {
      "2024-12-25T10:00:00Z": true, // Wednesday, before the exception's year
      "2025-12-25T10:00:00Z": false,
      "2026-12-25T10:00:00Z": false
    })
  })

  it("29 February applies only in leap years; in other years the weekday rule stands", () => {
    const schedule = weekdaysWith([{ date: "2024-02-29", opensAt: null, closesAt: null, repeatsYearly: true }])
    expectOpenAt(schedule, {
      "2024-02-29T10:00:00Z": false,
      "2025-02-28T10:00:00Z": true,
      "2025-03-03T10:00:00Z": true,
      "2028-02-29T10:00:00Z": false
    })
  })

  it("a dated exception beats a yearly one on its date", () => {
    const schedule = weekdaysWith([
      { date: "2020-12-24", opensAt: "09:00", closesAt: "12:00", repeatsYearly: true },
      { date: "2025-12-24", opensAt: null, closesAt: null }
    ])
    expectOpenAt(schedule, {
      "2024-12-24T10:00:00Z": true,
      "2024-12-24T13:00:00Z": false,
      "2025-12-24T10:00:00Z": false,
      "2026-12-24T10:00:00Z": true
    })
  })

  it("of two yearly exceptions on one month and day, the later one takes over from its year", () => {
    const schedule = weekdaysWith([
      { date: "2020-12-24", opensAt: null, closesAt: null, repeatsYearly: true },
      { date: "2026-12-24", opensAt: "10:00", closesAt: "12:00", repeatsYearly: true }
    ])
    expectOpenAt(schedule, { "2025-12-24T11:00:00Z": false, "2027-12-24T11:00:00Z": true })
    expect(iso(nextOpenAfter(schedule, at("2027-12-24T09:00:00Z")))).toBe("2027-12-24T10:00:00.000Z")
  })

  it("an exception time with seconds opens and closes on that second", () => {
    const schedule = onlyException("Asia/Kathmandu", { date: "2030-01-15", opensAt: "09:00:30", closesAt: "09:00:45" })
    expect(iso(nextOpenAfter(schedule, at("2026-01-01T00:00:00Z")))).toBe("2030-01-15T03:15:30.000Z")
    expectOpenAt(schedule, { "2030-01-15T03:15:44.999Z": true, "2030-01-15T03:15:45Z": false })
    expect(nextOpenAfter(schedule, at("2030-01-15T03:15:30Z"))).toBeNull()
  })
})

describe("DST with half-hour changes and at midnight", () => {
  it("Lord Howe moves by 30 minutes: 02:15 on the day of the gap opens at 02:45 (+11)", () => {
    const schedule = compileSchedule({
      timeZone: "Australia/Lord_Howe",
      weeklyHours: { sun: { opensAt: "02:15", closesAt: "04:00" } }
    })
    // 2024-10-06 02:00 +10:30 → 02:30 +11.
    expect(iso(nextOpenAfter(schedule, at("2024-10-05T12:00:00Z")))).toBe("2024-10-05T15:45:00.000Z")
  })
  it("Havana repeats 00:00–01:00 on the first Sunday of November: a range from 00:30 starts at the first one", () => {
    const schedule = compileSchedule({
      timeZone: "America/Havana",
      weeklyHours: { sun: { opensAt: "00:30", closesAt: "00:45" } }
    })
    // 2024-11-03 01:00 CDT (-4) → 00:00 CST (-5): 00:30 first happens at 04:30Z.
    expect(iso(nextOpenAfter(schedule, at("2024-11-02T12:00:00Z")))).toBe("2024-11-03T04:30:00.000Z")
    expect(isOpenAt(schedule, at("2024-11-03T05:35:00Z"))).toBe(false)
  })
})

describe("weekly days", () => {
  it("a weekday given as an object with both times null is closed, like null or an omitted day", () => {
    const schedule = compileSchedule({
      timeZone: "UTC",
      weeklyHours: {
        mon: { opensAt: null, closesAt: null } as never,
        tue: null,
        wed: { opensAt: "10:00", closesAt: "11:00" }
      }
    })
    expect(isOpenAt(schedule, at("2024-06-03T10:30:00Z"))).toBe(false)
    expect(iso(nextOpenAfter(schedule, at("2024-06-03T10:30:00Z")))).toBe("2024-06-05T10:00:00.000Z")
  })
})

describe("no schedule saved", () => {
  it("ALWAYS_OPEN is open with no next opening", () => {
    expect(isOpenAt(ALWAYS_OPEN, at("2024-01-01T00:00:00Z"))).toBe(true)
    expect(nextOpenAfter(ALWAYS_OPEN, at("2024-01-01T00:00:00Z"))).toBeNull()
    expect(ALWAYS_OPEN.timeZone).toBeNull()
  })
})

describe("far from the zone table's window", () => {
  it("answers the same rule in 1950 and 2150 from Intl", () => {
    const schedule = compileSchedule({
      timeZone: "America/New_York",
      weeklyHours: { sun: { opensAt: "02:30", closesAt: "05:00" } }
    })
    // DST starts on Sunday 2150-03-08 (second Sunday of March): 02:30 moves to 03:30 EDT.
    expect(iso(nextOpenAfter(schedule, at("2150-03-08T05:00:00Z")))).toBe("2150-03-08T07:30:00.000Z")
    expect(iso(nextOpenAfter(schedule, at("2150-03-10T05:00:00Z")))).toBe("2150-03-15T06:30:00.000Z")
    expect(isOpenAt(schedule, at("1950-01-01T08:00:00Z"))).toBe(true)
  })
})

describe("formatOpening", () => {
  const opening = at("2024-06-03T03:15:00Z")
  it("shows weekday, date and time in the zone and language", () => {
    expect(formatOpening(opening, { timeZone: "Asia/Kathmandu", locale: "en" })).toBe("Monday, June 3, 2024 at 9:00 AM")
    expect(formatOpening(opening, { timeZone: "Europe/Berlin", locale: "de" })).toBe("Montag, 3. Juni 2024 um 05:15")
  })
  it("falls back to en for an unknown or invalid language", () => {
    const english = formatOpening(opening, { timeZone: "UTC", locale: "en" })
    expect(formatOpening(opening, { timeZone: "UTC", locale: "zz" })).toBe(english)
    expect(formatOpening(opening, { timeZone: "UTC", locale: "not a locale!" })).toBe(english)
  })
  it("rejects an unknown time zone with a ScheduleError", () => {
    expect(() => formatOpening(opening, { timeZone: "Nowhere/City", locale: "en" })).toThrow(ScheduleError)
  })
  it("is empty when there is no next opening", () => {
    expect(formatOpening(null, { timeZone: "UTC", locale: "en" })).toBe("")
  })
})
