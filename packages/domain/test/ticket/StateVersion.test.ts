import { describe, expect, it } from "@effect/vitest"
import { addMessage, ticketCreated } from "@helpdesk/domain/testing"
import { Either } from "effect"
import type { Delivery, MessageState, Ticket } from "../../src/index.js"
import { decide, evolveAll, TICKET_STATE_VERSION } from "../../src/index.js"

/**
 * The shape of the ticket state that each `TICKET_STATE_VERSION` stands for. Snapshots store the state as it is, so
 * a change of these keys without a new version would feed old snapshots to new code: when this test (or its
 * compile-time twin below) fails, bump `TICKET_STATE_VERSION` and record the new keys under it.
 */
const SHAPE_KEYS = {
  1: {
    ticket: [
      "_tag",
      "assignee",
      "attachments",
      "bccRecipientEmails",
      "channel",
      "classification",
      "createEmailDelivery",
      "createdAt",
      "createdBy",
      "csatResponse",
      "customer",
      "customerVisibleReplyCount",
      "description",
      "descriptionHtml",
      "externalRecipientEmails",
      "fromEmail",
      "fromName",
      "hasMessageAttachments",
      "id",
      "inbox",
      "isSpam",
      "kind",
      "language",
      "lastSnoozeEndedAt",
      "lastUnsnoozeReason",
      "lastVisibleRecipientEmails",
      "mergedAt",
      "mergedBy",
      "mergedInto",
      "messages",
      "organizationId",
      "origin",
      "priority",
      "publicId",
      "sentiment",
      "snoozedBy",
      "snoozedUntil",
      "status",
      "subject",
      "summary",
      "tags",
      "updatedAt",
      "waitingOn"
    ],
    message: [
      "attachments",
      "author",
      "bccRecipientEmails",
      "content",
      "contentHtml",
      "createdAt",
      "delivery",
      "externalRecipientEmails",
      "hasRawContent",
      "id",
      "isVisibleToCustomer",
      "kind",
      "mergedFromTicket",
      "nextAction",
      "nextAssignee",
      "nextPriority",
      "role",
      "sendsEmail",
      "sender",
      "updatedAt"
    ],
    delivery: ["failedAt", "failureReason", "readAt", "sentAt", "status"]
  }
} as const
// Version 2 has the same keys: `evolve` stopped moving updated_at for delivery reports (decision 0659).
// Version 3: a delivery keeps the recipients refused while the mail went to the others (decision 0662).
const SHAPES = {
  ...SHAPE_KEYS,
  2: SHAPE_KEYS[1],
  3: { ...SHAPE_KEYS[1], delivery: [...SHAPE_KEYS[1].delivery, "refusal", "refusalAt"] }
} as const

type Current = (typeof SHAPES)[typeof TICKET_STATE_VERSION]
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
// Compile-time: the state's types have exactly the recorded keys (a new optional field is caught here too).
const typesMatch: [
  Same<keyof Ticket, Current["ticket"][number]>,
  Same<keyof MessageState, Current["message"][number]>,
  Same<keyof Delivery, Current["delivery"][number]>
] = [true, true, true]

const sortedKeys = (value: object) => Object.keys(value).sort()

describe("TICKET_STATE_VERSION", () => {
  it("has the shape of the ticket state recorded under it, in the types and in a folded state", () => {
    expect(typesMatch).toEqual([true, true, true])
    const shape = SHAPES[TICKET_STATE_VERSION]
    expect(shape, `no shape recorded for TICKET_STATE_VERSION ${TICKET_STATE_VERSION}`).toBeDefined()
    const created = evolveAll([ticketCreated()])
    const added = Either.getOrThrow(decide(addMessage({ sendsEmail: true }), created))
    const state = evolveAll(added, created)
    expect(state._tag).toBe("Ticket")
    const ticket = state as Ticket
    expect(sortedKeys(ticket)).toEqual([...shape.ticket].sort())
    expect(ticket.messages).toHaveLength(1)
    expect(sortedKeys(ticket.messages[0]!)).toEqual([...shape.message].sort())
    expect(ticket.messages[0]!.delivery).not.toBeNull()
    expect(sortedKeys(ticket.messages[0]!.delivery!)).toEqual([...shape.delivery].sort())
  })
})
