import { Layer } from "effect"
import { PostgresEventStoreLive } from "../EventStore/PostgresEventStore.js"
import { TicketReadModelsLive } from "../EventStore/TicketProjection.js"
import { TicketCommands } from "./TicketCommands.js"
import { TicketDirectory } from "./TicketDirectory.js"
import { TicketQueries } from "./TicketQueries.js"

/**
 * What the `tickets` group's handlers use: ticket writes and reads over the PostgreSQL event store, with the ticket
 * read models as its inline projection. Needs the directory services (`Inboxes`, `Customers`, `Tags`),
 * `PendingAttachments`, `PresetFilters` and the `SqlClient`, which `ServicesLive` provides.
 */
export const TicketServicesLive = Layer.mergeAll(TicketQueries.Default, TicketCommands.Default).pipe(
  Layer.provideMerge(TicketDirectory.Default),
  Layer.provideMerge(PostgresEventStoreLive),
  Layer.provideMerge(TicketReadModelsLive)
)
