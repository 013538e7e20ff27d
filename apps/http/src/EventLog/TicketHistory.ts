import {
  describeTicketHistory,
  type FieldChange,
  fromRecordedEvents,
  type OrganizationId,
  ticketStreamId
} from "@helpdesk/domain"
import { Effect, Either, Option } from "effect"
import { PostgresEventStore } from "../EventStore/PostgresEventStore.js"
import { withSpan } from "../Observability/Spans.js"
import { currentEventJson, type EventWire, renderEvent, snakeKeys, type Visibility } from "./EventWire.js"

/** A change on the wire: a field's value before and after (values with snake_case keys). */
export interface ChangeWire {
  readonly field: string
  readonly from: unknown
  readonly to: unknown
}

/** An entry of a ticket's history: the event, a readable summary and the fields it changed. */
export type HistoryEntry = EventWire & {
  readonly summary: string
  readonly changes: ReadonlyArray<ChangeWire>
}

const changeWire = (change: FieldChange): ChangeWire => ({
  field: change.field,
  from: snakeKeys(change.from),
  to: snakeKeys(change.to)
})

/**
 * A ticket's history: every event of its stream in order, with what it changed (`describeTicketHistory` of the
 * domain, old → new from the fold). A survivor's history shows each merge as its `TicketMergedFrom` (with the
 * carried messages); the source's own events stay in the source's history (decision 0306).
 */
export class TicketHistory extends Effect.Service<TicketHistory>()("@helpdesk/http/EventLog/TicketHistory", {
  // Its `PostgresEventStore` is the service's (`TicketServicesLive`), with the ticket read models inline.
  dependencies: [],
  effect: Effect.gen(function* () {
    const store = yield* PostgresEventStore

    /** The ticket's history as the reader may see it; none when the organization has no such ticket. */
    const of = (
      organizationId: OrganizationId,
      ticketId: number,
      visibility: Visibility
    ): Effect.Effect<Option.Option<ReadonlyArray<HistoryEntry>>> =>
      Effect.gen(function* () {
        const recorded = yield* store.readStream(ticketStreamId(ticketId))
        const decoded = fromRecordedEvents(recorded)
        // An event this code cannot read is a defect, as for every other read of a ticket.
        if (Either.isLeft(decoded)) return yield* Effect.die(decoded.left)
        const events = decoded.right
        const first = events[0]
        if (first?._tag !== "TicketCreated" || first.organizationId !== organizationId) return Option.none()
        const described = describeTicketHistory(events)
        const entries: Array<HistoryEntry> = []
        recorded.forEach((event, i) => {
          const wire = renderEvent(event, visibility, currentEventJson(event))
          if (wire === undefined) return
          const { summary, changes } = described[i]!
          entries.push({ ...wire, summary, changes: changes.map(changeWire) })
        })
        return Option.some(entries)
      }).pipe(withSpan("TicketHistory.of"))

    return { of } as const
  })
}) {}
