import { assert, layer } from "@effect/vitest"
import { isOpenAt } from "@helpdesk/schedule"
import { Effect, Layer, TestClock } from "effect"
import { BusinessHours } from "../src/BusinessHours/BusinessHours.js"
import { BusinessHoursExceptions } from "../src/BusinessHours/BusinessHoursExceptions.js"
import { CLOSED_WEEK } from "../src/BusinessHours/Validation.js"
import { ServicesLive } from "../src/Services.js"
import * as Fixtures from "./support/Fixtures.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

/**
 * The `BusinessHours` service with time under the test's control: "now" is Effect's `Clock`, so `TestClock`
 * decides `is_open_now` and `next_open`. Also: `compiledFor` as other features use it, and its cache never
 * answering from a schedule that another replica has changed.
 */

const nineToFive = { opens_at: "09:00", closes_at: "17:00" }
const weekdays = { ...CLOSED_WEEK, mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive }

const Services = Layer.mergeAll(BusinessHours.Default, BusinessHoursExceptions.Default, ServicesLive).pipe(
  Layer.provideMerge(TestDatabaseLive)
)

const at = (iso: string) => TestClock.setTime(new Date(iso).getTime())

/** An organization with Europe/Berlin weekdays 09:00–17:00. */
const berlinOffice = Effect.gen(function* () {
  const org = yield* Fixtures.organization()
  yield* (yield* BusinessHours).replace(org.organizationId, { timeZone: "Europe/Berlin", weeklyHours: weekdays })
  return org
})

layer(Services, { timeout: "180 seconds" })("BusinessHours service on the test clock", (it) => {
  it.effect("given weekdays 9–17 in Berlin, when it is Monday 09:30, then open and next opening Tuesday 09:00", () =>
    Effect.gen(function* () {
      const org = yield* berlinOffice
      const hours = yield* BusinessHours
      yield* at("2024-06-03T07:30:00Z")
      const monday = yield* hours.view(org.organizationId)
      assert.strictEqual(monday.is_open_now, true)
      assert.deepStrictEqual(monday.next_open, new Date("2024-06-04T07:00:00Z"))
      assert.match(monday.next_open_display, /^Tuesday, June 4, 2024 at 9:00\sAM$/u)
      // The closing instant is closed (half-open intervals); one millisecond before is open.
      yield* at("2024-06-03T14:59:59.999Z")
      assert.strictEqual((yield* hours.view(org.organizationId)).is_open_now, true)
      yield* at("2024-06-03T15:00:00Z")
      assert.strictEqual((yield* hours.view(org.organizationId)).is_open_now, false)
    })
  )

  it.effect("given the weekend, then closed and the next opening is Monday 09:00", () =>
    Effect.gen(function* () {
      const org = yield* berlinOffice
      yield* at("2024-06-01T12:00:00Z")
      const saturday = yield* (yield* BusinessHours).view(org.organizationId)
      assert.strictEqual(saturday.is_open_now, false)
      assert.deepStrictEqual(saturday.next_open, new Date("2024-06-03T07:00:00Z"))
    })
  )

  it.effect("exceptions count: a closed Monday moves the next opening to Tuesday", () =>
    Effect.gen(function* () {
      const org = yield* berlinOffice
      const created = yield* (yield* BusinessHoursExceptions).create(org.organizationId, {
        date: "2024-06-03",
        name: "Whit Monday"
      })
      yield* at("2024-06-03T08:00:00Z")
      const status = yield* (yield* BusinessHours).view(org.organizationId)
      assert.strictEqual(status.is_open_now, false)
      assert.deepStrictEqual(status.next_open, new Date("2024-06-04T07:00:00Z"))
      yield* (yield* BusinessHoursExceptions).remove(org.organizationId, created.id)
      assert.strictEqual((yield* (yield* BusinessHours).view(org.organizationId)).is_open_now, true)
    })
  )

  it.effect("a dated exception wins over a repeating one on its date; the repeating one holds in other years", () =>
    Effect.gen(function* () {
      const org = yield* berlinOffice
      const exceptions = yield* BusinessHoursExceptions
      const hours = yield* BusinessHours
      yield* exceptions.create(org.organizationId, { date: "2020-12-25", name: "Christmas", repeats_yearly: true })
      yield* exceptions.create(org.organizationId, {
        date: "2024-12-25",
        name: "Christmas morning",
        opens_at: "10:00",
        closes_at: "12:00"
      })
      // Wednesday 2024-12-25, 10:30 CET: the dated exception opens it.
      yield* at("2024-12-25T09:30:00Z")
      assert.strictEqual((yield* hours.view(org.organizationId)).is_open_now, true)
      // Thursday 2025-12-25, 10:30 CET: the repeating exception closes it.
      yield* at("2025-12-25T09:30:00Z")
      const christmas = yield* hours.view(org.organizationId)
      assert.strictEqual(christmas.is_open_now, false)
      assert.deepStrictEqual(christmas.next_open, new Date("2025-12-26T08:00:00Z"))
    })
  )

  it.effect("with no schedule saved: open 24/7, ALWAYS_OPEN, no next opening", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      yield* at("2024-06-01T12:00:00Z")
      const view = yield* (yield* BusinessHours).view(org.organizationId)
      assert.deepStrictEqual(view, {
        timezone: null,
        weekly_hours: {},
        is_open_now: true,
        next_open: null,
        next_open_display: ""
      })
      const compiled = yield* (yield* BusinessHours).compiledFor(org.organizationId)
      assert.strictEqual(compiled.timeZone, null)
      assert.strictEqual(compiled.workingLanguage, "en")
    })
  )

  it.effect("compiledFor never answers from a schedule another replica has changed", () =>
    Effect.gen(function* () {
      const org = yield* berlinOffice
      // Two replicas: two instances of the service (two caches) on the same database.
      const replicaA = yield* Effect.provide(BusinessHours, BusinessHours.Default)
      const replicaB = yield* Effect.provide(BusinessHours, BusinessHours.Default)
      const exceptionsB = yield* Effect.provide(BusinessHoursExceptions, BusinessHoursExceptions.Default)
      const mondayMorning = new Date("2024-06-03T07:30:00Z")
      assert.isTrue(isOpenAt((yield* replicaA.compiledFor(org.organizationId)).schedule, mondayMorning))
      // B adds an exception: A sees it on its next call.
      yield* exceptionsB.create(org.organizationId, { date: "2024-06-03" })
      assert.isFalse(isOpenAt((yield* replicaA.compiledFor(org.organizationId)).schedule, mondayMorning))
      // B replaces the schedule: A sees the new zone.
      yield* replicaB.replace(org.organizationId, { timeZone: "Asia/Tokyo", weeklyHours: weekdays })
      const seenByA = yield* replicaA.compiledFor(org.organizationId)
      assert.strictEqual(seenByA.timeZone, "Asia/Tokyo")
      assert.deepStrictEqual(seenByA.weeklyHours?.sat, null)
    })
  )
})
