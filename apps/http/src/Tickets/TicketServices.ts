import { Layer } from "effect"
import { PendingAttachmentsLive } from "../Attachments/PendingAttachments.js"
import { AutoReplies } from "../AutoReplies/AutoReplies.js"
import { CsatPolicy } from "../Csat/CsatPolicy.js"
import { CsatSurveys } from "../Csat/CsatSurveys.js"
import { PostgresEventStoreLive } from "../EventStore/PostgresEventStore.js"
import { TicketReadModelsLive } from "./ReadModel/TicketProjection.js"
import { PostgresTicketStoreLive } from "./Store/PostgresTicketStore.js"
import { TicketCommands } from "./TicketCommands.js"
import { TicketDirectory } from "./TicketDirectory.js"
import { TicketOutboxLive } from "./TicketOutbox.js"
import { TicketQueries } from "./TicketQueries.js"
import { TicketResponses } from "./TicketResponses.js"

/**
 * What the `tickets` group's handlers use: ticket writes and reads over the
 * PostgreSQL event store, with the ticket read models as its inline projection. Needs only the `SqlClient` and the
 * pool (each service brings its own dependencies). One layer value, so every group and worker that provides it
 * shares one event store, one ticket store and its fold cache within a build.
 */
export const TicketServicesLive = Layer.mergeAll(
  TicketQueries.Default,
  TicketCommands.Default,
  TicketResponses.Default
).pipe(
  Layer.provideMerge(TicketDirectory.Default),
  Layer.provideMerge(AutoReplies.Default),
  Layer.provideMerge(CsatPolicy.Default),
  Layer.provideMerge(CsatSurveys.Default),
  Layer.provideMerge(PostgresTicketStoreLive),
  Layer.provideMerge(PostgresEventStoreLive),
  Layer.provideMerge(TicketReadModelsLive),
  Layer.provideMerge(TicketOutboxLive),
  Layer.provideMerge(PendingAttachmentsLive)
)
