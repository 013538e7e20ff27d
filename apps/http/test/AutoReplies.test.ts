import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { AUTO_REPLY_PLACEHOLDERS, renderAutoReply, unknownPlaceholders } from "../src/AutoReplies/AutoReplyTemplate.js"
import { Inboxes } from "../src/Inboxes/Inboxes.js"
import { get, patch, post, put, TestAppLive } from "./support/TestApp.js"
import { ENGLISH, organization, outbox, type TicketOrg, ticket, ticketPath } from "./TicketsSupport.js"

const values = { customer_name: "Jane", ticket_public_id: "42", next_open: "Mon 09:00", organization_name: "Acme" }

describe("auto-reply templates", () => {
  it("replaces every known placeholder, with or without spaces inside the braces", () => {
    expect(
      renderAutoReply(
        "Hi {{customer_name}}, #{{ ticket_public_id }} at {{organization_name}}; back {{next_open}}.",
        values
      )
    ).toBe("Hi Jane, #42 at Acme; back Mon 09:00.")
  })
  it("leaves unknown placeholders and lone braces as written", () => {
    expect(renderAutoReply("{{nope}} {single} {{customer_name}}", values)).toBe("{{nope}} {single} Jane")
  })
  it("names the unknown placeholders once each, in order", () => {
    expect(unknownPlaceholders("{{b}} {{customer_name}} {{a}} {{b}}")).toEqual(["b", "a"])
    expect(
      unknownPlaceholders(
        Object.keys(AUTO_REPLY_PLACEHOLDERS)
          .map((n) => `{{${n}}}`)
          .join(" ")
      )
    ).toEqual([])
  })
})

const allDay = { opens_at: "00:00", closes_at: "24:00" }
const everyDay = { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay }

/** The organization's default inbox, patched with `settings`. */
const configureDefaultInbox = (org: TicketOrg, settings: Record<string, unknown>) =>
  Effect.gen(function* () {
    const inbox = yield* Effect.flatMap(Inboxes, (inboxes) => inboxes.defaultFor(org.organizationId))
    const patched = yield* patch(`${org.path}inboxes/${inbox.id}/`, { token: org.ownerToken, json: settings })
    assert.strictEqual(patched.status, 200, patched.text)
    return inbox.id
  })

const customerTicket = (org: TicketOrg, body: Record<string, unknown> = {}) =>
  ticket(
    org,
    {
      created_by_role: "customer",
      origin: "email",
      customer_name: "Jane Roe",
      customer_email: "jane@example.com",
      ...body
    },
    org.integration
  )

const messagesOf = (org: TicketOrg, id: number) =>
  Effect.map(get(ticketPath(org, id, "messages/"), { token: org.ownerToken }), (r) => r.body.results)

const templates = {
  auto_reply_during_enabled: true,
  auto_reply_during_template: "Hi {{customer_name}}, we got ticket #{{ticket_public_id}} and answer soon.",
  auto_reply_outside_enabled: true,
  auto_reply_outside_template: "Hi {{customer_name}}, we are closed; we open {{next_open}} ({{organization_name}})."
}

layer(TestAppLive, { excludeTestServices: true })("auto-replies", (it) => {
  it.effect("given open hours, a new customer ticket gets the during-hours reply, e-mailed and tracked", () =>
    Effect.gen(function* () {
      const org = yield* organization
      yield* put(`${org.path}business-hours/`, {
        token: org.ownerToken,
        json: { timezone: "Europe/Berlin", weekly_hours: everyDay }
      })
      yield* configureDefaultInbox(org, templates)
      const created = yield* customerTicket(org)
      const messages = yield* messagesOf(org, created.id)
      assert.strictEqual(messages.length, 1)
      const reply = messages[0]
      assert.strictEqual(reply.role, "system")
      assert.strictEqual(reply.content, `Hi Jane Roe, we got ticket #${created.public_id} and answer soon.`)
      assert.isTrue(reply.is_visible_to_customer)
      assert.strictEqual(reply.delivery_status, "pending")
      const queued = yield* outbox(created.id)
      assert.deepStrictEqual(
        queued.map((row) => [row.kind, Number(row.messageId), row.payload.to, row.payload.text]),
        [["message", reply.id, "jane@example.com", reply.content]]
      )
      // The customer still waits for a person: an automatic answer does not move waiting_on or the status.
      const read = yield* get(ticketPath(org, created.id), { token: org.ownerToken })
      assert.strictEqual(read.body.waiting_on, "associate")
      assert.strictEqual(read.body.status, "created")
    })
  )

  it.effect("given closed hours (exceptions included), the outside-hours reply names the next opening", () =>
    Effect.gen(function* () {
      const org = yield* organization
      // Closed every day of the week, with one exceptional open day far ahead: closed now, whenever the test runs.
      yield* put(`${org.path}business-hours/`, { token: org.ownerToken, json: { timezone: "UTC", weekly_hours: {} } })
      const opened = yield* post(`${org.path}business-hours/exceptions/`, {
        token: org.ownerToken,
        json: { date: "2099-01-05", name: "Open day", opens_at: "09:00", closes_at: "17:00" }
      })
      assert.strictEqual(opened.status, 201, opened.text)
      const hours = yield* get(`${org.path}business-hours/`, { token: org.ownerToken })
      assert.isFalse(hours.body.is_open_now)
      yield* configureDefaultInbox(org, templates)
      const created = yield* customerTicket(org)
      const [reply] = yield* messagesOf(org, created.id)
      assert.strictEqual(
        reply.content,
        `Hi Jane Roe, we are closed; we open ${hours.body.next_open_display} (${org.organization.name}).`
      )
      assert.notStrictEqual(hours.body.next_open_display, "")
    })
  )

  it.effect("without a schedule the organization is open, so only the during-hours reply can be sent", () =>
    Effect.gen(function* () {
      const org = yield* organization
      yield* configureDefaultInbox(org, { ...templates, auto_reply_during_enabled: false })
      const created = yield* customerTicket(org)
      assert.deepStrictEqual(yield* messagesOf(org, created.id), [])
      assert.deepStrictEqual(yield* outbox(created.id), [])
    })
  )

  it.effect("a ticket an associate creates, or one in an inbox without auto-replies, gets none", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const quiet = yield* customerTicket(org)
      assert.deepStrictEqual(yield* messagesOf(org, quiet.id), [])
      yield* configureDefaultInbox(org, templates)
      const byAssociate = yield* ticket(org, { description: ENGLISH })
      assert.deepStrictEqual(yield* messagesOf(org, byAssociate.id), [])
      assert.deepStrictEqual(
        (yield* outbox(byAssociate.id)).map((row) => row.kind),
        ["ticket_created"]
      )
    })
  )

  it.effect("an enabled but blank template sends nothing; a customer without e-mail gets the reply unmailed", () =>
    Effect.gen(function* () {
      const org = yield* organization
      yield* configureDefaultInbox(org, { auto_reply_during_enabled: true, auto_reply_during_template: "   " })
      const blank = yield* customerTicket(org)
      assert.deepStrictEqual(yield* messagesOf(org, blank.id), [])
      yield* configureDefaultInbox(org, templates)
      const chat = yield* customerTicket(org, { channel_type: "telegram", origin: "telegram" })
      const [reply] = yield* messagesOf(org, chat.id)
      assert.strictEqual(reply.delivery_status, null)
      assert.deepStrictEqual(yield* outbox(chat.id), [])
    })
  )

  it.effect("a spam customer's new ticket gets no auto-reply and queues no e-mail; another customer's still does", () =>
    Effect.gen(function* () {
      const org = yield* organization
      yield* configureDefaultInbox(org, templates)
      const spammer = yield* post(`${org.path}customers/`, {
        token: org.ownerToken,
        json: { email: "offers@spam.example", name: "Offers", is_spam: true }
      })
      assert.strictEqual(spammer.status, 201, spammer.text)
      const fromSpammer = yield* customerTicket(org, { customer_id: spammer.body.id, customer_email: undefined })
      assert.deepStrictEqual(yield* messagesOf(org, fromSpammer.id), [])
      assert.deepStrictEqual(yield* outbox(fromSpammer.id), [])
      const fromCustomer = yield* customerTicket(org)
      const [reply] = yield* messagesOf(org, fromCustomer.id)
      assert.strictEqual(reply.role, "system")
      assert.deepStrictEqual(
        (yield* outbox(fromCustomer.id)).map((row) => [row.kind, row.payload.to]),
        [["message", "jane@example.com"]]
      )
    })
  )

  it.effect("an inbox template with an unknown placeholder is refused with a field error naming it", () =>
    Effect.gen(function* () {
      const org = yield* organization
      const { id } = yield* Effect.flatMap(Inboxes, (inboxes) => inboxes.defaultFor(org.organizationId))
      const response = yield* patch(`${org.path}inboxes/${id}/`, {
        token: org.ownerToken,
        json: { auto_reply_outside_template: "Hi {{ name }}, {{customer_name}}" }
      })
      assert.strictEqual(response.status, 400)
      assert.match(
        response.body.auto_reply_outside_template[0],
        /Unknown placeholder \{\{name\}\}\. Use \{\{customer_name\}\}/
      )
    })
  )
})
