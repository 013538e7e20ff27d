import type { HttpApp } from "@effect/platform"
import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { PUBLIC_ID_PATTERN } from "../Auth/OrganizationAccess.js"
import * as TokenSecret from "../Auth/TokenSecret.js"
import { parseIntegerId } from "../Http/PathParams.js"
import { TicketQueries } from "./TicketQueries.js"
import { TicketResponses } from "./TicketResponses.js"

// The exact path of `GET …/tickets/{id}/`, without a query string (a URL with one goes the long way).
const TICKET_PATH = /^\/organizations\/([^/?]+)\/tickets\/([^/?]+)\/$/

/**
 * `GET …/tickets/{id}/`, the hottest read, answered before routing when it succeeds (decision 0657): a well-formed
 * token, a ticket that token may read, `200` with the ticket. Its one statement and its answer are the endpoint's
 * own (`TicketQueries.readableViewForToken`, `TicketResponses.ticket`); what it skips is the router and the
 * endpoint's middleware and decoding, which cost more than the statement. Every other request, and every answer
 * but that `200` (no or bad token, malformed ids, not found, a failure), goes on to the API, which answers as
 * documented. It runs inside the wire conventions, so a request with a malformed `Host` never reaches it and its
 * download links use the request's decided base URL (`Links.RequestBaseUrl`).
 */
export const ticketReadBeforeRouting = Effect.gen(function* () {
  const queries = yield* TicketQueries
  const responses = yield* TicketResponses
  return (app: HttpApp.Default): HttpApp.Default =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (request.method !== "GET") return app
      const path = TICKET_PATH.exec(request.url)
      if (path === null) return app
      const token = request.headers["x-service-token"]?.trim()
      const organizationId = path[1]!
      const ticketId = parseIntegerId(path[2]!)
      if (
        token === undefined ||
        ticketId === undefined ||
        !TokenSecret.isWellFormed(token) ||
        !PUBLIC_ID_PATTERN.test(organizationId)
      )
        return app
      return queries.readableViewForToken(TokenSecret.hash(token), organizationId, ticketId).pipe(
        Effect.flatMap(({ view }) => (view === undefined ? Effect.succeed(undefined) : responses.ticket(view))),
        // Answered here, a failure would skip the wire conventions' 500 body: the endpoint answers it instead.
        Effect.catchAllDefect(() => Effect.succeed(undefined)),
        Effect.flatMap((response) => (response === undefined ? app : Effect.succeed(response)))
      )
    })
})
