import { assert, describe, it } from "@effect/vitest"
import type { TicketState } from "@helpdesk/domain"
import { FastCheck } from "effect"
import {
  SNAPSHOT_EVERY,
  SNAPSHOT_MESSAGES_PER_EVENT,
  snapshotInterval,
  snapshotVersionAfter
} from "../src/Tickets/Store/TicketSnapshot.js"

// Only the message count of a state matters to the rule.
const ticketOf = (messages: number) =>
  ({ _tag: "Ticket", messages: Array.from({ length: messages }, (_, id) => ({ id })) }) as unknown as TicketState

describe("TicketSnapshot: when a snapshot is due", () => {
  it("given a ticket of up to 256 messages, a snapshot is due every 32 events", () => {
    assert.strictEqual(snapshotInterval(0), SNAPSHOT_EVERY)
    assert.strictEqual(snapshotInterval(256), SNAPSHOT_EVERY)
    assert.strictEqual(snapshotVersionAfter(0, 31, ticketOf(10)), 0)
    assert.strictEqual(snapshotVersionAfter(0, 32, ticketOf(10)), 32)
    assert.strictEqual(snapshotVersionAfter(64, 95, { _tag: "NoTicket" }), 64)
  })

  it("given a longer ticket, the events between snapshots grow with its messages", () => {
    assert.strictEqual(snapshotInterval(257), 33)
    assert.strictEqual(snapshotInterval(1000), 125)
    assert.strictEqual(snapshotVersionAfter(1000, 1124, ticketOf(1000)), 1000)
    assert.strictEqual(snapshotVersionAfter(1000, 1125, ticketOf(1000)), 1125)
  })

  it("a write's share of a snapshot is at most 8 messages' worth, and a cold load reads at most an eighth as many events as the snapshot holds messages, or 31", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.nat({ max: 1_000_000 }), (messages) => {
        const interval = snapshotInterval(messages)
        assert.isAtMost(messages / interval, SNAPSHOT_MESSAGES_PER_EVENT)
        assert.isAtMost(interval - 1, Math.max(SNAPSHOT_EVERY - 1, messages / SNAPSHOT_MESSAGES_PER_EVENT))
      })
    )
  })
})
