import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Tokens } from "../src/Auth/Tokens.js"
import { ticketReadBeforeRouting } from "../src/Tickets/TicketReadBeforeRouting.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, TestAppLive } from "./support/TestApp.js"
import { organizationAndAnother, organizationWithTicket, ticket } from "./TicketsSupport.js"

/** The rest of the API, as the read sees it: answers 418 and counts the requests handed on to it. */
const restOfApi = () => {
  const seen: Array<string> = []
  const app = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    seen.push(`${request.method} ${request.url}`)
    return HttpServerResponse.empty({ status: 418 })
  })
  return { app, seen }
}

/** Runs a request through `GET ticket` before routing, with `rest` behind it. */
const send = (
  rest: ReturnType<typeof restOfApi>,
  url: string,
  init: { readonly method?: string; readonly token?: string } = {}
) =>
  Effect.gen(function* () {
    const middleware = yield* ticketReadBeforeRouting
    const headers = new Headers(init.token === undefined ? {} : { "x-service-token": init.token })
    const request = new Request(new URL(url, "http://127.0.0.1"), { method: init.method ?? "GET", headers })
    const response = yield* middleware(rest.app).pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(request))
    )
    const body = response.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(response.body.body)) : null
    return { status: response.status, contentType: response.headers["content-type"], body }
  })

const TestLive = TicketServicesLive.pipe(Layer.provideMerge(TestAppLive))

layer(TestLive, { excludeTestServices: true })("GET ticket before routing (decision 0657)", (it) => {
  it.effect(
    "given a token that may read the ticket, it answers 200 with the endpoint's own body and goes no further",
    () =>
      Effect.gen(function* () {
        const { org, t } = yield* organizationWithTicket()
        const rest = restOfApi()
        const path = `${org.tickets}${t.id}/`
        const early = yield* send(rest, path, { token: org.ownerToken })
        assert.strictEqual(early.status, 200)
        assert.strictEqual(early.contentType, "application/json")
        assert.deepStrictEqual(rest.seen, [])
        // The endpoint behind the router (a query string takes that way) answers exactly the same.
        const routed = yield* get(`${path}?via=router`, { token: org.ownerToken })
        assert.strictEqual(routed.status, 200)
        assert.deepStrictEqual(early.body, routed.body)
        // And so does the running service on the plain path, whichever way it went.
        assert.deepStrictEqual((yield* get(path, { token: org.ownerToken })).body, routed.body)
        // The organization's integration token reads it the same way.
        const byIntegration = yield* send(rest, path, { token: org.integration })
        assert.strictEqual(byIntegration.status, 200)
        assert.deepStrictEqual(byIntegration.body, routed.body)
        assert.deepStrictEqual(rest.seen, [])
      })
  )

  it.effect("every other request, and every answer but that 200, is left to the API", () =>
    Effect.gen(function* () {
      const [org, other] = yield* organizationAndAnother
      const t = yield* ticket(org)
      const theirs = yield* ticket(other)
      const revoked = yield* Fixtures.member(org, "admin")
      yield* (yield* Tokens).revoke(revoked.token)
      const outsider = yield* Fixtures.outsider
      const path = `${org.tickets}${t.id}/`
      const handedOn: Array<[string, { readonly method?: string; readonly token?: string }]> = [
        [path, { method: "HEAD", token: org.ownerToken }],
        [path, { method: "PATCH", token: org.ownerToken }],
        [`${path}?x=1`, { token: org.ownerToken }],
        [`${path}messages/`, { token: org.ownerToken }],
        [`${org.tickets}${t.id}`, { token: org.ownerToken }],
        [path, {}],
        [path, { token: "garbage" }],
        [path, { token: `hd_pat_${"A".repeat(43)}` }],
        [path, { token: revoked.token }],
        [path, { token: outsider }],
        [`${org.tickets}${theirs.id}/`, { token: org.ownerToken }],
        [`${org.tickets}99999999/`, { token: org.ownerToken }],
        [`${org.tickets}0${t.id}/`, { token: org.ownerToken }],
        [`${org.tickets}abc/`, { token: org.ownerToken }],
        [`/organizations/x!y/tickets/${t.id}/`, { token: org.ownerToken }]
      ]
      for (const [url, init] of handedOn) {
        const rest = restOfApi()
        const response = yield* send(rest, url, init)
        assert.strictEqual(response.status, 418, `${init.method ?? "GET"} ${url} ${init.token ?? "(no token)"}`)
        assert.deepStrictEqual(rest.seen, [`${init.method ?? "GET"} ${url}`])
      }
    })
  )
})
