import { GlobalCheckpoint, type RecordedEvent } from "@helpdesk/domain"
import { storedMessageV1 } from "@helpdesk/domain/testing"
import { describe, expect, it } from "vitest"
import { currentEventJson, renderEvent, ticketIdOfStream } from "../src/EventLog/EventWire.js"

const recorded = (type: string, data: Record<string, unknown>, schemaVersion = 1): RecordedEvent => ({
  eventId: "0D3C6F5E-1111-4222-8333-944445555666",
  type,
  schemaVersion,
  data: { _tag: type, at: "2026-01-05T09:00:00.000Z", by: { role: "system", user: null }, ...data },
  metadata: {},
  streamId: "ticket-42",
  streamPosition: 3,
  globalPosition: 10n,
  checkpoint: GlobalCheckpoint.make("7:10"),
  createdAt: new Date("2026-01-05T09:00:01.000Z")
})

const message = (id: number, isVisibleToCustomer: boolean) => ({ id, content: `m${id}`, isVisibleToCustomer })

describe("the wire form of an event", () => {
  it("copies the stored fields in snake_case, with type, actor and times beside them", () => {
    const wire = renderEvent(
      recorded("TicketAssigned", {
        assignee: { id: 1, email: "a@x.test", name: "Ann", profilePictureUrl: "" },
        by: { role: "associate", user: { id: 2, email: "b@x.test", name: "Bo", profilePictureUrl: "p" } }
      }),
      { internalNotes: true }
    )
    expect(wire).toEqual({
      id: "0d3c6f5e-1111-4222-8333-944445555666",
      type: "TicketAssigned",
      ticket_id: 42,
      position: 3,
      occurred_at: "2026-01-05T09:00:00.000Z",
      recorded_at: "2026-01-05T09:00:01.000Z",
      actor: { role: "associate", user: { id: 2, email: "b@x.test", profile_picture_url: "p", name: "Bo" } },
      data: { assignee: { id: 1, email: "a@x.test", name: "Ann", profile_picture_url: "" } }
    })
  })

  it("leaves the internal organization id out of a creation", () => {
    const wire = renderEvent(recorded("TicketCreated", { organizationId: "5", subject: "S" }, 2), {
      internalNotes: true
    })
    expect(wire?.data).toEqual({ subject: "S" })
  })

  it("hides internal notes from readers who may not read them, and a merge's carried notes", () => {
    const note = recorded("MessageAdded", { message: message(1, false) }, 2)
    const reply = recorded("MessageAdded", { message: message(2, true) }, 2)
    expect(renderEvent(note, { internalNotes: false })).toBeUndefined()
    expect(renderEvent(note, { internalNotes: true })?.data).toEqual({
      message: { id: 1, content: "m1", is_visible_to_customer: false }
    })
    expect(renderEvent(reply, { internalNotes: false })?.type).toBe("MessageAdded")
    const merge = recorded("TicketMergedFrom", { messages: [message(3, true), message(4, false)] })
    expect(renderEvent(merge, { internalNotes: false })?.data.messages).toEqual([
      { id: 3, content: "m3", is_visible_to_customer: true }
    ])
    expect(renderEvent(merge, { internalNotes: true })!.data.messages).toHaveLength(2)
  })

  it("upcasts an older version as reads do (a v1 note is internal)", () => {
    const v1 = recorded(
      "MessageAdded",
      {
        message: storedMessageV1({
          id: 9,
          author: null,
          content: "old note",
          kind: "",
          createdAt: "2026-01-05T09:00:00.000Z"
        })
      },
      1
    )
    expect((currentEventJson(v1).message as Record<string, unknown>).isVisibleToCustomer).toBe(false)
    expect(renderEvent(v1, { internalNotes: false })).toBeUndefined()
  })

  it("keys named like Object's own are data", () => {
    const wire = renderEvent(recorded("Other", JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 2}')), {
      internalNotes: true
    })
    expect(Object.hasOwn(wire!.data, "__proto__")).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(wire!.ticket_id).toBe(42)
  })

  it("knows a ticket stream by its name only", () => {
    expect(ticketIdOfStream("ticket-7")).toBe(7)
    expect(ticketIdOfStream("ticket-x")).toBeNull()
    expect(ticketIdOfStream("other-7")).toBeNull()
  })
})
