import { describe, expect, it } from "@effect/vitest"
import type { RecordedEvent, TicketEvent } from "@helpdesk/domain"
import { emptyFold, handoverOf, type TicketHandover } from "../src/Tickets/Store/TicketSnapshot.js"

// Only the positions matter to the handover; the rest of a recorded event is not read.
const recordedAt = (...positions: ReadonlyArray<number>) =>
  positions.map((streamPosition) => ({ streamId: "ticket-1", streamPosition }) as unknown as RecordedEvent)

const decided = (count: number) => Array.from({ length: count }, () => ({}) as TicketEvent)

const handover = (version: number, events: number): TicketHandover => ({
  before: { ...emptyFold, version },
  events: decided(events)
})

const contextWith = (value: TicketHandover) => ({ folds: new Map([["ticket-1", value]]) })

describe("handoverOf (what a ticket writer hands its projections)", () => {
  it("given the writer's fold at 4 and its two events, when the stream's new events are 5 and 6, then it is used", () => {
    const given = handover(4, 2)
    expect(handoverOf(contextWith(given), "ticket-1", recordedAt(5, 6))).toBe(given)
  })

  it.each([
    { case: "a hole after the fold", positions: [6, 7] },
    { case: "events the fold already has", positions: [4, 5] },
    { case: "fewer recorded events than decided", positions: [5] },
    { case: "more recorded events than decided", positions: [5, 6, 7] }
  ])("given $case, then it is not used (the projection reads the stream)", ({ positions }) => {
    expect(handoverOf(contextWith(handover(4, 2)), "ticket-1", recordedAt(...positions))).toBeUndefined()
  })

  it("given no handover for the stream, or no context, then there is none", () => {
    expect(handoverOf(contextWith(handover(4, 2)), "ticket-2", recordedAt(5, 6))).toBeUndefined()
    expect(handoverOf(undefined, "ticket-1", recordedAt(5, 6))).toBeUndefined()
  })
})
