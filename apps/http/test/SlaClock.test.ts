import { OrganizationId } from "@helpdesk/domain"
import { isOpenAt, type Schedule } from "@helpdesk/schedule"
import { assert, describe, it } from "vitest"
import { CLOSED_WEEK, compileStored, type StoredException, type WeeklyHours } from "../src/BusinessHours/Validation.js"
import { type ClockPolicy, dueAfter, dueTimes, type SlaFacts } from "../src/Sla/SlaClock.js"

/*
 * SLA due times against a brute-force minute count: step minute by minute from the start, skip minutes inside a
 * pause, count the minutes at which the schedule is open (`isOpenAt`, itself checked against a Temporal reference
 * in the schedule package), and answer the end of the minute that spends the budget. Every opening, closing, offset
 * change and pause below is on a whole minute, where that count is exact.
 */

const MINUTE = 60_000

const bruteForceDue = (
  schedule: Schedule,
  start: number,
  minutes: number,
  pauses: ReadonlyArray<readonly [number, number]> = []
): number => {
  let counted = 0
  for (let m = start; ; m += MINUTE) {
    if (pauses.some(([a, b]) => m >= a && m < b)) continue
    if (isOpenAt(schedule, new Date(m))) counted++
    if (counted === minutes) return m + MINUTE
    if (m - start > 400 * 24 * 60 * MINUTE) throw new Error("no due instant within 400 days")
  }
}

const day = (opens: string, closes: string) => ({ opens_at: opens, closes_at: closes })
const week = (hours: Partial<WeeklyHours>): WeeklyHours => ({ ...CLOSED_WEEK, ...hours })
const nineToFive = day("09:00", "17:00")
const weekdays = week({ mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive })

const at = (iso: string) => Date.parse(iso)

const policy: ClockPolicy = {
  id: 1,
  firstReplyMinutes: null,
  nextReplyMinutes: null,
  resolutionMinutes: null,
  businessHours: true,
  pauseWhenWaitingOnCustomer: true,
  pauseWhenSnoozed: true
}

const facts = (createdAt: number, more: Partial<SlaFacts> = {}): SlaFacts => ({
  ticketId: 1,
  organizationId: OrganizationId.make("1"),
  createdAt,
  firstReplyAt: null,
  awaitingReplySince: null,
  priority: "not_set",
  inboxId: 1,
  tagIds: [],
  pauses: [],
  breaches: [],
  ...more
})

describe("SLA due times equal a brute-force minute count", () => {
  it("across the spring DST change (Europe/Berlin, 29 March 2026: 02:00 → 03:00), range through the gap", () => {
    // Open 01:00–05:00 every day: the night of the change has three hours, not four.
    const nights = compileStored(
      "Europe/Berlin",
      week(
        Object.fromEntries(
          ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) => [d, day("01:00", "05:00")])
        ) as Partial<WeeklyHours>
      ),
      []
    )
    const start = at("2026-03-27T12:00:00Z")
    for (const minutes of [60, 240, 300, 479, 480, 481, 720, 1000]) {
      const due = dueTimes(facts(start), { ...policy, resolutionMinutes: minutes }, nights).resolution
      assert.strictEqual(due, bruteForceDue(nights, start, minutes), `${minutes} minutes`)
    }
  })

  it("across the autumn DST change (America/New_York, 1 November 2026), weekdays 9–17", () => {
    const schedule = compileStored("America/New_York", weekdays, [])
    const start = at("2026-10-29T18:30:00Z")
    for (const minutes of [1, 30, 480, 960, 1500, 2400]) {
      const due = dueTimes(facts(start), { ...policy, firstReplyMinutes: minutes }, schedule).firstReply
      assert.strictEqual(due, bruteForceDue(schedule, start, minutes), `${minutes} minutes`)
    }
  })

  it("over an overnight range (22:00–06:00 Tuesday to Saturday, Asia/Tokyo)", () => {
    const night = day("22:00", "06:00")
    const schedule = compileStored(
      "Asia/Tokyo",
      week({ tue: night, wed: night, thu: night, fri: night, sat: night }),
      []
    )
    const start = at("2026-06-01T00:00:00Z")
    for (const minutes of [10, 480, 481, 1200, 2500]) {
      const due = dueTimes(facts(start), { ...policy, resolutionMinutes: minutes }, schedule).resolution
      assert.strictEqual(due, bruteForceDue(schedule, start, minutes), `${minutes} minutes`)
    }
  })

  it("over a yearly holiday (25 December, repeating, saved in 2020) with a short day before it", () => {
    const exceptions: ReadonlyArray<StoredException> = [
      { id: 1, date: "2020-12-25", name: "Christmas", repeats_yearly: true, opens_at: null, closes_at: null },
      { id: 2, date: "2026-12-24", name: "Eve", repeats_yearly: false, opens_at: "09:00:00", closes_at: "12:00:00" }
    ]
    const schedule = compileStored("Europe/London", weekdays, exceptions)
    const start = at("2026-12-23T15:00:00Z")
    for (const minutes of [60, 120, 300, 301, 600, 900]) {
      const due = dueTimes(facts(start), { ...policy, resolutionMinutes: minutes }, schedule).resolution
      assert.strictEqual(due, bruteForceDue(schedule, start, minutes), `${minutes} minutes`)
    }
  })

  it("with pauses (snoozed, waiting on the customer) taken out of the running time", () => {
    const schedule = compileStored("Europe/Berlin", weekdays, [])
    const start = at("2026-03-25T08:00:00Z")
    const snoozed = [at("2026-03-25T10:00:00Z"), at("2026-03-26T09:30:00Z")] as const
    const waiting = [at("2026-03-26T12:00:00Z"), at("2026-03-26T13:15:00Z")] as const
    const f = facts(start, {
      pauses: [
        { kind: "snoozed", from: snoozed[0], to: snoozed[1] },
        { kind: "customer", from: waiting[0], to: waiting[1] }
      ]
    })
    for (const minutes of [60, 120, 121, 600, 2000]) {
      const due = dueTimes(f, { ...policy, resolutionMinutes: minutes }, schedule).resolution
      assert.strictEqual(due, bruteForceDue(schedule, start, minutes, [snoozed, waiting]), `${minutes} minutes`)
    }
    // A policy that does not pause while snoozed counts that time.
    const counted = dueTimes(f, { ...policy, resolutionMinutes: 600, pauseWhenSnoozed: false }, schedule).resolution
    assert.strictEqual(counted, bruteForceDue(schedule, start, 600, [waiting]))
  })

  it("calendar minutes ignore the schedule; an open pause stops the clock (no due time)", () => {
    const schedule = compileStored("Europe/Berlin", weekdays, [])
    const start = at("2026-03-28T10:00:00Z")
    const calendar = { ...policy, businessHours: false, resolutionMinutes: 90 }
    assert.strictEqual(dueTimes(facts(start), calendar, schedule).resolution, start + 90 * MINUTE)
    const paused = facts(start, { pauses: [{ kind: "snoozed", from: start + 30 * MINUTE, to: null }] })
    assert.strictEqual(dueTimes(paused, calendar, schedule).resolution, null)
    // Spent before the pause: the due instant stays (a breach stays a breach).
    const late = facts(start, { pauses: [{ kind: "snoozed", from: start + 120 * MINUTE, to: null }] })
    assert.strictEqual(dueTimes(late, calendar, schedule).resolution, start + 90 * MINUTE)
    assert.strictEqual(dueAfter(start, 0, [], null), start)
  })
})
