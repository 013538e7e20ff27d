import {
  PresetFilterCriteria as CriteriaSchema,
  earliestSlaDue,
  matches,
  type PresetFilterCriteria,
  projectTicketView,
  TicketAssigned,
  TicketClosed,
  type TicketEvent,
  TicketSnoozed,
  type TicketView
} from "@helpdesk/domain"
import { associate, bob, minute, ticketCreated } from "@helpdesk/domain/testing"
import { DateTime, FastCheck, Schema } from "effect"
import { describe, expect, it } from "vitest"

const view = (...events: ReadonlyArray<TicketEvent>): TicketView => projectTicketView(events)!

const billing = { id: 1, name: "Billing", color: "" }
const vip = { id: 2, name: "vip", color: "" }
const base = view(ticketCreated({ tags: [billing, vip], priority: "high" }))
const now = minute(30)
const match = (criteria: PresetFilterCriteria, v: TicketView = base) => matches(criteria, v, now)

describe("saved-filter matching", () => {
  it("empty criteria match every ticket; empty lists constrain nothing", () => {
    expect(match({})).toBe(true)
    expect(match({ statuses: [], tags_include: [], is_snoozed: null })).toBe(true)
  })

  it("tags_include needs at least one of the tags, by name, case-insensitively", () => {
    expect(match({ tags_include: ["billing"] })).toBe(true)
    expect(match({ tags_include: ["refund", "VIP"] })).toBe(true)
    expect(match({ tags_include: ["refund"] })).toBe(false)
  })

  it("tags_exclude refuses a ticket with any of the tags", () => {
    expect(match({ tags_exclude: ["refund"] })).toBe(true)
    expect(match({ tags_exclude: ["refund", "BILLING"] })).toBe(false)
  })

  it("assignee_ids matches the assignee; an unassigned ticket never matches a non-empty list", () => {
    expect(match({ assignee_ids: [2] })).toBe(false)
    const assigned = view(ticketCreated(), new TicketAssigned({ at: minute(1), by: associate, assignee: bob }))
    expect(match({ assignee_ids: [1, 2] }, assigned)).toBe(true)
    expect(match({ assignee_ids: [1] }, assigned)).toBe(false)
  })

  it("statuses, waiting_on, priorities, classifications", () => {
    expect(match({ statuses: ["created", "active"] })).toBe(true)
    expect(match({ statuses: ["closed"] })).toBe(false)
    expect(match({ waiting_on: ["associate"] })).toBe(true)
    expect(match({ waiting_on: ["", "customer"] })).toBe(false)
    expect(match({ priorities: ["high", "urgent"] })).toBe(true)
    expect(match({ priorities: ["low"] })).toBe(false)
    expect(match({ classifications: [""] })).toBe(true)
    const closed = view(ticketCreated(), new TicketClosed({ at: minute(1), by: associate, classification: "resolved" }))
    expect(match({ classifications: ["resolved"] }, closed)).toBe(true)
    expect(match({ classifications: ["invalid"] }, closed)).toBe(false)
  })

  it("inbox_ids and channels", () => {
    expect(match({ inbox_ids: [1] })).toBe(true)
    expect(match({ inbox_ids: [2] })).toBe(false)
    expect(match({ channels: ["email"] })).toBe(true)
    expect(match({ channels: ["whatsapp"] })).toBe(false)
  })

  it("is_snoozed: snoozed means snoozed_until > now (a lapsed snooze not yet processed counts as not snoozed)", () => {
    const until = (m: number) =>
      view(ticketCreated(), new TicketSnoozed({ at: minute(1), by: associate, until: minute(m) }))
    expect(match({ is_snoozed: true }, until(31))).toBe(true)
    expect(match({ is_snoozed: true }, until(30))).toBe(false)
    expect(match({ is_snoozed: false }, until(30))).toBe(true)
    expect(match({ is_snoozed: false }, until(31))).toBe(false)
    expect(match({ is_snoozed: false })).toBe(true)
    expect(match({ is_snoozed: true })).toBe(false)
  })

  const withSla = (due: { first?: number; next?: number; resolution?: number }, breached = false): TicketView => {
    const at = (m: number | undefined) => (m === undefined ? null : DateTime.formatIso(minute(30 + m)))
    return {
      ...base,
      sla: {
        policyId: 1,
        policyName: "Default",
        firstReplyDueAt: at(due.first),
        nextReplyDueAt: at(due.next),
        resolutionDueAt: at(due.resolution),
        breached
      }
    }
  }

  it("sla_breached: the view's sla.breached; a ticket without SLA has not breached", () => {
    expect(match({ sla_breached: true }, withSla({ first: -5 }, true))).toBe(true)
    expect(match({ sla_breached: false }, withSla({ first: -5 }, true))).toBe(false)
    expect(match({ sla_breached: true }, withSla({ first: 5 }))).toBe(false)
    expect(match({ sla_breached: false }, withSla({ first: 5 }))).toBe(true)
    expect(match({ sla_breached: false })).toBe(true)
    expect(match({ sla_breached: true })).toBe(false)
    expect(match({ sla_breached: null }, withSla({}, true))).toBe(true)
  })

  it("sla_due_within: the earliest pending due time is at most N minutes away, or past; none never matches", () => {
    const dueIn30 = withSla({ resolution: 30 })
    expect(match({ sla_due_within: 60 }, dueIn30)).toBe(true)
    expect(match({ sla_due_within: 30 }, dueIn30)).toBe(true)
    expect(match({ sla_due_within: 29 }, dueIn30)).toBe(false)
    expect(match({ sla_due_within: 10 }, dueIn30)).toBe(false)
    // The earliest of the three counts.
    expect(match({ sla_due_within: 10 }, withSla({ first: 200, next: 5, resolution: 30 }))).toBe(true)
    // Overdue, breach recorded or not.
    expect(match({ sla_due_within: 1 }, withSla({ first: -90 }))).toBe(true)
    expect(match({ sla_due_within: 1 }, withSla({ first: -90 }, true))).toBe(true)
    // No SLA, or no pending target (met, paused, closed: the view's due times are null).
    expect(match({ sla_due_within: 525_600 })).toBe(false)
    expect(match({ sla_due_within: 525_600 }, withSla({}, true))).toBe(false)
    expect(match({ sla_due_within: null })).toBe(true)
  })

  const offsets = FastCheck.option(FastCheck.integer({ min: -100_000, max: 100_000 }), { nil: undefined })
  const slaViews = FastCheck.record({
    first: offsets,
    next: offsets,
    resolution: offsets,
    breached: FastCheck.boolean()
  })

  it("property: sla_due_within matches exactly when some pending due time is at most N minutes away", () => {
    FastCheck.assert(
      FastCheck.property(slaViews, FastCheck.integer({ min: 1, max: 525_600 }), (d, n) => {
        const v = withSla(d, d.breached)
        const pending = [d.first, d.next, d.resolution].filter((m): m is number => m !== undefined)
        expect(match({ sla_due_within: n }, v)).toBe(pending.some((m) => m <= n))
        expect(earliestSlaDue(v)).toBe(pending.length === 0 ? null : minute(30 + Math.min(...pending)).epochMillis)
      })
    )
  })

  it("property: a longer window keeps every match; sla_breached true and false split every ticket", () => {
    FastCheck.assert(
      FastCheck.property(
        slaViews,
        FastCheck.integer({ min: 1, max: 525_600 }),
        FastCheck.integer({ min: 0, max: 525_600 }),
        (d, n, more) => {
          const v = withSla(d, d.breached)
          if (match({ sla_due_within: n }, v)) expect(match({ sla_due_within: n + more }, v)).toBe(true)
          expect(match({ sla_breached: true }, v)).not.toBe(match({ sla_breached: false }, v))
        }
      )
    )
  })

  it("all criteria must hold together", () => {
    expect(match({ statuses: ["created"], priorities: ["high"], tags_include: ["vip"] })).toBe(true)
    expect(match({ statuses: ["created"], priorities: ["low"], tags_include: ["vip"] })).toBe(false)
  })

  it("criteria decode from the wire shape and refuse unknown enum values", () => {
    const decode = Schema.decodeUnknownEither(CriteriaSchema)
    expect(decode({ statuses: ["closed"], is_snoozed: true })._tag).toBe("Right")
    expect(decode({ sla_breached: false, sla_due_within: 60 })._tag).toBe("Right")
    expect(decode({ sla_due_within: 1.5 })._tag).toBe("Left")
    expect(decode({ statuses: ["open"] })._tag).toBe("Left")
  })
})
