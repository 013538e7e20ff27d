import { Schema } from "effect"
import { NullableTimestamp } from "../Http/Representation.js"
import { EXCEPTION_NAME_MAX_LENGTH } from "./Validation.js"

/**
 * Wire schemas of the business-hours resources. Responses are encoded with them; request bodies are decoded by
 * `Validation.ts` (so that `@helpdesk/schedule` decides about times, dates and zones) and the body schemas
 * here document them in `/openapi.json`.
 */

const WeeklyTime = Schema.String.annotations({
  jsonSchema: {
    type: "string",
    pattern: "^\\d{2}:\\d{2}$",
    description: "24-hour `HH:MM`, no seconds. `24:00` is accepted as `closes_at` only (the end of the day).",
    examples: ["09:00"]
  }
})

const ExceptionTime = Schema.NullOr(Schema.String).annotations({
  jsonSchema: {
    anyOf: [
      {
        type: "string",
        pattern: "^\\d{2}:\\d{2}(:\\d{2})?$",
        description:
          "24-hour `HH:MM` or `HH:MM:SS` in requests; always `HH:MM:SS` in responses. `24:00` closes at the end of the date.",
        examples: ["09:00:00"]
      },
      { type: "null" }
    ]
  }
})

/** One weekday's opening. `closes_at` at or before `opens_at` closes on the next day (overnight). */
export const DayHoursSchema = Schema.Struct({
  opens_at: WeeklyTime,
  closes_at: WeeklyTime
}).annotations({
  identifier: "DayHours",
  description: "One range for the weekday. A `closes_at` at or before `opens_at` continues overnight into the next day."
})

const day = Schema.optional(Schema.NullOr(DayHoursSchema)).annotations({
  description: "`null` (or omitted in a request): closed that weekday."
})

/** The weekday map: `mon` … `sun`, each closed (`null`) or one range. */
export const WeeklyHoursSchema = Schema.Struct({
  mon: day,
  tue: day,
  wed: day,
  thu: day,
  fri: day,
  sat: day,
  sun: day
}).annotations({
  identifier: "WeeklyHours",
  description:
    "Keys `mon` … `sun`. In responses all seven keys are present once a schedule is saved (a day omitted when saving is `null`), and the object is empty when none is saved. An unknown key is a field error."
})

/** The business-hours resource (one per organization). */
export const BusinessHoursResource = Schema.Struct({
  timezone: Schema.NullOr(Schema.String).annotations({
    description: "IANA time zone name (canonical spelling, e.g. `Europe/Berlin`); `null` when no schedule is saved."
  }),
  weekly_hours: WeeklyHoursSchema,
  is_open_now: Schema.Boolean.annotations({
    description:
      "Read-only. Open at the time of the request, counting the weekly hours and every exception. Always true when no schedule is saved (open 24/7)."
  }),
  next_open: NullableTimestamp.annotations({
    description:
      "Read-only. ISO-8601 UTC with milliseconds: the start of the next opening after the current stretch (when open) or the next opening (when closed). `null` when there is none, however far ahead, and when no schedule is saved."
  }),
  next_open_display: Schema.String.annotations({
    description:
      "Read-only. `next_open` as people read it (weekday, date and time) in the organization's `working_language` and the schedule's time zone; empty when `next_open` is null."
  })
}).annotations({ identifier: "BusinessHours" })

/** Body of `PUT …/business-hours/`. */
export const BusinessHoursReplace = Schema.Struct({
  timezone: Schema.String.annotations({
    jsonSchema: {
      type: "string",
      minLength: 1,
      description: "Required. IANA time zone name such as `Europe/Berlin`; unknown names are refused.",
      examples: ["Europe/Berlin"]
    }
  }),
  weekly_hours: WeeklyHoursSchema.annotations({
    description:
      'Required (`{}` closes every day). In a form or multipart body, send it as a JSON string (`weekly_hours={"mon":{…}}`) or as fields `weekly_hours.mon.opens_at=09:00` (`weekly_hours.mon=` closes the day).'
  })
}).annotations({ identifier: "BusinessHoursReplace" })

const DateField = Schema.String.annotations({
  jsonSchema: {
    type: "string",
    format: "date",
    description: "`YYYY-MM-DD`, a date that exists (`2026-02-30` is refused), in the schedule's time zone.",
    examples: ["2026-12-25"]
  }
})

const NameField = Schema.String.annotations({
  jsonSchema: { type: "string", maxLength: EXCEPTION_NAME_MAX_LENGTH, description: "Label for the date; may be empty." }
})

const RepeatsYearlyField = Schema.Boolean.annotations({
  description:
    "Repeats on this month and day every year from the date's year on (29 February only in leap years). A non-repeating exception on the exact date wins over a repeating one."
})

/** A business-hours exception: one calendar date replacing that weekday's hours. */
export const BusinessHoursException = Schema.Struct({
  id: Schema.Int,
  date: DateField,
  name: NameField,
  repeats_yearly: RepeatsYearlyField,
  opens_at: ExceptionTime,
  closes_at: ExceptionTime
}).annotations({
  identifier: "BusinessHoursException",
  description:
    "Both times null: the date is closed. Both set: the date's one range (a `closes_at` earlier than `opens_at` continues overnight). One without the other is refused."
})

/** Body of `POST …/business-hours/exceptions/`. */
export const BusinessHoursExceptionCreate = Schema.Struct({
  date: DateField,
  name: Schema.optional(NameField),
  repeats_yearly: Schema.optional(RepeatsYearlyField),
  opens_at: Schema.optional(ExceptionTime),
  closes_at: Schema.optional(ExceptionTime)
}).annotations({
  identifier: "BusinessHoursExceptionCreate",
  description:
    "`date` is required; `name` defaults to empty, `repeats_yearly` to false, the times to null (closed). In form bodies an empty time is null."
})

/** Body of `PATCH …/business-hours/exceptions/{pk}/`: any of the fields; the merged exception is checked whole. */
export const BusinessHoursExceptionUpdate = Schema.partial(BusinessHoursExceptionCreate).annotations({
  identifier: "BusinessHoursExceptionUpdate"
})
