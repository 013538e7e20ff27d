import type { GlobalCheckpoint, OrganizationId } from "@helpdesk/domain"
import { Duration, Effect } from "effect"
import { PostgresEventStore } from "../EventStore/PostgresEventStore.js"
import { withSpan } from "../Observability/Spans.js"
import { encodeCursor } from "./Cursor.js"
import { currentEventJson, type EventWire, renderEvent, type Visibility } from "./EventWire.js"

/** An event of the feed: its wire form and the cursor to resume after it. */
export type FeedEvent = EventWire & { readonly cursor: string }

/** One answer of the feed: the events (at most `limit`) and where the next read starts. */
export interface FeedPage {
  readonly events: ReadonlyArray<FeedEvent>
  readonly checkpoint: GlobalCheckpoint
}

/** What a feed read asks for. */
export interface FeedRequest {
  readonly organizationId: OrganizationId
  readonly after: GlobalCheckpoint
  readonly limit: number
  /** Only these event types (absent: all). */
  readonly types?: ReadonlyArray<string>
  /** How long to wait for an event when there is none yet (0: answer at once). */
  readonly wait: Duration.Duration
  readonly visibility: Visibility
}

/** How often a waiting read looks again (decision 0306: polling, the same on PostgreSQL and PGlite). */
export const FEED_POLL_INTERVAL = Duration.millis(200)

/**
 * An organization's change feed: its events in the global log's order (transaction id, position) after a cursor,
 * read with the log's rule (`PostgresEventStore.readAll`: never past a transaction still running, so no event that
 * commits late is skipped), narrowed to the organization (`hd_events.organization_id`) and to event types.
 * Events the reader may not see (internal notes) are left out, and the cursor moves past them.
 */
export class EventFeed extends Effect.Service<EventFeed>()("@helpdesk/http/EventLog/EventFeed", {
  // Its `PostgresEventStore` is the service's (`TicketServicesLive`), with the ticket read models inline.
  dependencies: [],
  effect: Effect.gen(function* () {
    const store = yield* PostgresEventStore

    /** One read: the visible events of the next `limit` of the organization's log. */
    const readOnce = (request: FeedRequest, from: GlobalCheckpoint) =>
      Effect.map(
        store.readAll(
          from,
          request.limit,
          request.types === undefined
            ? { organizationId: request.organizationId }
            : { organizationId: request.organizationId, types: request.types }
        ),
        (batch) => {
          const events: Array<FeedEvent> = []
          for (const event of batch.events) {
            const wire = renderEvent(event, request.visibility, currentEventJson(event))
            if (wire !== undefined)
              events.push({
                ...wire,
                cursor: encodeCursor(event.checkpoint)
              })
          }
          return { events, checkpoint: batch.checkpoint, full: batch.events.length === request.limit }
        }
      )

    /** Where the organization's log ends now (`PostgresEventStore.head`): every event that shows later is after it. */
    const end = (organizationId: OrganizationId): Effect.Effect<GlobalCheckpoint> => store.head({ organizationId })

    /**
     * The next page after `request.after`. With a `wait`, an empty answer waits for events, looking every
     * {@link FEED_POLL_INTERVAL}, and answers as soon as one is visible (or empty when the wait is over).
     */
    const page = (request: FeedRequest): Effect.Effect<FeedPage> =>
      Effect.gen(function* () {
        const deadline = Date.now() + Duration.toMillis(request.wait)
        let from = request.after
        while (true) {
          const read = yield* readOnce(request, from)
          from = read.checkpoint
          if (read.events.length > 0) return { events: read.events, checkpoint: from }
          const left = deadline - Date.now()
          if (left <= 0) return { events: [], checkpoint: from }
          // A full batch of hidden events: more may follow at once.
          if (!read.full) yield* Effect.sleep(Duration.millis(Math.min(left, Duration.toMillis(FEED_POLL_INTERVAL))))
        }
      }).pipe(withSpan("EventFeed.page"))

    return { page, end } as const
  })
}) {}
