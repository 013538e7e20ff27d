/**
 * Bad opening times of a weekly schedule, one a weekday (each closing at 17:00), with the message each must be
 * refused with: the same cases for the validation and for `PUT …/business-hours/`.
 */
export const BAD_OPENING_TIMES = [
  { day: "mon", opens_at: "09:5", message: "Time has wrong format. Use HH:MM." },
  {
    day: "tue",
    opens_at: "25:00",
    message: '"25:00" is not a time of day. Use HH:MM from 00:00 to 23:59 (24:00 only as closes_at).'
  },
  { day: "wed", opens_at: "09:00:00", message: "Time has wrong format. Use HH:MM (weekly hours take no seconds)." },
  { day: "thu", opens_at: "24:00", message: "24:00 is accepted as closes_at only. Use 00:00 to 23:59 for opens_at." }
] as const

/** The weekly hours of {@link BAD_OPENING_TIMES}: `{ mon: { opens_at: "09:5", closes_at: "17:00" }, … }`. */
export const badOpeningHours = Object.fromEntries(
  BAD_OPENING_TIMES.map(({ day, opens_at }) => [day, { opens_at, closes_at: "17:00" }])
)
