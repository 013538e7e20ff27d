import { describe, expect, it } from "@effect/vitest"
import { compileSchedule, isOpenAt, ScheduleError, type ScheduleIssue, validateException } from "@helpdesk/schedule"

/** Compiles and returns the issues of the `ScheduleError` it must throw. */
const issuesOf = (input: unknown): ReadonlyArray<ScheduleIssue> => {
  try {
    compileSchedule(input as never)
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError)
    return (error as ScheduleError).issues
  }
  throw new Error("expected a ScheduleError")
}

const only = (input: unknown) => {
  const issues = issuesOf(input)
  expect(issues).toHaveLength(1)
  return issues[0]!
}

const nine = { opensAt: "09:00", closesAt: "17:00" }

describe("validation names the field and what is accepted", () => {
  it("unknown time zone", () => {
    const issue = only({ timeZone: "Mars/Olympus", weeklyHours: {} })
    expect(issue.path).toEqual(["timeZone"])
    expect(issue.code).toBe("invalid_time_zone")
    expect(issue.message).toContain("Mars/Olympus")
    expect(issue.message).toContain("IANA")
  })

  it("missing or empty time zone is required", () => {
    expect(only({ timeZone: "", weeklyHours: {} })).toMatchObject({ path: ["timeZone"], code: "required" })
    expect(only({ weeklyHours: {} })).toMatchObject({ path: ["timeZone"], code: "required" })
  })

  it("an offset is not an IANA time zone name", () => {
    expect(only({ timeZone: "+05:00", weeklyHours: {} })).toMatchObject({ code: "invalid_time_zone" })
  })

  it("25:00 is not a time of day", () => {
    const issue = only({ timeZone: "UTC", weeklyHours: { mon: { opensAt: "25:00", closesAt: "17:00" } } })
    expect(issue).toMatchObject({ path: ["weeklyHours", "mon", "opensAt"], code: "invalid_time" })
    expect(issue.message).toContain("HH:MM")
  })

  it("09:5 has the wrong format", () => {
    const issue = only({ timeZone: "UTC", weeklyHours: { tue: { opensAt: "09:00", closesAt: "09:5" } } })
    expect(issue).toMatchObject({ path: ["weeklyHours", "tue", "closesAt"], code: "invalid_time" })
    expect(issue.message).toBe("Time has wrong format. Use HH:MM (24-hour).")
  })

  it("seconds are not accepted in weekly hours", () => {
    const issue = only({ timeZone: "UTC", weeklyHours: { wed: { opensAt: "09:00:00", closesAt: "17:00" } } })
    expect(issue).toMatchObject({ path: ["weeklyHours", "wed", "opensAt"], code: "seconds_not_allowed" })
  })

  it("an unknown weekday key", () => {
    const issue = only({ timeZone: "UTC", weeklyHours: { monday: nine } })
    expect(issue).toMatchObject({ path: ["weeklyHours", "monday"], code: "unknown_weekday" })
    expect(issue.message).toContain("mon, tue, wed, thu, fri, sat, sun")
  })

  it("a malformed date and an impossible date", () => {
    expect(only({ timeZone: "UTC", weeklyHours: {}, exceptions: [{ date: "2026-2-3" }] })).toMatchObject({
      path: ["exceptions", 0, "date"],
      code: "invalid_date",
      message: "Date has wrong format. Use YYYY-MM-DD."
    })
    const impossible = only({ timeZone: "UTC", weeklyHours: {}, exceptions: [{ date: "2026-02-30" }] })
    expect(impossible).toMatchObject({ path: ["exceptions", 0, "date"], code: "invalid_date" })
    expect(impossible.message).toContain("2026-02-30 is not a calendar date")
    expect(only({ timeZone: "UTC", weeklyHours: {}, exceptions: [{ date: "2025-02-29" }] }).code).toBe("invalid_date")
    expect(() =>
      compileSchedule({ timeZone: "UTC", weeklyHours: {}, exceptions: [{ date: "2024-02-29" }] })
    ).not.toThrow()
  })

  it("one time null and the other set is reported on the missing one", () => {
    expect(
      only({ timeZone: "UTC", weeklyHours: {}, exceptions: [{ date: "2026-01-01", opensAt: "09:00", closesAt: null }] })
    ).toMatchObject({ path: ["exceptions", 0, "closesAt"], code: "incomplete_range" })
    expect(only({ timeZone: "UTC", weeklyHours: { fri: { opensAt: null, closesAt: "17:00" } } })).toMatchObject({
      path: ["weeklyHours", "fri", "opensAt"],
      code: "incomplete_range"
    })
  })

  it("two exceptions for one date", () => {
    const issue = only({
      timeZone: "UTC",
      weeklyHours: {},
      exceptions: [{ date: "2026-12-24" }, { date: "2026-12-25" }, { date: "2026-12-24", repeatsYearly: true }]
    })
    expect(issue).toMatchObject({ path: ["exceptions", 2, "date"], code: "duplicate_date" })
  })

  it("24:00 is a closing time only", () => {
    expect(only({ timeZone: "UTC", weeklyHours: { sat: { opensAt: "24:00", closesAt: "02:00" } } })).toMatchObject({
      path: ["weeklyHours", "sat", "opensAt"],
      code: "invalid_opening_time"
    })
    expect(() =>
      compileSchedule({ timeZone: "UTC", weeklyHours: { sat: { opensAt: "20:00", closesAt: "24:00" } } })
    ).not.toThrow()
    expect(() =>
      compileSchedule({
        timeZone: "UTC",
        weeklyHours: {},
        exceptions: [{ date: "2026-01-01", opensAt: "20:00", closesAt: "24:00:00" }]
      })
    ).not.toThrow()
    expect(only({ timeZone: "UTC", weeklyHours: { sat: { opensAt: "20:00", closesAt: "24:01" } } }).code).toBe(
      "invalid_time"
    )
  })

  it("every problem is listed at once, each with its own path", () => {
    const issues = issuesOf({
      timeZone: "Nowhere/City",
      weeklyHours: {
        mon: { opensAt: "9:00", closesAt: "17:00" },
        funday: null,
        sun: { opensAt: "10:00", closesAt: "18:00:00" }
      },
      exceptions: [
        { date: "2026-02-30", opensAt: "09:00", closesAt: "12:00" },
        { date: "2026-05-01", opensAt: "24:00", closesAt: null, repeatsYearly: "yes" }
      ]
    })
    expect(issues.map((issue) => [issue.path, issue.code])).toEqual([
      [["timeZone"], "invalid_time_zone"],
      [["weeklyHours", "mon", "opensAt"], "invalid_time"],
      [["weeklyHours", "funday"], "unknown_weekday"],
      [["weeklyHours", "sun", "closesAt"], "seconds_not_allowed"],
      [["exceptions", 0, "date"], "invalid_date"],
      [["exceptions", 1, "opensAt"], "invalid_opening_time"],
      [["exceptions", 1, "closesAt"], "incomplete_range"],
      [["exceptions", 1, "repeatsYearly"], "invalid_type"]
    ])
    const error = new ScheduleError(issues)
    expect(error.message).toContain("weeklyHours.mon.opensAt")
  })

  it("shapes that are not objects or lists", () => {
    expect(only(null)).toMatchObject({ path: [], code: "invalid_type" })
    expect(only({ timeZone: "UTC" })).toMatchObject({ path: ["weeklyHours"], code: "required" })
    expect(only({ timeZone: "UTC", weeklyHours: [] })).toMatchObject({ path: ["weeklyHours"], code: "invalid_type" })
    expect(only({ timeZone: "UTC", weeklyHours: { mon: "09:00-17:00" } })).toMatchObject({
      path: ["weeklyHours", "mon"],
      code: "invalid_type"
    })
    expect(only({ timeZone: "UTC", weeklyHours: {}, exceptions: {} })).toMatchObject({
      path: ["exceptions"],
      code: "invalid_type"
    })
    expect(only({ timeZone: "UTC", weeklyHours: {}, exceptions: ["2026-01-01"] })).toMatchObject({
      path: ["exceptions", 0],
      code: "invalid_type"
    })
  })

  it("accepts the edges: 00:00, 23:59, 23:59:59 in exceptions, 29 February of a leap year, a time zone alias", () => {
    const schedule = compileSchedule({
      timeZone: "Asia/Calcutta",
      weeklyHours: { mon: { opensAt: "00:00", closesAt: "23:59" }, tue: null },
      exceptions: [{ date: "2024-02-29", opensAt: "00:00:00", closesAt: "23:59:59", repeatsYearly: false }]
    })
    expect(["Asia/Calcutta", "Asia/Kolkata"]).toContain(schedule.timeZone)
    // Monday 2024-06-03 23:58 IST is open, 23:59 is the closing instant.
    expect(isOpenAt(schedule, new Date("2024-06-03T18:28:00Z"))).toBe(true)
    expect(isOpenAt(schedule, new Date("2024-06-03T18:29:00Z"))).toBe(false)
    expect(isOpenAt(schedule, new Date("2024-02-29T18:29:58Z"))).toBe(true)
  })
})

describe("validateException checks one exception on its own", () => {
  it("returns no issues for a valid exception", () => {
    expect(validateException({ date: "2026-12-24", opensAt: "09:00:00", closesAt: "12:00" })).toEqual([])
    expect(validateException({ date: "2026-12-25", opensAt: null, closesAt: null, repeatsYearly: true })).toEqual([])
  })
  it("paths are relative to the exception", () => {
    expect(
      validateException({ date: "2026-13-01", opensAt: "9", closesAt: "12:00" }).map((issue) => issue.path)
    ).toEqual([["date"], ["opensAt"]])
    expect(validateException({ opensAt: "09:00", closesAt: "10:00" })).toEqual([
      { path: ["date"], code: "required", message: "This field is required. Use YYYY-MM-DD." }
    ])
  })
})
