/**
 * Upcasters turn the stored JSON of an older event version into the JSON of the next version, at read
 * time. Stored events are never rewritten: a stream written years ago decodes to today's classes by
 * running its events through `upcasters[type][v]` for each `v` from the stored version up to the current
 * one. Rules for adding a version: bump the class's `static version`, add the `v → v+1` function here,
 * keep it a pure function of the old JSON (no defaults read from elsewhere), and add a test that decodes a
 * literal old payload. See docs/decisions/0204-event-upcasting.md.
 */
export type Upcaster = (data: Record<string, unknown>) => Record<string, unknown>

const asRecord = (u: unknown): Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? (u as Record<string, unknown>) : {}

/**
 * TicketCreated v1 → v2. Version 1 predates audio tickets and BCC: it had no `kind` (every ticket was
 * text), called the CC list `ccEmails`, had no `bccRecipientEmails`, and nested the requester snapshot
 * as `from: { email, name }`.
 */
export const ticketCreatedV1ToV2: Upcaster = (data) => {
  const { ccEmails, from, ...rest } = data
  const sender = asRecord(from)
  return {
    ...rest,
    kind: "text",
    externalRecipientEmails: Array.isArray(ccEmails) ? ccEmails : [],
    bccRecipientEmails: [],
    fromEmail: typeof sender.email === "string" ? sender.email : "",
    fromName: typeof sender.name === "string" ? sender.name : ""
  }
}

/**
 * MessageAdded v1 → v2. Version 1 marked notes with `message.internal` (the inverse of today's
 * `isVisibleToCustomer`) and predates tracked reply emails (`sendsEmail`), so v1 replies have no
 * delivery state.
 */
export const messageAddedV1ToV2: Upcaster = (data) => {
  const { internal, ...message } = asRecord(data.message)
  return { ...data, message: { ...message, isVisibleToCustomer: internal !== true, sendsEmail: false } }
}

/** `upcasters[type][v]` turns version `v` of `type` into version `v + 1`. */
export const upcasters: Readonly<Record<string, Readonly<Record<number, Upcaster>>>> = {
  TicketCreated: { 1: ticketCreatedV1ToV2 },
  MessageAdded: { 1: messageAddedV1ToV2 }
}
