import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { Api } from "../Api.js"
import type { Role } from "../Auth/CurrentCaller.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { allows } from "../Auth/Permissions.js"
import { NotFound } from "../Http/Errors.js"
import { requestUrl } from "../Http/Links.js"
import * as Pagination from "../Http/Pagination.js"
import { parseIntegerId } from "../Http/PathParams.js"
import { TicketServicesLive } from "../Tickets/TicketServices.js"
import { encodeCursor } from "./Cursor.js"
import { EventFeed } from "./EventFeed.js"
import { EventLogServicesLive } from "./EventLogServices.js"
import type { Visibility } from "./EventWire.js"
import { parseFeedQuery } from "./FeedQuery.js"
import { TicketHistory } from "./TicketHistory.js"

/** What a role may see of the log (internal notes: the roles table's `internal_notes.read`). */
export const visibilityOf = (role: Role): Visibility => ({ internalNotes: allows("internal_notes.read", role) })

/** The request's URL with `after` set to `cursor` (other parameters kept). */
const nextLink = (request: HttpServerRequest.HttpServerRequest, cursor: string) =>
  Effect.map(requestUrl(request), (url) => {
    url.searchParams.set("after", cursor)
    return url.toString()
  })

/** Handlers of the `events` group: the change feed and a ticket's history. */
export const EventLogLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function* () {
    const access = yield* OrganizationAccess
    const feed = yield* EventFeed
    const history = yield* TicketHistory

    return handlers
      .handle("feed", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "events.read")
          const query = yield* parseFeedQuery(urlParams)
          const page = yield* feed.page({
            organizationId: scope.organizationId,
            after: query.after === "now" ? yield* feed.end(scope.organizationId) : query.after,
            limit: query.limit,
            ...(query.types === undefined ? {} : { types: query.types }),
            wait: query.wait,
            visibility: visibilityOf(scope.role)
          })
          const cursor = encodeCursor(page.checkpoint)
          return HttpServerResponse.unsafeJson({ next: yield* nextLink(request, cursor), cursor, results: page.events })
        })
      )
      .handle("ticketHistory", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "events.read")
          const ticketId = parseIntegerId(path.ticket_id)
          if (ticketId === undefined) return yield* new NotFound()
          const page = yield* Pagination.parse(urlParams)
          const entries = yield* history.of(scope.organizationId, ticketId, visibilityOf(scope.role))
          if (Option.isNone(entries)) return yield* new NotFound()
          const all = entries.value
          const found = yield* Pagination.paginate(request, page, {
            count: Effect.succeed(all.length),
            fetch: ({ limit, offset }) => Effect.succeed(all.slice(offset, offset + limit))
          })
          return HttpServerResponse.unsafeJson(found)
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, EventLogServicesLive]), Layer.provide(TicketServicesLive))
