import {
  currentVersion,
  decodeEventData,
  encodeEventData,
  type RecordedEvent,
  type TicketEventType,
  ticketEventClasses
} from "@helpdesk/domain"
import { Either, Schema } from "effect"
import { Timestamp, UserRef } from "../Http/Representation.js"

/**
 * The wire form of a stored event, one for every reader outside the service (the change feed, a ticket's
 * history, webhook bodies): docs/events.md "On the wire" describes it, decision 0306 says why.
 *
 * - `data` is the event's fields at the current schema version (older versions upcast, as reads do), keys in
 *   snake_case, without `_tag`, `at` and `by` (those are `type`, `occurred_at` and `actor`) and without
 *   `organizationId` (the internal id; the organization is the one of the path);
 * - rendering is a copy of the stored JSON (no Schema encode): the feed's throughput is this function's.
 */

/** The actor of an event on the wire. */
export const ActorWire = Schema.Struct({
  role: Schema.Literal("associate", "customer", "system"),
  user: Schema.NullOr(UserRef).annotations({
    description: "The person; null for the customer, the service itself, or an integration token."
  })
}).annotations({ identifier: "EventActor" })

/** An event as the API and webhooks show it. */
export const EventWire = Schema.Struct({
  id: Schema.String.annotations({
    description: "The event's UUID (lowercase): unique, stable, use it to deduplicate."
  }),
  type: Schema.String.annotations({
    description: "The event type, e.g. `TicketClosed` (the catalogue: docs/events.md)."
  }),
  ticket_id: Schema.NullOr(Schema.Int).annotations({ description: "The ticket whose stream holds the event." }),
  position: Schema.Int.annotations({ description: "1-based position of the event in its ticket's stream." }),
  occurred_at: Timestamp.annotations({ description: "When it happened (the command's time)." }),
  recorded_at: Timestamp.annotations({ description: "When it was stored." }),
  actor: ActorWire,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "The event's own fields, snake_case (per type: docs/events.md)."
  })
}).annotations({ identifier: "Event" })
export type EventWire = typeof EventWire.Encoded

/** What a reader may see: internal notes only when `internalNotes`. */
export interface Visibility {
  readonly internalNotes: boolean
}

type Json = Record<string, unknown>

const TICKET_STREAM = /^ticket-(\d{1,16})$/

/** The ticket id of a `ticket-{id}` stream, else null. */
export const ticketIdOfStream = (streamId: string): number | null => {
  const match = TICKET_STREAM.exec(streamId)
  return match === null ? null : Number(match[1])
}

const isTicketEventType = (type: string): type is TicketEventType => Object.hasOwn(ticketEventClasses, type)

/** The stored JSON at the current schema version (upcast when older); unknown types are left as stored. */
export const currentEventJson = (event: RecordedEvent): Json => {
  const data = (typeof event.data === "object" && event.data !== null ? event.data : {}) as Json
  if (!isTicketEventType(event.type) || event.schemaVersion === currentVersion(event.type)) return data
  const decoded = decodeEventData(event.type, event.schemaVersion, data, event)
  return Either.isRight(decoded) ? (encodeEventData(decoded.right) as Json) : data
}

// The schemas' keys are a few dozen: each is converted once (the feed renders thousands of events a second).
const snakeKeyCache = new Map<string, string>()

const snakeKey = (key: string): string => {
  let snake = snakeKeyCache.get(key)
  if (snake === undefined) {
    snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    if (snakeKeyCache.size < 10_000) snakeKeyCache.set(key, snake)
  }
  return snake
}

/** JSON with every object key in snake_case (keys are the event schemas' own, never caller text). */
export const snakeKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(snakeKeys)
  if (typeof value !== "object" || value === null) return value
  // Object.fromEntries defines own properties: even a key "__proto__" stays data.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeKey(k), snakeKeys(v)]))
}

const userWire = (user: unknown) => {
  if (typeof user !== "object" || user === null) return null
  const u = user as Json
  return { id: u.id, email: u.email, profile_picture_url: u.profilePictureUrl, name: u.name }
}

const actorWire = (by: unknown) => {
  const actor = (typeof by === "object" && by !== null ? by : {}) as Json
  return { role: actor.role ?? "system", user: userWire(actor.user) }
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const isoOf = (value: unknown, fallback: Date): string => {
  // What the codec writes already has the wire's form.
  if (typeof value === "string" && ISO_MS.test(value)) return value
  const millis = typeof value === "string" ? Date.parse(value) : Number.NaN
  return new Date(Number.isNaN(millis) ? fallback.getTime() : millis).toISOString()
}

const isVisibleMessage = (message: unknown): boolean =>
  typeof message === "object" && message !== null && (message as Json).isVisibleToCustomer !== false

/**
 * Whether the event shows at all: an internal note (`MessageAdded` not visible to the customer) only to readers
 * who may read internal notes.
 */
export const isVisibleEvent = (event: RecordedEvent, json: Json, visibility: Visibility): boolean =>
  visibility.internalNotes || event.type !== "MessageAdded" || isVisibleMessage(json.message)

/** The event's own fields as a reader may see them (a merge's carried internal notes left out unless allowed). */
const visibleData = (type: string, json: Json, visibility: Visibility): Json => {
  // The organization is the feed's own (its internal id is not part of the API: paths use the public id).
  const { _tag, at, by, organizationId, ...rest } = json
  if (visibility.internalNotes || type !== "TicketMergedFrom" || !Array.isArray(rest.messages)) return rest
  return { ...rest, messages: rest.messages.filter(isVisibleMessage) }
}

/**
 * The wire form of a stored event, or `undefined` when the reader may not see it ({@link isVisibleEvent}).
 * `json` is the event's current-version JSON when the caller has it already.
 */
export const renderEvent = (
  event: RecordedEvent,
  visibility: Visibility,
  json: Json = currentEventJson(event)
): EventWire | undefined => {
  if (!isVisibleEvent(event, json, visibility)) return undefined
  return {
    id: event.eventId.toLowerCase(),
    type: event.type,
    ticket_id: ticketIdOfStream(event.streamId),
    position: event.streamPosition,
    occurred_at: isoOf(json.at, event.createdAt),
    recorded_at: event.createdAt.toISOString(),
    actor: actorWire(json.by) as EventWire["actor"],
    data: snakeKeys(visibleData(event.type, json, visibility)) as Json
  }
}
