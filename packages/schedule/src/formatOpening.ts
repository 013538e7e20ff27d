import { ScheduleError } from "./ScheduleError.js"

/** Where and for whom an opening is shown. */
export interface FormatOpeningOptions {
  /** IANA time zone the wall time is shown in. */
  readonly timeZone: string
  /** BCP 47 language tag (the organization's working language); unknown or invalid tags fall back to `en`. */
  readonly locale: string
}

const FALLBACK_LOCALE = "en"
const formatters = new Map<string, Intl.DateTimeFormat>()
const MAX_FORMATTERS = 256

const supportedLocale = (locale: string): string => {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([locale])[0] ?? FALLBACK_LOCALE
  } catch {
    return FALLBACK_LOCALE
  }
}

const formatterFor = (timeZone: string, locale: string): Intl.DateTimeFormat => {
  const key = `${locale}\u0000${timeZone}`
  const cached = formatters.get(key)
  if (cached !== undefined) return cached
  let formatter: Intl.DateTimeFormat
  try {
    formatter = new Intl.DateTimeFormat(supportedLocale(locale), { timeZone, dateStyle: "full", timeStyle: "short" })
  } catch {
    throw new ScheduleError([
      {
        path: ["timeZone"],
        code: "invalid_time_zone",
        message: `Unknown time zone "${timeZone}". Use an IANA time zone name such as Europe/Berlin or America/New_York.`
      }
    ])
  }
  if (formatters.size >= MAX_FORMATTERS) formatters.clear()
  formatters.set(key, formatter)
  return formatter
}

/**
 * An opening as people read it: weekday, date and time in `locale` (falling back to `en`) and in
 * `timeZone`, e.g. "Monday, June 3, 2024 at 9:00 AM". `null` (no next opening) gives "".
 */
export const formatOpening = (at: Date | null, options: FormatOpeningOptions): string =>
  at === null ? "" : formatterFor(options.timeZone, options.locale).format(at)
