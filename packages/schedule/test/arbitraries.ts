/** Random schedules for the property tests, shared by the query and business-time properties. */
import type { ExceptionInput, ScheduleInput } from "@helpdesk/schedule"
import { FastCheck as fc } from "effect"
import { Temporal } from "temporal-polyfill"
import { transitionsBetween } from "./reference.js"

/** Both hemispheres, 30/45-minute offsets, DST at midnight, abolished DST, a 24-hour jump. */
export const ZONES = [
  "America/New_York",
  "Europe/Berlin",
  "Australia/Sydney",
  "Pacific/Auckland",
  "UTC",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Australia/Adelaide",
  "Australia/Lord_Howe",
  "America/St_Johns",
  "Pacific/Chatham",
  "America/Santiago",
  "America/Havana",
  "Asia/Beirut",
  "America/Sao_Paulo",
  "Europe/Istanbul",
  "Pacific/Apia"
] as const

/** Years inside the offset table's window and outside it (where answers come from Intl directly). */
export const YEARS = [2011, 2016, 2018, 2019, 2020, 2024, 2025, 2026, 2030, 2045, 2047, 2060, 2100, 1990] as const

export const DAY = 86_400_000
export const pad = (n: number) => String(n).padStart(2, "0")
const DST_TIMES = ["00:00", "00:30", "01:00", "01:30", "02:00", "02:15", "02:30", "02:45", "03:00", "03:30"]
const PLAIN_TIMES = ["08:00", "09:00", "12:00", "17:00", "18:00", "22:00", "23:00", "23:30", "23:59"]
export const time = fc.oneof(
  fc.constantFrom(...DST_TIMES, ...PLAIN_TIMES),
  fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${pad(h)}:${pad(m)}`)
)
export const closing = fc.oneof({ weight: 6, arbitrary: time }, { weight: 1, arbitrary: fc.constant("24:00") })
export const weeklyRange = fc.record({ opensAt: time, closesAt: closing })
export const withSeconds = (text: string, seconds: number) =>
  text === "24:00" || seconds === 0 ? text : `${text}:${pad(seconds)}`

/** Local dates on which the zone's offset changes in a year: exceptions there hit the gaps and repeats. */
export const transitionDates = (timeZone: string, year: number): Array<string> =>
  transitionsBetween(timeZone, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1)).flatMap((t) => {
    const date = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(timeZone).toPlainDate()
    return [date.subtract({ days: 1 }).toString(), date.toString()]
  })

/**
 * A random schedule in `timeZone` around `year`: weekday ranges (DST-prone and plain times, overnight,
 * `24:00`), up to six exceptions, dated or yearly, many on the days of the year's offset changes;
 * exception times with seconds unless `wholeMinutes`.
 */
export const scheduleInput = (
  timeZone: string,
  year: number,
  options: { readonly wholeMinutes?: boolean } = {}
): fc.Arbitrary<ScheduleInput> => {
  const special = transitionDates(timeZone, year)
  const anyDate = fc
    .tuple(fc.integer({ min: year - 3, max: year }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }))
    .filter(([y, m, d]) => d <= new Date(Date.UTC(y, m, 0)).getUTCDate())
    .map(([y, m, d]) => `${y}-${pad(m)}-${pad(d)}`)
  const date = special.length > 0 ? fc.oneof(fc.constantFrom(...special), anyDate) : anyDate
  const seconds = options.wholeMinutes === true ? fc.constant(0) : fc.integer({ min: 0, max: 59 })
  const exception: fc.Arbitrary<ExceptionInput> = fc
    .record({
      date,
      times: fc.option(fc.tuple(time, closing, seconds, seconds), { freq: 3 }),
      repeatsYearly: fc.boolean()
    })
    .map(({ date, times, repeatsYearly }) => ({
      date,
      opensAt: times === null ? null : withSeconds(times[0], times[2] % 3 === 0 ? times[2] : 0),
      closesAt: times === null ? null : withSeconds(times[1], times[3] % 3 === 0 ? times[3] : 0),
      repeatsYearly
    }))
  const day = fc.option(weeklyRange, { freq: 3, nil: null })
  return fc.record({
    timeZone: fc.constant(timeZone),
    weeklyHours: fc.record({ mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }),
    exceptions: fc.uniqueArray(exception, { maxLength: 6, selector: (e) => e.date })
  })
}
