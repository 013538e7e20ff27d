import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { fieldIssues } from "../src/BusinessHours/ScheduleIssues.js"
import {
  CLOSED_WEEK,
  type StoredException,
  validateExceptionBody,
  validateScheduleBody,
  validateScheduleWith
} from "../src/BusinessHours/Validation.js"
import { BAD_OPENING_TIMES, badOpeningHours } from "./support/BusinessHoursCases.js"

/** The field errors of a refused input, as `{ "a.b.c": [messages] }` for compact assertions. */
const errorsOf = <A>(result: Either.Either<A, ReadonlyArray<{ path: ReadonlyArray<string>; message: string }>>) => {
  assert.isTrue(Either.isLeft(result), "expected the input to be refused")
  const out: Record<string, Array<string>> = {}
  for (const issue of (result as Either.Left<ReadonlyArray<{ path: ReadonlyArray<string>; message: string }>, A>)
    .left) {
    const key = issue.path.join(".")
    out[key] = [...(out[key] ?? []), issue.message]
  }
  return out
}

const valid = <A>(result: Either.Either<A, unknown>): A => {
  if (Either.isLeft(result)) assert.fail(`expected a valid input, got ${JSON.stringify(result.left)}`)
  return (result as Either.Right<unknown, A>).right
}

const nineToFive = { opens_at: "09:00", closes_at: "17:00" }

describe("validateScheduleBody (PUT business-hours)", () => {
  it("given a zone and some days, stores all seven days (omitted ones closed) under the canonical zone name", () => {
    const result = valid(validateScheduleBody({ timezone: " europe/berlin ", weekly_hours: { mon: nineToFive } }, []))
    assert.strictEqual(result.timeZone, "Europe/Berlin")
    assert.deepStrictEqual(result.weeklyHours, { ...CLOSED_WEEK, mon: nineToFive })
  })

  it("refuses an unknown zone with the wire message", () => {
    assert.deepStrictEqual(errorsOf(validateScheduleBody({ timezone: "Mars/Base", weekly_hours: {} }, [])), {
      timezone: ['Unknown time zone "Mars/Base".']
    })
  })

  it("requires timezone (missing, null, blank) and weekly_hours", () => {
    assert.deepStrictEqual(errorsOf(validateScheduleBody({}, [])), {
      timezone: ["This field is required."],
      weekly_hours: ["This field is required."]
    })
    assert.deepStrictEqual(errorsOf(validateScheduleBody({ timezone: null, weekly_hours: {} }, [])), {
      timezone: ["This field may not be null."]
    })
    assert.deepStrictEqual(errorsOf(validateScheduleBody({ timezone: "  ", weekly_hours: {} }, [])), {
      timezone: ["This field may not be blank."]
    })
  })

  it("accepts a one-character zone name only if it exists (min length 1 is not enough)", () => {
    assert.deepStrictEqual(errorsOf(validateScheduleBody({ timezone: "Z", weekly_hours: {} }, [])), {
      timezone: ['Unknown time zone "Z".']
    })
  })

  it("reports each bad weekday time under its nested path, all at once", () => {
    const errors = errorsOf(
      validateScheduleBody(
        {
          timezone: "Mars/Base",
          weekly_hours: {
            ...badOpeningHours,
            fri: { opens_at: "09:00" },
            sat: "closed",
            holiday: null
          }
        },
        []
      )
    )
    assert.deepStrictEqual(errors, {
      timezone: ['Unknown time zone "Mars/Base".'],
      ...Object.fromEntries(BAD_OPENING_TIMES.map(({ day, message }) => [`weekly_hours.${day}.opens_at`, [message]])),
      "weekly_hours.fri.closes_at": [
        "This field is required when opens_at is set. Set both opens_at and closes_at, or make the day null to close it."
      ],
      "weekly_hours.sat": ["Must be null (closed) or an object with opens_at and closes_at."],
      "weekly_hours.holiday": ['Unknown weekday "holiday". Use one of mon, tue, wed, thu, fri, sat, sun.']
    })
  })

  it("reports a __proto__ key of a JSON body as an unknown weekday rather than dropping it", () => {
    const weekly = JSON.parse('{"__proto__": {"opens_at": "09:00", "closes_at": "17:00"}}') as unknown
    assert.deepStrictEqual(Object.keys(errorsOf(validateScheduleBody({ timezone: "UTC", weekly_hours: weekly }, []))), [
      "weekly_hours.__proto__"
    ])
  })

  it("accepts the edges: 00:00 and 23:59 opening, 24:00 closing, overnight and 24-hour days", () => {
    const result = valid(
      validateScheduleBody(
        {
          timezone: "UTC",
          weekly_hours: {
            mon: { opens_at: "00:00", closes_at: "24:00" },
            tue: { opens_at: "23:59", closes_at: "00:00" },
            wed: { opens_at: "22:00", closes_at: "02:00" },
            thu: { opens_at: "09:00", closes_at: "09:00" },
            fri: null
          }
        },
        []
      )
    )
    assert.deepStrictEqual(result.weeklyHours.wed, { opens_at: "22:00", closes_at: "02:00" })
    assert.strictEqual(result.weeklyHours.fri, null)
  })

  it("refuses a day object without times (null closes a day) and a weekly_hours that is not an object", () => {
    assert.deepStrictEqual(errorsOf(validateScheduleBody({ timezone: "UTC", weekly_hours: { mon: {} } }, [])), {
      "weekly_hours.mon.opens_at": ["This field is required. Use HH:MM, or make the day null to close it."],
      "weekly_hours.mon.closes_at": ["This field is required. Use HH:MM, or make the day null to close it."]
    })
    assert.deepStrictEqual(Object.keys(errorsOf(validateScheduleBody({ timezone: "UTC", weekly_hours: [] }, []))), [
      "weekly_hours"
    ])
  })

  it.prop(
    "accepts every HH:MM pair of valid times, and refuses every hour from 24 (except 24:00 closing) to 99",
    [FastCheck.integer({ min: 0, max: 99 }), FastCheck.integer({ min: 0, max: 99 })],
    ([hours, minutes]) => {
      const time = `${String(hours).padStart(2, "0")}:${String(minutes).padStart(2, "0")}`
      const result = validateScheduleBody(
        { timezone: "UTC", weekly_hours: { mon: { opens_at: "08:00", closes_at: time } } },
        []
      )
      const isTime = (hours < 24 && minutes < 60) || (hours === 24 && minutes === 0)
      assert.strictEqual(Either.isRight(result), isTime, time)
    }
  )
})

const holiday = { date: "2026-12-25", name: "Christmas", repeats_yearly: false, opens_at: null, closes_at: null }

describe("validateExceptionBody", () => {
  it("given only a date, makes an unnamed, non-repeating closed day", () => {
    assert.deepStrictEqual(valid(validateExceptionBody({ date: "2026-12-25" }, undefined)), {
      date: "2026-12-25",
      name: "",
      repeats_yearly: false,
      opens_at: null,
      closes_at: null
    })
  })

  it("accepts HH:MM and HH:MM:SS times and form-style booleans", () => {
    assert.deepStrictEqual(
      valid(
        validateExceptionBody(
          { date: "2024-02-29", name: "Leap", repeats_yearly: "yes", opens_at: "22:00:30", closes_at: "02:00" },
          undefined
        )
      ),
      { date: "2024-02-29", name: "Leap", repeats_yearly: true, opens_at: "22:00:30", closes_at: "02:00" }
    )
  })

  it("requires a real date", () => {
    assert.deepStrictEqual(errorsOf(validateExceptionBody({}, undefined)), { date: ["This field is required."] })
    assert.deepStrictEqual(errorsOf(validateExceptionBody({ date: "2026-02-30" }, undefined)), {
      date: [
        '"2026-02-30" is not a calendar date. Use YYYY-MM-DD with a month from 01 to 12 and a day that exists in that month.'
      ]
    })
    assert.deepStrictEqual(errorsOf(validateExceptionBody({ date: "25/12/2026" }, undefined)), {
      date: ["Date has wrong format. Use YYYY-MM-DD."]
    })
    assert.deepStrictEqual(errorsOf(validateExceptionBody({ date: 20261225 }, undefined)), {
      date: ["Date has wrong format. Use YYYY-MM-DD."]
    })
    assert.deepStrictEqual(errorsOf(validateExceptionBody({ date: "2025-02-29" }, undefined)).date?.length, 1)
  })

  it("limits the name to 64 characters", () => {
    valid(validateExceptionBody({ date: "2026-12-25", name: "x".repeat(64) }, undefined))
    assert.deepStrictEqual(errorsOf(validateExceptionBody({ date: "2026-12-25", name: "x".repeat(65) }, undefined)), {
      name: ["Ensure this field has no more than 64 characters."]
    })
  })

  it("refuses one time without the other, on the missing one", () => {
    assert.deepStrictEqual(errorsOf(validateExceptionBody({ date: "2026-12-24", opens_at: "09:00" }, undefined)), {
      closes_at: [
        "This field is required when opens_at is set. Set both opens_at and closes_at, or leave both null to close the date."
      ]
    })
  })

  it("reports every problem at once, without a second message for a field already refused", () => {
    assert.deepStrictEqual(
      errorsOf(
        validateExceptionBody(
          { date: "2026-13-01", name: "x".repeat(65), repeats_yearly: "maybe", opens_at: 9, closes_at: "24:00" },
          undefined
        )
      ),
      {
        date: [
          '"2026-13-01" is not a calendar date. Use YYYY-MM-DD with a month from 01 to 12 and a day that exists in that month.'
        ],
        name: ["Ensure this field has no more than 64 characters."],
        repeats_yearly: ["Must be a valid boolean (true/false, 1/0 or yes/no)."],
        opens_at: ["Time has wrong format. Use HH:MM or HH:MM:SS, or null."]
      }
    )
  })

  it("merges a PATCH onto the stored exception and checks the result as a whole", () => {
    assert.deepStrictEqual(valid(validateExceptionBody({ name: "Xmas" }, holiday)), { ...holiday, name: "Xmas" })
    // Opening a closed date needs both times.
    assert.deepStrictEqual(Object.keys(errorsOf(validateExceptionBody({ opens_at: "10:00" }, holiday))), ["closes_at"])
    const open = { ...holiday, opens_at: "10:00:00", closes_at: "14:00:00" }
    // Closing an open date by clearing one time only is refused; clearing both closes it.
    assert.deepStrictEqual(Object.keys(errorsOf(validateExceptionBody({ closes_at: null }, open))), ["closes_at"])
    assert.deepStrictEqual(valid(validateExceptionBody({ opens_at: null, closes_at: null }, open)), holiday)
    assert.deepStrictEqual(errorsOf(validateExceptionBody({ date: null }, open)), {
      date: ["This field may not be null."]
    })
  })
})

describe("validateScheduleWith (an exception joining the whole schedule)", () => {
  const schedule = { timeZone: "Europe/Berlin", weeklyHours: { ...CLOSED_WEEK, mon: nineToFive } }
  const stored: Array<StoredException> = [{ id: 1, ...holiday }]

  it("refuses a second exception on the same date, on date", () => {
    assert.deepStrictEqual(errorsOf(validateScheduleWith(schedule, stored, { ...holiday, name: "Again" })), {
      date: ["An exception for this date already exists. Use one exception per date."]
    })
  })

  it("lets an exception keep its own date on PATCH, and lets a yearly and a dated exception share month and day", () => {
    valid(validateScheduleWith(schedule, stored, { ...holiday, name: "Renamed" }, 1))
    valid(validateScheduleWith(schedule, stored, { ...holiday, date: "2024-12-25", repeats_yearly: true }))
  })
})

describe("fieldIssues", () => {
  it("renames the schedule package's paths to wire names", () => {
    assert.deepStrictEqual(
      fieldIssues([{ path: ["exceptions", 0, "repeatsYearly"], code: "invalid_type", message: "" }], {
        context: "exception",
        input: {},
        dropPrefix: 2
      }),
      [{ path: ["repeats_yearly"], message: "Must be a valid boolean (true/false, 1/0 or yes/no)." }]
    )
  })
})
