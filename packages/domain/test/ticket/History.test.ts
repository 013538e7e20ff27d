import {
  describeTicketEvent,
  describeTicketHistory,
  evolve,
  initialState,
  TicketAssigned,
  TicketClosed,
  TicketEvent,
  TicketMarkedSpam,
  TicketMergedFrom,
  TicketMergedInto,
  TicketPriorityChanged,
  TicketReopened,
  TicketSnoozed,
  type TicketState,
  TicketTagsChanged,
  TicketUnsnoozed
} from "@helpdesk/domain"
import { addMessage, alice, associate, bob, customer, minute, system, ticketCreated } from "@helpdesk/domain/testing"
import { Arbitrary, FastCheck } from "effect"
import { describe, expect, it } from "vitest"
import { given } from "../utils/DeciderSpecification.js"

const created = ticketCreated({ priority: "medium" })
const fold = (...events: ReadonlyArray<TicketEvent>): TicketState => events.reduce(evolve, initialState)

describe("describeTicketEvent", () => {
  it("a creation names the ticket and changes nothing", () => {
    expect(describeTicketEvent(initialState, created)).toEqual({
      summary: 'Ticket #T-42 created: "Printer on fire"',
      changes: []
    })
  })

  it("a priority change shows old → new", () => {
    const described = describeTicketEvent(
      fold(created),
      new TicketPriorityChanged({ at: minute(1), by: associate, priority: "high" })
    )
    expect(described.changes).toEqual([{ field: "priority", from: "medium", to: "high" }])
    expect(described.summary).toBe("Priority changed (priority: medium → high)")
  })

  it("an assignment names both people; an unassignment says none", () => {
    const assigned = new TicketAssigned({ at: minute(1), by: associate, assignee: bob })
    const described = describeTicketEvent(
      fold(created, new TicketAssigned({ at: minute(0), by: associate, assignee: alice })),
      assigned
    )
    expect(described.changes).toEqual([
      {
        field: "assignee",
        from: { id: alice.id, name: "Alice", email: alice.email },
        to: { id: bob.id, name: "Bob", email: bob.email }
      }
    ])
    expect(described.summary).toBe("Assigned to Bob (assignee: Alice → Bob)")
    const unassigned = describeTicketEvent(
      fold(created, assigned),
      new TicketAssigned({ at: minute(2), by: associate, assignee: null })
    )
    expect(unassigned.summary).toBe("Unassigned (assignee: Bob → none)")
  })

  it("closing shows the status and classification; reopening undoes both", () => {
    const closed = new TicketClosed({ at: minute(5), by: associate, classification: "resolved" })
    const described = describeTicketEvent(fold(created), closed)
    expect(described.changes).toEqual([
      { field: "status", from: "created", to: "closed" },
      { field: "classification", from: "", to: "resolved" }
    ])
    expect(described.summary).toBe("Closed as resolved (status: created → closed; classification: none → resolved)")
    const reopened = describeTicketEvent(
      fold(created, closed),
      new TicketReopened({ at: minute(6), by: customer, reason: "customer_reply" })
    )
    expect(reopened.summary).toBe(
      "Reopened by the customer's reply (status: closed → active; classification: resolved → none)"
    )
  })

  it("closing a snoozed ticket shows the snooze cleared", () => {
    const snoozed = new TicketSnoozed({ at: minute(1), by: associate, until: minute(60) })
    const described = describeTicketEvent(
      fold(created, snoozed),
      new TicketClosed({ at: minute(5), by: associate, classification: "other" })
    )
    expect(described.changes.map((c) => c.field)).toEqual(["status", "classification", "snoozed_until"])
    expect(described.changes[2]).toEqual({ field: "snoozed_until", from: "2026-01-05T10:00:00.000Z", to: null })
  })

  it("snoozing and the timer ending it", () => {
    const snoozed = new TicketSnoozed({ at: minute(1), by: associate, until: minute(60) })
    expect(describeTicketEvent(fold(created), snoozed)).toEqual({
      summary: "Snoozed until 2026-01-05T10:00:00.000Z (snoozed until: none → 2026-01-05T10:00:00.000Z)",
      changes: [{ field: "snoozed_until", from: null, to: "2026-01-05T10:00:00.000Z" }]
    })
    const ended = describeTicketEvent(
      fold(created, snoozed),
      new TicketUnsnoozed({ at: minute(60), by: system, reason: "timer" })
    )
    expect(ended.summary).toBe("Snooze ended (snoozed until: 2026-01-05T10:00:00.000Z → none)")
  })

  it("tags show the whole set before and after, by name", () => {
    const tagged = new TicketTagsChanged({ at: minute(1), by: associate, tags: [{ id: 1, name: "vip", color: "" }] })
    const retagged = new TicketTagsChanged({
      at: minute(2),
      by: associate,
      tags: [
        { id: 1, name: "vip", color: "" },
        { id: 2, name: "printer", color: "#ff0000" }
      ]
    })
    expect(describeTicketEvent(fold(created, tagged), retagged).summary).toBe("Tags changed (tags: vip → vip, printer)")
  })

  it("marking spam shows the flag", () => {
    expect(describeTicketEvent(fold(created), new TicketMarkedSpam({ at: minute(1), by: associate })).changes).toEqual([
      { field: "is_spam", from: false, to: true }
    ])
  })

  it("messages: a note, a reply and its effect on waiting_on", () => {
    const reply = given(created)
      .when(addMessage({ messageId: 1 }))
      .events()
    expect(reply.map((e) => e._tag)).toEqual(["MessageAdded", "TicketActivated"])
    const described = describeTicketHistory([created, ...reply])
    expect(described[1]).toEqual({
      summary: "Reply to the customer by Alice (waiting on: associate → customer)",
      changes: [{ field: "waiting_on", from: "associate", to: "customer" }]
    })
    expect(described[2]!.summary).toBe("First reply to the customer (status: created → active)")
    const note = given(created)
      .when(addMessage({ messageId: 2, isVisibleToCustomer: false }))
      .events()[0]!
    expect(describeTicketEvent(fold(created), note)).toEqual({ summary: "Internal note by Alice", changes: [] })
  })

  it("merges: the source shows merged_into, the survivor names the source", () => {
    const into = new TicketMergedInto({
      at: minute(9),
      by: associate,
      into: { id: 2, publicId: "T-2", subject: "Other" }
    })
    expect(describeTicketEvent(fold(created), into)).toEqual({
      summary: "Merged into #T-2 (merged into: none → #T-2)",
      changes: [{ field: "merged_into", from: null, to: { id: 2, publicId: "T-2" } }]
    })
    const from = new TicketMergedFrom({
      at: minute(9),
      by: associate,
      from: { id: 7, publicId: "T-7", subject: "x" },
      messages: []
    })
    expect(describeTicketEvent(fold(created), from)).toEqual({
      summary: "Ticket #T-7 merged into this one",
      changes: []
    })
  })

  it("an event before the ticket exists changes nothing", () => {
    const described = describeTicketEvent(
      initialState,
      new TicketPriorityChanged({ at: minute(1), by: associate, priority: "low" })
    )
    expect(described).toEqual({ summary: "Priority changed", changes: [] })
  })

  it("property: no change is a no-op, and status and priority changes are the fold's before and after", () => {
    const events = FastCheck.array(Arbitrary.make(TicketEvent), { maxLength: 8 })
    FastCheck.assert(
      FastCheck.property(events, (tail) => {
        const all = [created, ...tail]
        const described = describeTicketHistory(all)
        let state: TicketState = initialState
        all.forEach((event, i) => {
          const after = evolve(state, event)
          for (const change of described[i]!.changes) expect(change.from).not.toEqual(change.to)
          if (state._tag === "Ticket" && after._tag === "Ticket") {
            const priority = described[i]!.changes.find((c) => c.field === "priority")
            if (state.priority === after.priority) expect(priority).toBeUndefined()
            else expect(priority).toEqual({ field: "priority", from: state.priority, to: after.priority })
            const status = described[i]!.changes.find((c) => c.field === "status")
            if (state.status === after.status) expect(status).toBeUndefined()
            else expect(status).toEqual({ field: "status", from: state.status, to: after.status })
          }
          expect(described[i]!.summary.length).toBeGreaterThan(0)
          state = after
        })
      }),
      { numRuns: 200 }
    )
  })
})
