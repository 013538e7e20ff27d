import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { BAD_OPENING_TIMES, badOpeningHours } from "./support/BusinessHoursCases.js"
import * as Fixtures from "./support/Fixtures.js"
import { assertRefused, del, get, patch, post, put, request, TestApp, TestAppLive } from "./support/TestApp.js"

/**
 * Business hours over HTTP, black-box. The server runs on the real clock, so the schedules here are chosen to
 * make `is_open_now` and `next_open` independent of when the test runs: every day closed, every day open, and
 * far-future exceptions (2099) that open or close one date. (`BusinessHoursClock.test.ts` moves the clock.)
 */

const bh = (org: Fixtures.OrgFixture) => `${org.path}business-hours/`
const exceptions = (org: Fixtures.OrgFixture) => `${bh(org)}exceptions/`

const nineToFive = { opens_at: "09:00", closes_at: "17:00" }
const allDay = { opens_at: "00:00", closes_at: "00:00" }
const everyDay = (hours: unknown) =>
  Object.fromEntries(["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) => [d, hours]))
const CLOSED_WEEK = everyDay(null)

/** The fields of the business hours and of an exception, as answered and documented (sorted). */
const SCHEDULE_FIELDS = ["is_open_now", "next_open", "next_open_display", "timezone", "weekly_hours"]
const EXCEPTION_FIELDS = ["closes_at", "date", "id", "name", "opens_at", "repeats_yearly"]

/** Sends a schedule as the owner (the answer is checked by the caller). */
const putSchedule = (org: Fixtures.OrgFixture, json: unknown) => put(bh(org), { token: org.ownerToken, json })

/** An organization with a saved schedule (Europe/Berlin, weekdays 9–17 unless told otherwise). */
const withSchedule = (weekly_hours: unknown = { mon: nineToFive, tue: nineToFive }, timezone = "Europe/Berlin") =>
  Effect.gen(function* () {
    const org = yield* Fixtures.organization()
    const saved = yield* putSchedule(org, { timezone, weekly_hours })
    assert.strictEqual(saved.status, 200, saved.text)
    return org
  })

const createException = (org: Fixtures.OrgFixture, json: Record<string, unknown>) =>
  post(exceptions(org), { token: org.ownerToken, json })

layer(TestAppLive, { excludeTestServices: true, timeout: "180 seconds" })("business hours", (it) => {
  it.effect("GET before any PUT: no zone, no days, open 24/7, no next opening", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* get(bh(org), { token: org.ownerToken })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers.get("content-type"), "application/json")
      assert.deepStrictEqual(response.body, {
        timezone: null,
        weekly_hours: {},
        is_open_now: true,
        next_open: null,
        next_open_display: ""
      })
    })
  )

  it.effect(
    "PUT saves the schedule: every field of the answer, all seven days, canonical zone; GET shows the same",
    () =>
      Effect.gen(function* () {
        const org = yield* Fixtures.organization()
        const response = yield* putSchedule(org, {
          timezone: "europe/berlin",
          weekly_hours: { mon: nineToFive, fri: { opens_at: "22:00", closes_at: "02:00" }, sun: null },
          is_open_now: false,
          next_open: "2000-01-01T00:00:00.000Z"
        })
        assert.strictEqual(response.status, 200, response.text)
        const body = response.body
        assert.deepStrictEqual(Object.keys(body).sort(), SCHEDULE_FIELDS)
        assert.strictEqual(body.timezone, "Europe/Berlin")
        assert.deepStrictEqual(body.weekly_hours, {
          ...CLOSED_WEEK,
          mon: nineToFive,
          fri: { opens_at: "22:00", closes_at: "02:00" }
        })
        assert.isBoolean(body.is_open_now)
        // Open some hours every week: there is always a next opening, on a Monday 09:00 or a Friday 22:00 Berlin time.
        assert.match(body.next_open, /^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/)
        assert.match(body.next_open_display, /^(Monday|Friday), \w+ \d{1,2}, \d{4} at (9:00|10:00)\s(AM|PM)$/u)
        const read = yield* get(bh(org), { token: org.ownerToken })
        assert.strictEqual(read.status, 200)
        assert.deepStrictEqual(read.body, body)
      })
  )

  it.effect("PUT replaces: days left out of the new schedule are closed, the zone changes", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule({ mon: nineToFive, tue: nineToFive, wed: nineToFive })
      const response = yield* putSchedule(org, {
        timezone: "America/New_York",
        weekly_hours: { sat: { opens_at: "10:00", closes_at: "24:00" } }
      })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.timezone, "America/New_York")
      assert.deepStrictEqual(response.body.weekly_hours, {
        ...CLOSED_WEEK,
        sat: { opens_at: "10:00", closes_at: "24:00" }
      })
      assert.deepStrictEqual(
        (yield* get(bh(org), { token: org.ownerToken })).body.weekly_hours,
        response.body.weekly_hours
      )
    })
  )

  it.effect("every day closed: closed now, no next opening, empty display", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule({})
      const body = (yield* get(bh(org), { token: org.ownerToken })).body
      assert.deepStrictEqual(body, {
        timezone: "Europe/Berlin",
        weekly_hours: CLOSED_WEEK,
        is_open_now: false,
        next_open: null,
        next_open_display: ""
      })
    })
  )

  it.effect("every day closed but one far-future exception: closed now, next_open is that date's opening", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule({})
      assert.strictEqual(
        (yield* createException(org, { date: "2099-01-01", opens_at: "09:00", closes_at: "17:00" })).status,
        201
      )
      const body = (yield* get(bh(org), { token: org.ownerToken })).body
      assert.strictEqual(body.is_open_now, false)
      assert.strictEqual(body.next_open, "2099-01-01T08:00:00.000Z")
      assert.match(body.next_open_display, /^Thursday, January 1, 2099 at 9:00\sAM$/u)
    })
  )

  it.effect("next_open_display follows the organization's working language", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule({})
      yield* createException(org, { date: "2099-01-01", opens_at: "09:00", closes_at: "17:00" })
      const changed = yield* patch(org.path, { token: org.ownerToken, json: { working_language: "de" } })
      assert.strictEqual(changed.status, 200, changed.text)
      const body = (yield* get(bh(org), { token: org.ownerToken })).body
      assert.strictEqual(body.next_open, "2099-01-01T08:00:00.000Z")
      assert.strictEqual(body.next_open_display, "Donnerstag, 1. Januar 2099 um 09:00")
    })
  )

  it.effect("open around the clock: open now, and no next opening (the stretch never ends)", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule(everyDay(allDay))
      const body = (yield* get(bh(org), { token: org.ownerToken })).body
      assert.strictEqual(body.is_open_now, true)
      assert.strictEqual(body.next_open, null)
      assert.strictEqual(body.next_open_display, "")
    })
  )

  it.effect("open around the clock but one closed date next year: open now, next_open the day after it", () =>
    Effect.gen(function* () {
      // June of next year: always in the future, and in summer time whenever the test runs.
      const year = new Date().getUTCFullYear() + 1
      const org = yield* withSchedule(everyDay(allDay))
      const created = yield* createException(org, { date: `${year}-06-01`, name: "Closed" })
      assert.strictEqual(created.status, 201)
      const body = (yield* putSchedule(org, { timezone: "Europe/Berlin", weekly_hours: everyDay(allDay) })).body
      assert.strictEqual(body.is_open_now, true)
      // Midnight after the closed date, Berlin summer time (UTC+2).
      assert.strictEqual(body.next_open, `${year}-06-01T22:00:00.000Z`)
      // Deleting the exception makes it open for ever again (the answer is computed from the whole schedule).
      assert.strictEqual((yield* del(`${exceptions(org)}${created.body.id}/`, { token: org.ownerToken })).status, 204)
      assert.strictEqual((yield* get(bh(org), { token: org.ownerToken })).body.next_open, null)
    })
  )

  it.effect("PUT refuses bad zones and bad weekly times, each under its nested field, all at once", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* putSchedule(org, {
        timezone: "Mars/Base",
        weekly_hours: {
          ...badOpeningHours,
          fri: { opens_at: "09:00", closes_at: null },
          someday: nineToFive
        }
      })
      assertRefused(response, {
        timezone: ['Unknown time zone "Mars/Base".'],
        weekly_hours: {
          ...Object.fromEntries(BAD_OPENING_TIMES.map(({ day, message }) => [day, { opens_at: [message] }])),
          fri: {
            closes_at: [
              "This field is required when opens_at is set. Set both opens_at and closes_at, or make the day null to close it."
            ]
          },
          someday: ['Unknown weekday "someday". Use one of mon, tue, wed, thu, fri, sat, sun.']
        }
      })
      // Nothing was saved.
      assert.strictEqual((yield* get(bh(org), { token: org.ownerToken })).body.timezone, null)
    })
  )

  it.effect("PUT: the single-error examples of the wire conventions, exactly", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const zone = yield* putSchedule(org, { timezone: "Mars/Base", weekly_hours: {} })
      assert.deepStrictEqual([zone.status, zone.body], [400, { timezone: ['Unknown time zone "Mars/Base".'] }])
      const time = yield* putSchedule(org, {
        timezone: "UTC",
        weekly_hours: { mon: { opens_at: "9am", closes_at: "17:00" } }
      })
      assert.deepStrictEqual(
        [time.status, time.body],
        [400, { weekly_hours: { mon: { opens_at: ["Time has wrong format. Use HH:MM."] } } }]
      )
    })
  )

  it.effect("PUT: timezone required with minimum length 1; weekly_hours required and an object", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const cases: ReadonlyArray<readonly [unknown, unknown]> = [
        [{}, { timezone: ["This field is required."], weekly_hours: ["This field is required."] }],
        [{ timezone: "", weekly_hours: {} }, { timezone: ["This field may not be blank."] }],
        [{ timezone: null, weekly_hours: {} }, { timezone: ["This field may not be null."] }],
        [
          { timezone: 7, weekly_hours: {} },
          { timezone: ["Not a valid string. Use an IANA time zone name such as Europe/Berlin or America/New_York."] }
        ],
        [
          { timezone: "UTC", weekly_hours: "9-5" },
          {
            weekly_hours: [
              "Expected an object with keys among mon, tue, wed, thu, fri, sat, sun (each null or {opens_at, closes_at}; an omitted day is closed)."
            ]
          }
        ],
        [{ timezone: "UTC", weekly_hours: null }, { weekly_hours: ["This field may not be null."] }]
      ]
      for (const [json, errors] of cases) {
        const response = yield* putSchedule(org, json)
        assertRefused(response, errors, JSON.stringify(json))
      }
      const shortest = yield* putSchedule(org, { timezone: "Z", weekly_hours: {} })
      assert.deepStrictEqual(shortest.body, { timezone: ['Unknown time zone "Z".'] })
    })
  )

  it.effect("PUT as a form: weekly_hours as a JSON string, or as nested fields", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const asJson = yield* put(bh(org), {
        token: org.ownerToken,
        form: { timezone: "Asia/Kathmandu", weekly_hours: JSON.stringify({ mon: nineToFive }) }
      })
      assert.strictEqual(asJson.status, 200, asJson.text)
      assert.deepStrictEqual(asJson.body.weekly_hours, { ...CLOSED_WEEK, mon: nineToFive })
      const nested = yield* put(bh(org), {
        token: org.ownerToken,
        multipart: {
          timezone: "Asia/Kathmandu",
          "weekly_hours.tue.opens_at": "08:30",
          "weekly_hours.tue.closes_at": "12:00",
          "weekly_hours[wed][opens_at]": "13:00",
          "weekly_hours[wed][closes_at]": "18:00",
          "weekly_hours.thu": ""
        }
      })
      assert.strictEqual(nested.status, 200, nested.text)
      assert.deepStrictEqual(nested.body.weekly_hours, {
        ...CLOSED_WEEK,
        tue: { opens_at: "08:30", closes_at: "12:00" },
        wed: { opens_at: "13:00", closes_at: "18:00" }
      })
      const broken = yield* put(bh(org), { token: org.ownerToken, form: { timezone: "UTC", weekly_hours: "{mon" } })
      assert.strictEqual(broken.status, 400)
      assert.deepStrictEqual(Object.keys(broken.body), ["weekly_hours"])
      const badField = yield* put(bh(org), {
        token: org.ownerToken,
        form: { timezone: "UTC", "weekly_hours.mon.opens_at": "25:00", "weekly_hours.mon.closes_at": "17:00" }
      })
      assert.strictEqual(badField.status, 400)
      assert.deepStrictEqual(Object.keys(badField.body.weekly_hours.mon), ["opens_at"])
    })
  )

  it.effect("exceptions are refused with a clear 400 before a schedule is saved", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* createException(org, { date: "2026-12-25" })
      assertRefused(response, {
        non_field_errors: [
          "Business hours must be saved before exceptions are added. Save them first with PUT /organizations/{organization_id}/business-hours/."
        ]
      })
      const list = yield* get(exceptions(org), { token: org.ownerToken })
      assert.deepStrictEqual(list.body, { count: 0, next: null, previous: null, results: [] })
    })
  )

  it.effect("POST an exception: 201, Location, every field; GET detail shows it", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      const { baseUrl } = yield* TestApp
      const response = yield* createException(org, {
        date: "2026-12-24",
        name: "Christmas Eve",
        repeats_yearly: true,
        opens_at: "09:00",
        closes_at: "12:30:15",
        id: 999
      })
      assert.strictEqual(response.status, 201, response.text)
      const body = response.body
      assert.isNumber(body.id)
      assert.notStrictEqual(body.id, 999)
      assert.deepStrictEqual(body, {
        id: body.id,
        date: "2026-12-24",
        name: "Christmas Eve",
        repeats_yearly: true,
        opens_at: "09:00:00",
        closes_at: "12:30:15"
      })
      assert.strictEqual(response.headers.get("location"), `${baseUrl}${exceptions(org)}${body.id}/`)
      const read = yield* get(`${exceptions(org)}${body.id}/`, { token: org.ownerToken })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, body)
      const minimal = yield* createException(org, { date: "2027-01-01" })
      assert.deepStrictEqual(minimal.body, {
        id: minimal.body.id,
        date: "2027-01-01",
        name: "",
        repeats_yearly: false,
        opens_at: null,
        closes_at: null
      })
    })
  )

  it.effect("exception validation at every edge", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      const ok = (json: Record<string, unknown>) =>
        Effect.map(createException(org, json), (r) =>
          assert.strictEqual(r.status, 201, `${JSON.stringify(json)} ${r.text}`)
        )
      const refused = (json: Record<string, unknown>, errors: unknown) =>
        Effect.map(createException(org, json), (r) => {
          assertRefused(r, errors, JSON.stringify(json))
        })
      yield* ok({ date: "2030-01-01", name: "n".repeat(64) })
      yield* refused(
        { date: "2030-01-02", name: "n".repeat(65) },
        {
          name: ["Ensure this field has no more than 64 characters."]
        }
      )
      yield* ok({ date: "2030-01-03", name: "" })
      yield* refused({ name: "No date" }, { date: ["This field is required."] })
      yield* refused(
        { date: "2026-02-30" },
        {
          date: [
            '"2026-02-30" is not a calendar date. Use YYYY-MM-DD with a month from 01 to 12 and a day that exists in that month.'
          ]
        }
      )
      yield* refused({ date: "2026-2-3" }, { date: ["Date has wrong format. Use YYYY-MM-DD."] })
      yield* refused({ date: "tomorrow" }, { date: ["Date has wrong format. Use YYYY-MM-DD."] })
      yield* ok({ date: "2028-02-29" })
      yield* refused(
        { date: "2030-01-04", opens_at: "25:00", closes_at: "10:00" },
        {
          opens_at: [
            '"25:00" is not a time of day. Use HH:MM or HH:MM:SS from 00:00 to 23:59:59 (24:00 only as closes_at).'
          ]
        }
      )
      yield* refused(
        { date: "2030-01-04", opens_at: "09:5", closes_at: "10:00" },
        {
          opens_at: ["Time has wrong format. Use HH:MM or HH:MM:SS."]
        }
      )
      yield* refused(
        { date: "2030-01-04", opens_at: "24:00", closes_at: "10:00" },
        {
          opens_at: ["24:00 is accepted as closes_at only. Use 00:00 to 23:59 for opens_at."]
        }
      )
      yield* refused(
        { date: "2030-01-04", opens_at: "09:00", closes_at: null },
        {
          closes_at: [
            "This field is required when opens_at is set. Set both opens_at and closes_at, or leave both null to close the date."
          ]
        }
      )
      yield* refused(
        { date: "2030-01-04", closes_at: "10:00" },
        {
          opens_at: [
            "This field is required when closes_at is set. Set both opens_at and closes_at, or leave both null to close the date."
          ]
        }
      )
      yield* refused(
        { date: "2030-01-04", repeats_yearly: "sometimes" },
        {
          repeats_yearly: ["Must be a valid boolean (true/false, 1/0 or yes/no)."]
        }
      )
      // Edges that are accepted: seconds, 24:00 closing, overnight.
      yield* ok({ date: "2030-01-05", opens_at: "23:59:59", closes_at: "24:00" })
      yield* ok({ date: "2030-01-06", opens_at: "22:00", closes_at: "02:00" })
    })
  )

  it.effect("one exception per date; a repeating and a dated exception may share month and day", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      assert.strictEqual((yield* createException(org, { date: "2026-12-25", name: "Christmas" })).status, 201)
      const again = yield* createException(org, { date: "2026-12-25", name: "Again", repeats_yearly: true })
      assertRefused(again, {
        date: ["An exception for this date already exists. Use one exception per date."]
      })
      const yearly = yield* createException(org, { date: "2020-12-25", name: "Every Christmas", repeats_yearly: true })
      assert.strictEqual(yearly.status, 201)
    })
  )

  it.effect("PATCH changes the given fields and re-validates the merged exception", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      const created = (yield* createException(org, { date: "2026-12-31", name: "NYE" })).body
      const url = `${exceptions(org)}${created.id}/`
      const renamed = yield* patch(url, { token: org.ownerToken, json: { name: "New Year's Eve" } })
      assert.strictEqual(renamed.status, 200)
      assert.deepStrictEqual(renamed.body, { ...created, name: "New Year's Eve" })
      const half = yield* patch(url, { token: org.ownerToken, json: { opens_at: "10:00" } })
      assert.strictEqual(half.status, 400)
      assert.deepStrictEqual(Object.keys(half.body), ["closes_at"])
      const opened = yield* patch(url, { token: org.ownerToken, json: { opens_at: "10:00", closes_at: "14:00" } })
      assert.deepStrictEqual(opened.body, {
        ...created,
        name: "New Year's Eve",
        opens_at: "10:00:00",
        closes_at: "14:00:00"
      })
      const closedAgain = yield* patch(url, { token: org.ownerToken, json: { closes_at: null } })
      assert.strictEqual(closedAgain.status, 400)
      const moved = yield* patch(url, {
        token: org.ownerToken,
        form: { date: "2027-12-31", opens_at: "", closes_at: "" }
      })
      assert.strictEqual(moved.status, 200, moved.text)
      assert.deepStrictEqual(moved.body, { ...created, name: "New Year's Eve", date: "2027-12-31" })
      // Onto another exception's date: refused; an empty PATCH changes nothing.
      yield* createException(org, { date: "2028-01-01" })
      const clash = yield* patch(url, { token: org.ownerToken, json: { date: "2028-01-01" } })
      assert.deepStrictEqual([clash.status, Object.keys(clash.body)], [400, ["date"]])
      const unchanged = yield* patch(url, { token: org.ownerToken, json: {} })
      assert.deepStrictEqual(unchanged.body, moved.body)
      const invalid = yield* patch(url, { token: org.ownerToken, json: { date: "2027-02-29", name: "x".repeat(65) } })
      assert.deepStrictEqual(Object.keys(invalid.body).sort(), ["date", "name"])
    })
  )

  it.effect("DELETE answers 204 with no body; the exception is gone", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      const created = (yield* createException(org, { date: "2026-05-01" })).body
      const url = `${exceptions(org)}${created.id}/`
      const response = yield* del(url, { token: org.ownerToken })
      assert.strictEqual(response.status, 204)
      assert.strictEqual(response.text, "")
      assert.strictEqual((yield* get(url, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* del(url, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* patch(url, { token: org.ownerToken, json: { name: "x" } })).status, 404)
    })
  )

  it.effect("the list is a paginated envelope ordered by date, then id; ordering and paging parameters work", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      for (const date of ["2026-12-25", "2026-01-01", "2027-06-15", "2026-05-01"])
        yield* createException(org, { date, name: date })
      const list = yield* get(exceptions(org), { token: org.ownerToken })
      assert.strictEqual(list.status, 200)
      assert.strictEqual(list.body.count, 4)
      assert.deepStrictEqual(
        list.body.results.map((e: { date: string }) => e.date),
        ["2026-01-01", "2026-05-01", "2026-12-25", "2027-06-15"]
      )
      assert.deepStrictEqual(Object.keys(list.body.results[0]).sort(), EXCEPTION_FIELDS)
      const { baseUrl } = yield* TestApp
      const first = yield* get(`${exceptions(org)}?page_size=3&ordering=-date`, { token: org.ownerToken })
      assert.deepStrictEqual(
        first.body.results.map((e: { date: string }) => e.date),
        ["2027-06-15", "2026-12-25", "2026-05-01"]
      )
      assert.strictEqual(first.body.next, `${baseUrl}${exceptions(org)}?page_size=3&ordering=-date&page=2`)
      assert.strictEqual(first.body.previous, null)
      const second = yield* get(first.body.next, { token: org.ownerToken })
      assert.deepStrictEqual(
        second.body.results.map((e: { date: string }) => e.date),
        ["2026-01-01"]
      )
      assert.strictEqual((yield* get(`${exceptions(org)}?page=3&page_size=3`, { token: org.ownerToken })).status, 404)
      const badOrdering = yield* get(`${exceptions(org)}?ordering=opens_at`, { token: org.ownerToken })
      assert.deepStrictEqual([badOrdering.status, Object.keys(badOrdering.body)], [400, ["ordering"]])
    })
  )

  it.effect("roles: members read; owners, admins and integration tokens write; members get 403 on writes", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      const created = (yield* createException(org, { date: "2026-12-25" })).body
      const url = `${exceptions(org)}${created.id}/`
      const { member, admin, integration } = yield* Fixtures.staff(org)
      const schedule = { timezone: "UTC", weekly_hours: { mon: nineToFive } }

      assert.strictEqual((yield* get(bh(org), { token: member.token })).status, 200)
      assert.strictEqual((yield* get(exceptions(org), { token: member.token })).status, 200)
      assert.strictEqual((yield* get(url, { token: member.token })).status, 200)
      const denied = { detail: "You do not have permission to perform this action." }
      for (const response of [
        yield* put(bh(org), { token: member.token, json: schedule }),
        yield* post(exceptions(org), { token: member.token, json: { date: "2026-12-26" } }),
        yield* patch(url, { token: member.token, json: { name: "x" } }),
        yield* del(url, { token: member.token })
      ]) {
        assert.strictEqual(response.status, 403)
        assert.deepStrictEqual(response.body, denied)
      }
      for (const token of [admin.token, integration]) {
        assert.strictEqual((yield* put(bh(org), { token, json: schedule })).status, 200)
        const made = yield* post(exceptions(org), { token, json: { date: "2026-12-26" } })
        assert.strictEqual(made.status, 201)
        assert.strictEqual(
          (yield* patch(`${exceptions(org)}${made.body.id}/`, { token, json: { name: "x" } })).status,
          200
        )
        assert.strictEqual((yield* del(`${exceptions(org)}${made.body.id}/`, { token })).status, 204)
      }
      // Unauthenticated: 401.
      assert.strictEqual((yield* get(bh(org))).status, 401)
    })
  )

  it.effect("another organization's business hours and exceptions are 404", () =>
    Effect.gen(function* () {
      const orgA = yield* withSchedule()
      const orgB = yield* withSchedule()
      const created = (yield* createException(orgA, { date: "2026-12-25" })).body
      const notFound = { detail: "Not found." }
      for (const response of [
        yield* get(bh(orgA), { token: orgB.ownerToken }),
        yield* put(bh(orgA), { token: orgB.ownerToken, json: { timezone: "UTC", weekly_hours: {} } }),
        yield* get(exceptions(orgA), { token: orgB.ownerToken }),
        yield* get(`${exceptions(orgB)}${created.id}/`, { token: orgB.ownerToken }),
        yield* patch(`${exceptions(orgB)}${created.id}/`, { token: orgB.ownerToken, json: { name: "x" } }),
        yield* del(`${exceptions(orgB)}${created.id}/`, { token: orgB.ownerToken }),
        yield* get(`${exceptions(orgA)}abc/`, { token: orgA.ownerToken }),
        yield* get(`${exceptions(orgA)}99999999999999999999/`, { token: orgA.ownerToken }),
        yield* get(`${exceptions(orgA)}0/`, { token: orgA.ownerToken })
      ]) {
        assert.strictEqual(response.status, 404)
        assert.deepStrictEqual(response.body, notFound)
      }
      // Still there for its own organization.
      assert.strictEqual((yield* get(`${exceptions(orgA)}${created.id}/`, { token: orgA.ownerToken })).status, 200)
    })
  )

  it.effect("form and multipart exception bodies: strings are coerced, an empty time is null", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      const form = yield* post(exceptions(org), {
        token: org.ownerToken,
        form: { date: "2026-07-04", name: "Fourth", repeats_yearly: "yes", opens_at: "", closes_at: "" }
      })
      assert.strictEqual(form.status, 201, form.text)
      assert.deepStrictEqual(form.body, {
        id: form.body.id,
        date: "2026-07-04",
        name: "Fourth",
        repeats_yearly: true,
        opens_at: null,
        closes_at: null
      })
      const multipart = yield* post(exceptions(org), {
        token: org.ownerToken,
        multipart: { date: "2026-07-05", repeats_yearly: "0", opens_at: "08:00", closes_at: "11:00" }
      })
      assert.strictEqual(multipart.status, 201, multipart.text)
      assert.deepStrictEqual(
        [multipart.body.opens_at, multipart.body.closes_at, multipart.body.repeats_yearly],
        ["08:00:00", "11:00:00", false]
      )
      const bad = yield* post(exceptions(org), { token: org.ownerToken, form: { date: "2026-07-06", opens_at: "8" } })
      assert.strictEqual(bad.status, 400)
    })
  )

  it.effect("bad input never gets a 500", () =>
    Effect.gen(function* () {
      const org = yield* withSchedule()
      const created = (yield* createException(org, { date: "2026-12-25" })).body
      const url = `${exceptions(org)}${created.id}/`
      const bodies: ReadonlyArray<unknown> = [
        [],
        "text",
        42,
        null,
        { timezone: ["UTC"], weekly_hours: { mon: [] } },
        { timezone: { a: 1 }, weekly_hours: { mon: { opens_at: 9, closes_at: true } } },
        { timezone: "UTC", weekly_hours: { mon: { opens_at: "\u0000", closes_at: "17:00" }, __proto__: null } },
        { timezone: "+05:00", weekly_hours: {} },
        { timezone: "x".repeat(10_000), weekly_hours: {} },
        { date: ["2026-01-01"], name: { a: 1 }, repeats_yearly: null, opens_at: [], closes_at: {} },
        { date: "9999-12-31", opens_at: "23:59:59", closes_at: "00:00:00" },
        { date: "0000-01-01" },
        { date: "2026-12-25T00:00:00Z" }
      ]
      for (const json of bodies) {
        for (const response of [
          yield* putSchedule(org, json),
          yield* post(exceptions(org), { token: org.ownerToken, json }),
          yield* patch(url, { token: org.ownerToken, json })
        ]) {
          assert.isBelow(response.status, 500, `${JSON.stringify(json)} → ${response.text}`)
          assert.strictEqual(response.headers.get("content-type"), "application/json")
        }
      }
      const malformed = yield* request("PUT", bh(org), {
        token: org.ownerToken,
        body: "{",
        contentType: "application/json"
      })
      assert.strictEqual(malformed.status, 400)
      assert.match(malformed.body.detail, /^JSON parse error - /)
      const plain = yield* request("POST", exceptions(org), {
        token: org.ownerToken,
        body: "x",
        contentType: "text/plain"
      })
      assert.strictEqual(plain.status, 415)
      // The schedule still works after all that.
      assert.strictEqual((yield* get(bh(org), { token: org.ownerToken })).status, 200)
    })
  )

  it.effect("paths without the trailing slash: GET redirects, writes are 404", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const redirect = yield* get(bh(org).slice(0, -1), { token: org.ownerToken })
      assert.strictEqual(redirect.status, 301)
      const write = yield* put(bh(org).slice(0, -1), { token: org.ownerToken, json: {} })
      assert.strictEqual(write.status, 404)
    })
  )

  it.effect("OpenAPI documents every business-hours endpoint with its statuses and schemas", () =>
    Effect.gen(function* () {
      const spec = (yield* get("/openapi.json")).body
      const base = "/organizations/{organization_id}/business-hours/"
      const item = `${base}exceptions/{pk}/`
      assert.deepStrictEqual(Object.keys(spec.paths[base]).sort(), ["get", "put"])
      assert.deepStrictEqual(Object.keys(spec.paths[`${base}exceptions/`]).sort(), ["get", "post"])
      assert.deepStrictEqual(Object.keys(spec.paths[item]).sort(), ["delete", "get", "patch"])
      assert.property(spec.paths[`${base}exceptions/`].post.responses, "201")
      assert.property(spec.paths[item].delete.responses, "204")
      assert.property(spec.paths[item].patch.responses, "403")
      const put = spec.paths[base].put
      for (const type of ["application/json", "application/x-www-form-urlencoded", "multipart/form-data"])
        assert.property(put.requestBody.content, type)
      const schemas = spec.components.schemas
      assert.deepStrictEqual(Object.keys(schemas.BusinessHours.properties).sort(), SCHEDULE_FIELDS)
      assert.deepStrictEqual(Object.keys(schemas.BusinessHoursException.properties).sort(), EXCEPTION_FIELDS)
      assert.deepStrictEqual(schemas.BusinessHoursException.required.sort(), EXCEPTION_FIELDS)
      assert.deepStrictEqual(schemas.BusinessHoursExceptionCreate.required, ["date"])
      const listParams = spec.paths[`${base}exceptions/`].get.parameters.map((p: { name: string }) => p.name).sort()
      assert.deepStrictEqual(listParams, ["ordering", "organization_id", "page", "page_size"])
    })
  )
})
