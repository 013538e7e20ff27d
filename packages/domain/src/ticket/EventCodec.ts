import { Either, ParseResult, Schema } from "effect"
import type { NewEvent, RecordedEvent } from "../EventStore.js"
import { type TicketEvent, type TicketEventType, ticketEventClasses } from "./Events.js"
import { upcasters } from "./Upcasters.js"

/** A stored event that cannot be turned into a ticket event (unknown type or version, or bad data). */
export class EventDecodeError extends Schema.TaggedError<EventDecodeError>()("EventDecodeError", {
  streamId: Schema.String,
  streamPosition: Schema.Number,
  type: Schema.String,
  schemaVersion: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `cannot decode ${this.type} v${this.schemaVersion} at ${this.streamId}@${this.streamPosition}: ${this.reason}`
  }
}

const isTicketEventType = (type: string): type is TicketEventType => Object.hasOwn(ticketEventClasses, type)

/** The current schema version of an event type. */
export const currentVersion = (type: TicketEventType): number => ticketEventClasses[type].version

const encoders = new Map<string, (e: TicketEvent) => unknown>()
const decoders = new Map<string, (u: unknown) => Either.Either<TicketEvent, ParseResult.ParseError>>()

const encoderFor = (type: TicketEventType) => {
  let encode = encoders.get(type)
  if (encode === undefined) {
    encode = Schema.encodeSync(ticketEventClasses[type] as unknown as Schema.Schema<TicketEvent, unknown>)
    encoders.set(type, encode)
  }
  return encode
}

/**
 * Decodes the class's fields as a plain struct, with Effect's own decoder, and gives the result the class's
 * prototype. That is what decoding through the class does, minus running its constructor, which costs several
 * times the decoding of the fields (defaults merged again, structural-equality set-up). The fields are the class's
 * own schema, so what is accepted or refused is the same (EventCodec tests check the instances are equal).
 */
const decoderFor = (type: TicketEventType) => {
  let decode = decoders.get(type)
  if (decode === undefined) {
    const eventClass = ticketEventClasses[type]
    const decodeFields = Schema.decodeUnknownEither(Schema.Struct(eventClass.fields))
    const prototype = eventClass.prototype as object
    decode = (u) =>
      Either.map(decodeFields(u), (fields) => Object.assign(Object.create(prototype), fields) as TicketEvent)
    decoders.set(type, decode)
  }
  return decode
}

/** The JSON form of an event (what goes into the store's `data`). */
export const encodeEventData = (event: TicketEvent): unknown => encoderFor(event._tag)(event)

/** An event ready for the port: type, current schema version and JSON data. */
export const toNewEvent = (event: TicketEvent, eventId: string, metadata?: Record<string, unknown>): NewEvent => ({
  eventId,
  type: event._tag,
  schemaVersion: currentVersion(event._tag),
  data: encodeEventData(event),
  ...(metadata === undefined ? {} : { metadata })
})

/** Where a stored event came from, for error messages. */
export interface EventOrigin {
  readonly streamId: string
  readonly streamPosition: number
}

/**
 * Decodes stored JSON of `type` at `schemaVersion`, upcasting older versions to the current one first.
 * Versions newer than this code knows are refused rather than guessed at.
 */
export const decodeEventData = (
  type: string,
  schemaVersion: number,
  data: unknown,
  origin: EventOrigin = { streamId: "", streamPosition: 0 }
): Either.Either<TicketEvent, EventDecodeError> => {
  const where = { streamId: origin.streamId, streamPosition: origin.streamPosition }
  const fail = (reason: string) => Either.left(new EventDecodeError({ ...where, type, schemaVersion, reason }))
  if (!isTicketEventType(type)) return fail("unknown event type")
  const current = currentVersion(type)
  if (!Number.isInteger(schemaVersion) || schemaVersion < 1 || schemaVersion > current) {
    return fail(`unknown schema version (current is ${current})`)
  }
  if (typeof data !== "object" || data === null) return fail("data is not a JSON object")
  let json = data as Record<string, unknown>
  for (let v = schemaVersion; v < current; v++) {
    const up = upcasters[type]?.[v]
    if (up === undefined) return fail(`no upcaster from version ${v}`)
    json = up(json)
  }
  return Either.mapLeft(
    decoderFor(type)(json._tag === type ? json : { ...json, _tag: type }),
    (e) => new EventDecodeError({ ...where, type, schemaVersion, reason: ParseResult.TreeFormatter.formatErrorSync(e) })
  )
}

/** Decodes a recorded event of a ticket stream. */
export const fromRecordedEvent = (recorded: RecordedEvent): Either.Either<TicketEvent, EventDecodeError> =>
  decodeEventData(recorded.type, recorded.schemaVersion, recorded.data, recorded)

/** Decodes every recorded event of a stream, stopping at the first that fails. */
export const fromRecordedEvents = (
  recorded: ReadonlyArray<RecordedEvent>
): Either.Either<ReadonlyArray<TicketEvent>, EventDecodeError> => {
  const events: Array<TicketEvent> = new Array(recorded.length)
  for (let i = 0; i < recorded.length; i++) {
    const decoded = fromRecordedEvent(recorded[i]!)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    events[i] = decoded.right
  }
  return Either.right(events)
}
