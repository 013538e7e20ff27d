import {
  PresetFilterCriteria as CriteriaSchema,
  matches,
  type PresetFilterCriteria,
  projectTicketView,
  TicketAssigned,
  TicketClosed,
  type TicketEvent,
  TicketSnoozed,
  type TicketView
} from "@helpdesk/domain"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { associate, bob, minute, ticketCreated } from "../utils/fixtures.js"

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

  it("all criteria must hold together", () => {
    expect(match({ statuses: ["created"], priorities: ["high"], tags_include: ["vip"] })).toBe(true)
    expect(match({ statuses: ["created"], priorities: ["low"], tags_include: ["vip"] })).toBe(false)
  })

  it("criteria decode from the wire shape and refuse unknown enum values", () => {
    const decode = Schema.decodeUnknownEither(CriteriaSchema)
    expect(decode({ statuses: ["closed"], is_snoozed: true })._tag).toBe("Right")
    expect(decode({ statuses: ["open"] })._tag).toBe("Left")
  })
})
