/**
 * Proleptic Gregorian calendar arithmetic on integer day numbers (days since 1970-01-01), after
 * Howard Hinnant's `days_from_civil` / `civil_from_days`. Pure integer work: no `Date`, no `Intl`.
 */

/** Milliseconds in a calendar day of wall-clock time. */
export const DAY_MS = 86_400_000

/** Day number (days since 1970-01-01) of a proleptic Gregorian date; `month` is 1..12. */
export const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = month > 2 ? month - 3 : month + 9
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

/**
 * Year, month (1..12) and day of month of a day number, written into `out` (the inverse of `daysFromCivil`).
 * Writing into a caller's array keeps the hot paths free of allocation.
 */
export const civilInto = (dayNumber: number, out: [year: number, month: number, day: number]): void => {
  const z = dayNumber + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const month = mp < 10 ? mp + 3 : mp - 9
  out[0] = yoe + era * 400 + (month <= 2 ? 1 : 0)
  out[1] = month
  out[2] = doy - Math.floor((153 * mp + 2) / 5) + 1
}

const scratch: [number, number, number] = [0, 0, 0]

/** Year of a day number. */
export const yearOfDay = (dayNumber: number): number => {
  civilInto(dayNumber, scratch)
  return scratch[0]
}

/** Weekday of a day number, 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday). */
export const weekdayOfDay = (dayNumber: number): number => (((dayNumber + 3) % 7) + 7) % 7

export const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

export const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31

/** Year, month (1..12) and day of a day number (the inverse of `daysFromCivil`). */
export const civilFromDays = (dayNumber: number): readonly [year: number, month: number, day: number] => {
  const out: [number, number, number] = [0, 0, 0]
  civilInto(dayNumber, out)
  return out
}
