import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { PendingAttachments } from "../src/Attachments/PendingAttachments.js"
import { Inboxes } from "../src/Inboxes/Inboxes.js"
import type { Criteria } from "../src/PresetFilters/Criteria.js"
import { EMPTY_CRITERIA } from "../src/PresetFilters/Criteria.js"
import { PresetFilters } from "../src/PresetFilters/PresetFilters.js"
import { ServicesLive } from "../src/Services.js"
import { Tags } from "../src/Tags/Tags.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, patch, post, TestAppLive, type TestRequest, type TestResponse } from "./support/TestApp.js"

/** Helpers of the ticket tests: an organization with an integration token, tickets, tags, inboxes, filters. */

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** A long enough English text for language detection. */
export const ENGLISH =
  "Hello, the parcel I ordered two weeks ago has still not arrived and the tracking page shows no update since Monday. Could you please check what happened with my delivery?"

/** A long enough French text for language detection. */
export const FRENCH =
  "Bonjour, le colis que j'ai commandé il y a deux semaines n'est toujours pas arrivé et la page de suivi n'indique rien depuis lundi. Pourriez-vous vérifier ce qui se passe avec ma livraison ?"

/** The test app with `services` (a timer, a worker) over the ticket services of its database, for `layer(…)`. */
export const withTicketServices = <A, E, R>(services: Layer.Layer<A, E, R>) =>
  services.pipe(Layer.provide(TicketServicesLive), Layer.provide(ServicesLive), Layer.provideMerge(TestAppLive))

/** An hour from now, in ISO 8601 (a snooze that is still running). */
export const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString()

/** An organization, its owner's token and an integration token. */
export const organization = Effect.gen(function* () {
  const org = yield* Fixtures.organization()
  const integration = yield* Fixtures.integrationToken(org)
  return { ...org, integration, tickets: `${org.path}tickets/` }
})

export type TicketOrg = Effect.Effect.Success<typeof organization>

/** Creates a ticket (as the owner unless told) and answers the response. */
export const createTicket = (org: TicketOrg, body: Record<string, unknown>, options: TestRequest = {}) =>
  post(org.tickets, { token: org.ownerToken, json: body, ...options })

/** Creates a ticket and answers its body, failing the test when creation fails. */
export const ticket = (org: TicketOrg, body: Record<string, unknown> = {}, token?: string) =>
  Effect.flatMap(
    createTicket(
      org,
      { subject: "Parcel missing", description: ENGLISH, customer_email: "jane@example.com", ...body },
      { token: token ?? org.ownerToken }
    ),
    (response) =>
      response.status === 201
        ? Effect.succeed(response.body)
        : Effect.die(new Error(`ticket creation failed: ${response.status} ${response.text}`))
  )

/** A new {@link organization} and one {@link ticket} of it (created by the owner unless `token` says otherwise). */
export const organizationWithTicket = (body: Record<string, unknown> = {}, token?: string) =>
  Effect.gen(function* () {
    const org = yield* organization
    const t = yield* ticket(org, body, token)
    return { org, t }
  })

/** Two new organizations: the test's own and another, whose tickets and settings the first must never reach. */
export const organizationAndAnother = Effect.all([organization, organization])

/** Asserts a 400 whose body names `field` as invalid; `context` (a table's case) leads the failure message. */
export const assertInvalid = (response: TestResponse, field: string, context?: string) => {
  const message = context === undefined ? response.text : `${context}: ${response.text}`
  assert.strictEqual(response.status, 400, message)
  assert.property(response.body, field, message)
}

/** The ids of a listed page's results, in order. */
export const resultIds = (body: { results: ReadonlyArray<{ id: number }> }) => body.results.map((r) => r.id)

/** `…/tickets/{id}/` and below. */
export const ticketPath = (org: TicketOrg, id: number, rest = "") => `${org.tickets}${id}/${rest}`

/** Reads a ticket. */
export const readTicket = (org: TicketOrg, id: number) => get(ticketPath(org, id), { token: org.ownerToken })

/** Reads a ticket, failing the test unless it is 200, and answers its body. */
export const readTicketBody = (org: TicketOrg, id: number) =>
  Effect.map(readTicket(org, id), (response) => {
    assert.strictEqual(response.status, 200, response.text)
    return response.body
  })

/** A ticket an integration recorded from the customer (no reply yet). */
export const inboundTicket = (org: TicketOrg, body: Record<string, unknown> = {}) =>
  ticket(org, { created_by_role: "customer", ...body }, org.integration)

/** Posts a message as the owner (or with the token given). */
export const postMessage = (org: TicketOrg, id: number, body: Record<string, unknown>, token?: string) =>
  post(ticketPath(org, id, "messages/"), { token: token ?? org.ownerToken, json: body })

/** Posts the customer's reply `content`, recorded by the organization's integration. */
export const customerReply = (org: TicketOrg, id: number, content: string) =>
  postMessage(org, id, { content, role: "customer" }, org.integration)

/** Snoozes a ticket as the owner until the ISO instant `until`, and answers the response. */
export const snoozeTicket = (org: TicketOrg, id: number, until: string) =>
  post(ticketPath(org, id, "snooze/"), { token: org.ownerToken, json: { until } })

/** Unsnoozes a ticket as the owner, and answers the response. */
export const unsnoozeTicket = (org: TicketOrg, id: number) =>
  post(ticketPath(org, id, "unsnooze/"), { token: org.ownerToken })

/** PATCHes a ticket as the owner. */
export const updateTicket = (org: TicketOrg, id: number, body: Record<string, unknown>) =>
  patch(ticketPath(org, id), { token: org.ownerToken, json: body })

/** A pending text upload by the organization's owner (what `POST …/pending-attachments/` stores). */
export const upload = (org: TicketOrg, name: string, content = "hello") =>
  Effect.flatMap(PendingAttachments, (attachments) =>
    attachments.upload({
      organizationId: org.organizationId,
      caller: { _tag: "Person", userId: org.ownerId, tokenId: 0 },
      fileName: name,
      contentType: "text/plain",
      content: Stream.make(new TextEncoder().encode(content))
    })
  ).pipe(Effect.orDie)

/** A tag of the organization. */
export const tag = (org: TicketOrg, name: string, color = "") =>
  Effect.flatMap(Tags, (tags) => tags.create(org.organizationId, color === "" ? { name } : { name, color })).pipe(
    Effect.orDie
  )

/** Another inbox of the organization. */
export const inbox = (org: TicketOrg, name: string, emailPrefix: string) =>
  Effect.flatMap(Inboxes, (inboxes) =>
    inboxes.create(org.organizationId, { name, email_prefix: emailPrefix } as never)
  ).pipe(Effect.orDie)

/** A custom preset filter of the organization. */
export const presetFilter = (
  org: TicketOrg,
  criteria: Partial<Criteria>,
  visibility: "personal" | "organization" = "organization",
  createdById: number | null = org.ownerId
) =>
  Effect.flatMap(PresetFilters, (filters) =>
    filters.create(org.organizationId, {
      name: `Filter ${Math.random().toString(36).slice(2, 8)}`,
      criteria: { ...EMPTY_CRITERIA, ...criteria },
      visibility,
      createdById
    })
  ).pipe(Effect.orDie)

/** The outbox rows of a ticket. */
export const outbox = (ticketId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ kind: string; messageId: string | null; status: string; payload: Record<string, unknown> }>`
      SELECT kind, message_id, status, payload FROM hd_outbox WHERE ticket_id = ${ticketId} ORDER BY id`
  }).pipe(Effect.orDie)
