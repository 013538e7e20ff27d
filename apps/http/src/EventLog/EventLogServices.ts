import { Layer } from "effect"
import { EventFeed } from "./EventFeed.js"
import { TicketHistory } from "./TicketHistory.js"

/** What the `events` group's handlers use; needs the `PostgresEventStore` (which `TicketServicesLive` provides). */
export const EventLogServicesLive = Layer.mergeAll(EventFeed.Default, TicketHistory.Default)
