import { HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import * as Endpoint from "../Http/Endpoint.js"
import { IntegerId, OrganizationPath, OrganizationPublicId } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import * as Resource from "../Http/Resource.js"
import { EventWire } from "./EventWire.js"
import { FEED_DEFAULT_PAGE_SIZE, FEED_MAX_PAGE_SIZE, FEED_MAX_WAIT_SECONDS } from "./FeedQuery.js"

const TicketEventsPath = Schema.Struct({ organization_id: OrganizationPublicId, ticket_id: IntegerId })

/** An event of the feed: the event and the cursor that resumes after it. */
export const FeedEventWire = Schema.Struct({
  ...EventWire.fields,
  cursor: Schema.String.annotations({ description: "Pass as `after` to read what follows this event." })
}).annotations({ identifier: "FeedEvent" })

/** A page of the change feed. */
export const FeedPageWire = Schema.Struct({
  next: Schema.String.annotations({
    description:
      "Absolute URL of what follows (`after` = `cursor`, other parameters kept); never null: the feed goes on."
  }),
  cursor: Schema.String.annotations({
    description: "Where this page ends: the last event's cursor, or the one given when the page is empty."
  }),
  results: Schema.Array(FeedEventWire)
}).annotations({ identifier: "FeedPage" })

/** A field an event changed. */
export const ChangeWireSchema = Schema.Struct({
  field: Schema.String.annotations({
    description:
      "`status`, `classification`, `priority`, `waiting_on`, `assignee`, `tags`, `is_spam`, `snoozed_until`, `merged_into`, `sentiment`, `language` or `csat_rating`."
  }),
  from: Schema.Unknown.annotations({ description: "The value before (null when unset)." }),
  to: Schema.Unknown.annotations({ description: "The value after." })
}).annotations({ identifier: "EventChange" })

/** An entry of a ticket's history. */
export const HistoryEntryWire = Schema.Struct({
  ...EventWire.fields,
  summary: Schema.String.annotations({
    description: "What happened, for people: `Priority changed (priority: medium → high)`."
  }),
  changes: Schema.Array(ChangeWireSchema)
}).annotations({ identifier: "TicketHistoryEntry" })

const typesParam = Schema.optional(
  Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({
    jsonSchema: {
      type: "array",
      items: { type: "string" },
      description:
        "Only events of these types (e.g. `TicketClosed`); repeat the key or separate with commas. Unknown → 400."
    }
  })
)

/** `/organizations/{organization_id}/events/` and `…/tickets/{ticket_id}/events/`: the event log as a product. */
export class EventLogApi extends Resource.guarded(
  HttpApiGroup.make("events")
    .add(
      Endpoint.get("feed", "/organizations/:organization_id/events/", {
        summary: "Read the organization's change feed",
        description:
          "Every event of the organization's tickets, once each, in the order of the global log (transaction, then " +
          "position), after the cursor `after`. An event whose transaction is still running is not shown, nor anything " +
          "after it, until it ends: a reader never skips an event that commits late. Follow `next` (or pass " +
          "`cursor` as `after`) to read on; with `wait`, an empty answer waits for the next event. Internal notes " +
          "only for roles that may read them. The wire form of each event type: docs/events.md."
      })
        .setPath(OrganizationPath)
        .setUrlParams(
          Schema.Struct({
            after: Query.param(
              "A `cursor` from an earlier answer; `now`: only events from now on; absent: from the beginning. Malformed → 400."
            ),
            types: typesParam,
            wait: Query.param(
              `Seconds (0–${FEED_MAX_WAIT_SECONDS}) to wait for an event when there is none yet; the answer comes as soon as one is there.`
            ),
            page_size: Query.param(
              `Events per page (default ${FEED_DEFAULT_PAGE_SIZE}, maximum ${FEED_MAX_PAGE_SIZE}; larger values are clamped).`
            )
          })
        )
        .addSuccess(FeedPageWire)
    )
    .add(
      Endpoint.list(
        "ticketHistory",
        "/organizations/:organization_id/tickets/:ticket_id/events/",
        {
          summary: "Read a ticket's history",
          description:
            "The ticket's events in order, each with its actor, a readable `summary` and the fields it `changes` (old → " +
            "new). A merge shows on the surviving ticket as `TicketMergedFrom` (with the messages carried over) and on " +
            "the merged-away ticket as `TicketMergedInto`; each ticket's earlier events stay in its own history. " +
            "Internal notes only for roles that may read them."
        },
        HistoryEntryWire
      ).setPath(TicketEventsPath)
    ),
  "Events"
) {}
