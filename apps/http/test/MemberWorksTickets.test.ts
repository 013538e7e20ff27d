import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { del, get, patch, post, put, TestApp, TestAppLive } from "./support/TestApp.js"
import { ENGLISH, inAnHour, organization, resultIds, type TicketOrg, ticketPath } from "./TicketsSupport.js"

/**
 * A member is an agent (decision 0412): with nothing but a member's personal token, a ticket is worked from first
 * request to close; the configuration and the people stay with owners and admins.
 */

/** Uploads a small file as the caller, as a client does (multipart). */
const upload = (org: TicketOrg, token: string, name: string) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    const form = new FormData()
    form.append("file_upload", new Blob(["the receipt"], { type: "text/plain" }), name)
    const response = yield* Effect.promise(() =>
      fetch(`${baseUrl}${org.path}pending-attachments/`, {
        method: "POST",
        headers: { "x-service-token": token },
        body: form
      })
    )
    const text = yield* Effect.promise(() => response.text())
    assert.strictEqual(response.status, 201, text)
    return JSON.parse(text) as { readonly id: string }
  })

layer(TestAppLive, { excludeTestServices: true })("a member works tickets", (it) => {
  it.effect("a member token works a ticket end to end: create, reply, note, PATCH, snooze, merge, close", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const agent = yield* Fixtures.member(org, "member")
      const token = agent.token
      const me = { id: agent.userId, email: agent.email, profile_picture_url: "", name: "" }
      const tag = yield* post(`${org.path}tags/`, { token: org.ownerToken, json: { name: "delivery" } })

      // A customer and their company, created by the agent.
      const company = yield* post(`${org.path}companies/`, { token, json: { name: "Parcels Ltd" } })
      assert.strictEqual(company.status, 201, company.text)
      const customer = yield* post(`${org.path}customers/`, {
        token,
        json: { email: Fixtures.uniqueEmail("jane"), name: "Jane", company_id: company.body.id }
      })
      assert.strictEqual(customer.status, 201, customer.text)
      const renamed = yield* patch(`${org.path}customers/${customer.body.id}/`, {
        token,
        json: { name: "Jane Doe" }
      })
      assert.strictEqual(renamed.status, 200, renamed.text)

      // The ticket, with an upload of the agent's.
      const receipt = yield* upload(org, token, "receipt.txt")
      const created = yield* post(org.tickets, {
        token,
        json: {
          subject: "Parcel missing",
          description: ENGLISH,
          customer_id: customer.body.id,
          attachment_ids: [receipt.id]
        }
      })
      assert.strictEqual(created.status, 201, created.text)
      const t = created.body
      assert.deepStrictEqual(t.created_by, { role: "associate", user: me })
      assert.strictEqual(t.customer.id, customer.body.id)
      assert.strictEqual(t.has_attachments, true)

      // A reply to the customer, then an internal note with a file.
      const reply = yield* post(ticketPath(org, t.id, "messages/"), {
        token,
        json: { content: "We are looking into it." }
      })
      assert.strictEqual(reply.status, 201, reply.text)
      assert.deepStrictEqual(reply.body.author, me)
      assert.strictEqual(reply.body.is_visible_to_customer, true)
      const file = yield* upload(org, token, "tracking.txt")
      const note = yield* post(ticketPath(org, t.id, "messages/"), {
        token,
        json: { content: "Carrier says lost.", is_visible_to_customer: false, attachment_ids: [file.id] }
      })
      assert.strictEqual(note.status, 201, note.text)
      assert.strictEqual(note.body.is_visible_to_customer, false)
      assert.deepStrictEqual(note.body.author, me)
      const messages = yield* get(ticketPath(org, t.id, "messages/"), { token })
      assert.deepStrictEqual(resultIds(messages.body), [reply.body.id, note.body.id])

      // Assign to themself, prioritise, tag.
      const updated = yield* patch(ticketPath(org, t.id), {
        token,
        json: { assignee_id: agent.userId, priority: "high", tags: [tag.body.id] }
      })
      assert.strictEqual(updated.status, 200, updated.text)
      assert.deepStrictEqual(updated.body.assignee, me)
      assert.strictEqual(updated.body.priority, "high")
      assert.deepStrictEqual(
        updated.body.tags.map((x: { id: number }) => x.id),
        [tag.body.id]
      )

      // Snooze and wake it.
      const until = inAnHour()
      const snoozed = yield* post(ticketPath(org, t.id, "snooze/"), { token, json: { until } })
      assert.strictEqual(snoozed.status, 200, snoozed.text)
      assert.deepStrictEqual(snoozed.body.snoozed_by, me)
      const unsnoozed = yield* post(ticketPath(org, t.id, "unsnooze/"), { token })
      assert.strictEqual(unsnoozed.status, 200, unsnoozed.text)
      assert.strictEqual(unsnoozed.body.snoozed_until, null)

      // A duplicate from the same customer, merged into the ticket.
      const duplicate = yield* post(org.tickets, {
        token,
        json: { subject: "Parcel?", description: "Any news?", customer_id: customer.body.id }
      })
      assert.strictEqual(duplicate.status, 201, duplicate.text)
      const merged = yield* post(ticketPath(org, duplicate.body.id, "merge/"), { token, json: { into: t.id } })
      assert.strictEqual(merged.status, 200, merged.text)
      assert.strictEqual(merged.body.merged_into.id, t.id)
      assert.deepStrictEqual(merged.body.merged_by, me)

      // Closed as resolved, and found in the member's list.
      const closed = yield* patch(ticketPath(org, t.id), {
        token,
        json: { status: "closed", classification: "resolved" }
      })
      assert.strictEqual(closed.status, 200, closed.text)
      assert.strictEqual(closed.body.status, "closed")
      const listed = yield* get(`${org.tickets}?assignee_id=${agent.userId}`, { token })
      assert.strictEqual(listed.status, 200, listed.text)
      assert.include(resultIds(listed.body), t.id)
    })
  )

  it.effect("a member changes no settings, configuration or people (403 naming who may, where the table does)", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const agent = yield* Fixtures.member(org, "member")
      const token = agent.token
      const inbox = yield* post(`${org.path}inboxes/`, {
        token: org.ownerToken,
        json: { name: "Desk", email_prefix: `desk${agent.userId}` }
      })
      const generic = { detail: "You do not have permission to perform this action." }
      const refusals: ReadonlyArray<
        readonly [string, Effect.Effect<{ status: number; body: unknown }, never, TestApp>]
      > = [
        ["settings", patch(org.path, { token, json: { name: "Mine now" } })],
        ["inbox create", post(`${org.path}inboxes/`, { token, json: { name: "X", email_prefix: "x" } })],
        ["inbox change", patch(`${org.path}inboxes/${inbox.body.id}/`, { token, json: { name: "Y" } })],
        ["tag create", post(`${org.path}tags/`, { token, json: { name: "t" } })],
        ["business hours", put(`${org.path}business-hours/`, { token, json: { timezone: "UTC", weekly_hours: {} } })],
        [
          "business hours exception",
          post(`${org.path}business-hours/exceptions/`, { token, json: { date: "2026-12-24" } })
        ],
        ["help center", post(`${org.path}portal/collections/`, { token, json: { name: "Guides" } })],
        [
          "shared filter",
          post(`${org.path}custom-preset-filters/`, { token, json: { name: "All", visibility: "organization" } })
        ],
        ["add member", post(`${org.path}members/`, { token, json: { email: Fixtures.uniqueEmail() } })],
        ["remove owner", del(`${org.path}members/${org.ownerId}/`, { token })]
      ]
      for (const [what, send] of refusals) {
        const response = yield* send
        assert.strictEqual(response.status, 403, what)
        assert.isObject(response.body, what)
      }
      const settings = yield* patch(org.path, { token, json: { name: "Mine now" } })
      assert.deepStrictEqual(settings.body, generic)
      const shared = yield* post(`${org.path}custom-preset-filters/`, {
        token,
        json: { name: "All", visibility: "organization" }
      })
      assert.deepStrictEqual(shared.body, {
        detail: "Only owners, admins and integration tokens may create or change organization-shared filters."
      })
      assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).body.name, org.organization.name)
      // What is theirs stays theirs: a personal filter.
      const personal = yield* post(`${org.path}custom-preset-filters/`, { token, json: { name: "Mine" } })
      assert.strictEqual(personal.status, 201, personal.text)
    })
  )
})
