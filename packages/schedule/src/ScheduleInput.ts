/** Weekday keys of `ScheduleInput.weeklyHours`, Monday first. */
export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const

export type Weekday = (typeof WEEKDAYS)[number]

/** One weekday's opening: `HH:MM` times; `closesAt <= opensAt` closes on the next day; `24:00` closes at midnight. */
export interface WeeklyRange {
  readonly opensAt: string
  readonly closesAt: string
}

/** A dated exception: both times null closes the date, both set make it the date's one range. */
export interface ExceptionInput {
  /** `YYYY-MM-DD`. */
  readonly date: string
  /** `HH:MM` or `HH:MM:SS`, or null. */
  readonly opensAt?: string | null
  /** `HH:MM` or `HH:MM:SS` (`24:00` allowed), or null. */
  readonly closesAt?: string | null
  /** Repeats on this month and day every year from the date's year on (29 February in leap years only). */
  readonly repeatsYearly?: boolean
}

/** A business-hours schedule as saved: an IANA time zone, a range (or nothing) per weekday, exceptions. */
export interface ScheduleInput {
  readonly timeZone: string
  readonly weeklyHours: Partial<Record<Weekday, WeeklyRange | null>>
  readonly exceptions?: ReadonlyArray<ExceptionInput>
}
