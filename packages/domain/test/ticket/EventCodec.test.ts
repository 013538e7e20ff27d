import {
  decodeEventData,
  encodeEventData,
  fromRecordedEvent,
  GlobalCheckpointStart,
  Instant,
  MessageAdded,
  type RecordedEvent,
  TicketCreated,
  type TicketEvent,
  toNewEvent
} from "@helpdesk/domain"
import {
  addMessage,
  alice,
  customer,
  emailTicketFields,
  minute,
  storedMessageV1,
  ticketCreated
} from "@helpdesk/domain/testing"
import { DateTime, Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { given } from "../utils/DeciderSpecification.js"

const recorded = (type: string, schemaVersion: number, data: unknown): RecordedEvent => ({
  eventId: "e",
  type,
  schemaVersion,
  data,
  streamId: "ticket-42",
  streamPosition: 1,
  globalPosition: 1n,
  checkpoint: GlobalCheckpointStart,
  createdAt: new Date(0)
})

/** What PostgreSQL jsonb gives back: the JSON text parsed again. */
const throughJson = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

const decoded = (r: RecordedEvent): TicketEvent => {
  const result = fromRecordedEvent(r)
  if (Either.isLeft(result)) throw new Error(result.left.message)
  return result.right
}

describe("event encoding for the port", () => {
  it("toNewEvent names the type and the current schema version and encodes JSON data", () => {
    const e = ticketCreated()
    const n = toNewEvent(e, "id-1", { correlationId: "c" })
    expect(n).toMatchObject({
      eventId: "id-1",
      type: "TicketCreated",
      schemaVersion: 2,
      metadata: { correlationId: "c" }
    })
    expect((n.data as { at: string }).at).toBe("2026-01-05T09:00:00.000Z")
  })

  it("an event decodes back to an equal event after a trip through JSON text", () => {
    const e = given(ticketCreated()).when(addMessage()).events()[0]!
    const n = toNewEvent(e, "id-2")
    expect(decoded(recorded(n.type, n.schemaVersion, throughJson(n.data)))).toEqual(e)
  })

  it("a decoded event is what decoding through its class gives: an instance, with the same fields", () => {
    const e = given(ticketCreated()).when(addMessage()).events()[0]!
    const json = throughJson(toNewEvent(e, "id-3").data)
    const back = decoded(recorded("MessageAdded", 2, json))
    expect(back).toBeInstanceOf(MessageAdded)
    expect(back).toStrictEqual(Schema.decodeUnknownSync(MessageAdded)(json))
    expect(Object.keys(back).sort()).toEqual(Object.keys(e).sort())
    const created = decoded(recorded("TicketCreated", 2, throughJson(encodeEventData(ticketCreated()))))
    expect(created).toBeInstanceOf(TicketCreated)
    expect(Schema.is(TicketCreated)(created)).toBe(true)
  })

  it("instants are ISO-8601 text on the way out and must parse on the way in", () => {
    expect(Schema.encodeSync(Instant)(DateTime.unsafeMake("2026-03-29T01:30:00Z"))).toBe("2026-03-29T01:30:00.000Z")
    expect(Schema.decodeSync(Instant)("2026-03-29T03:30:00+02:00").epochMillis).toBe(Date.UTC(2026, 2, 29, 1, 30))
    for (const text of ["yesterday", "", "2026-02-30T25:00:00Z"]) {
      expect(Either.isLeft(Schema.decodeUnknownEither(Instant)(text)), text).toBe(true)
    }
    expect(Either.isLeft(Schema.decodeUnknownEither(Instant)(1_700_000_000_000))).toBe(true)
  })

  it("data stored without `_tag` decodes by the recorded type", () => {
    const e = ticketCreated()
    const { _tag, ...data } = throughJson(encodeEventData(e)) as Record<string, unknown>
    expect(decoded(recorded("TicketCreated", 2, data))).toEqual(e)
  })

  it("refuses an unknown type, a version from the future and malformed data", () => {
    const bad = (r: RecordedEvent) => Either.flip(fromRecordedEvent(r)).pipe(Either.getOrThrow)
    expect(bad(recorded("TicketTeleported", 1, {}))).toMatchObject({
      _tag: "EventDecodeError",
      reason: "unknown event type"
    })
    expect(bad(recorded("TicketCreated", 3, encodeEventData(ticketCreated())))).toMatchObject({
      _tag: "EventDecodeError",
      schemaVersion: 3
    })
    expect(bad(recorded("TicketClosed", 1, { at: "yesterday" }))).toMatchObject({
      _tag: "EventDecodeError",
      streamId: "ticket-42",
      streamPosition: 1
    })
  })
})

describe("upcasting older event versions at read time", () => {
  it("TicketCreated v1 (no kind, `ccEmails`, nested `from`) reads as v2", () => {
    const v1 = {
      _tag: "TicketCreated",
      at: "2026-01-05T09:00:00.000Z",
      by: { role: "customer", user: { id: 3, email: "carol@customer.test", name: "Carol", profilePictureUrl: "" } },
      ticketId: 42,
      ...emailTicketFields,
      ccEmails: ["cc@customer.test"],
      from: { email: "carol@customer.test", name: "Carol" },
      attachments: [],
      tags: [],
      priority: "not_set",
      assignee: null,
      sendsCreateEmail: false
    }
    const e = decoded(recorded("TicketCreated", 1, v1))
    expect(e).toBeInstanceOf(TicketCreated)
    expect(e).toEqual(ticketCreated({ bccRecipientEmails: [], actor: customer }))
  })

  it("MessageAdded v1 (`internal` flag, no `sendsEmail`) reads as v2", () => {
    const v1 = {
      _tag: "MessageAdded",
      at: "2026-01-05T09:10:00.000Z",
      by: { role: "associate", user: alice },
      message: storedMessageV1()
    }
    const e = decoded(recorded("MessageAdded", 1, v1)) as MessageAdded
    expect(e).toBeInstanceOf(MessageAdded)
    expect(e.message.isVisibleToCustomer).toBe(false)
    expect(e.message.sendsEmail).toBe(false)
    expect(e.message.createdAt).toEqual(minute(10))
    const visible = decoded(recorded("MessageAdded", 1, { ...v1, message: { ...v1.message, internal: false } }))
    expect((visible as MessageAdded).message.isVisibleToCustomer).toBe(true)
  })

  it("a current-version event is decoded without upcasting", () => {
    const e = ticketCreated()
    expect(Either.getOrThrow(decodeEventData("TicketCreated", 2, throughJson(encodeEventData(e))))).toEqual(e)
  })
})
