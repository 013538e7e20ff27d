import {
  ChangePriority,
  evolve,
  evolveAll,
  initialState,
  type MessageDeliveryReported,
  ReportDelivery,
  type TicketEvent,
  type TicketState
} from "@helpdesk/domain"
import { addMessage, associate, minute, system, ticketCreated, ticketId } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { given } from "../utils/DeciderSpecification.js"

const created = ticketCreated({ actor: associate, sendsCreateEmail: true })
const reply = given(created)
  .when(addMessage({ sendsEmail: true }))
  .events()
const report = given(created, ...reply)
  .when(new ReportDelivery({ ticketId, at: minute(11), actor: system, messageId: 100, status: "sent" }))
  .events()

describe("evolve", () => {
  it("leaves the given state untouched (including its message list and messages)", () => {
    const before = evolveAll([created, ...reply])
    const snapshot = structuredClone(before)
    const after = evolve(before, report[0] as MessageDeliveryReported)
    expect(before).toEqual(snapshot)
    expect(after).not.toBe(before)
    expect(after._tag === "Ticket" && after.messages[0]!.delivery?.status).toBe("sent")
    const more = evolve(
      before,
      given(created, ...reply)
        .when(addMessage({ messageId: 101 }))
        .events()[0]!
    )
    expect(before._tag === "Ticket" && before.messages).toHaveLength(1)
    expect(more._tag === "Ticket" && more.messages).toHaveLength(2)
  })

  it("shares what it does not change: the message list for other events, unchanged messages always", () => {
    const before = evolveAll([created, ...reply])
    if (before._tag !== "Ticket") throw new Error("no ticket")
    const priority = given(created, ...reply)
      .when(new ChangePriority({ ticketId, at: minute(12), actor: associate, priority: "high" }))
      .events()[0]!
    const afterPriority = evolve(before, priority)
    expect(afterPriority._tag === "Ticket" && afterPriority.messages).toBe(before.messages)
    const afterReply = evolve(
      before,
      given(created, ...reply)
        .when(addMessage({ messageId: 101 }))
        .events()[0]!
    )
    expect(afterReply._tag === "Ticket" && afterReply.messages[0]).toBe(before.messages[0])
    const absorbed = evolve(before, report[0]!)
    const twice = evolve(absorbed, report[0]!)
    expect(twice._tag === "Ticket" && absorbed._tag === "Ticket" && twice.messages).toBe(
      absorbed._tag === "Ticket" ? absorbed.messages : null
    )
  })

  it("ignores events before TicketCreated", () => {
    expect(evolve(initialState, reply[0]!)).toBe(initialState)
  })

  it("evolveAll from a given state equals reducing with evolve and leaves that state untouched", () => {
    const start: TicketState = evolveAll([created])
    const snapshot = structuredClone(start)
    const rest: ReadonlyArray<TicketEvent> = [...reply, ...report]
    expect(evolveAll(rest, start)).toEqual(rest.reduce(evolve, start))
    expect(start).toEqual(snapshot)
  })
})
