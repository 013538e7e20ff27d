import { assert, layer } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { assertRefused, get, patch, post, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

/**
 * Ids and references (docs/decisions/0802-strict-ids-and-references.md): an id is a JSON integer or a string of
 * digits, nothing looser; a reference must name an object of the organization; an empty form value clears a
 * nullable field.
 */

const typeError = (type: string) => [`Incorrect type. Expected pk value, received ${type}.`]
const unknownPk = (pk: string | number) => [`Invalid pk "${pk}" - object does not exist.`]

/** A value an id field may accept: an integer or a digit string, which might name a real object. */
const mayBeAnId = (value: unknown) =>
  (typeof value === "number" && Number.isSafeInteger(value) && value >= 1) ||
  (typeof value === "string" && /^[0-9]+$/.test(value))

const merge = (
  org: Tickets.TicketOrg,
  id: number,
  body: { readonly json?: unknown; readonly form?: Record<string, string> }
) => post(Tickets.ticketPath(org, id, "merge/"), { token: org.ownerToken, ...body })

/** A new inbox of an organization, created over HTTP; answers its id. */
const newInbox = (org: Fixtures.OrgFixture) =>
  Effect.gen(function* () {
    const response = yield* post(`${org.path}inboxes/`, {
      token: org.ownerToken,
      json: { name: "Support", email_prefix: "support" }
    })
    assert.strictEqual(response.status, 201, response.text)
    return response.body.id as number
  })

layer(TestAppLive, { excludeTestServices: true })("lax decoding: ids and references", (it) => {
  it.effect("merge: a boolean, a fraction or a padded or signed string is not a ticket id, and nothing merges", () =>
    Effect.gen(function* () {
      const { org, t: source } = yield* Tickets.organizationWithTicket({ subject: "Duplicate" })
      const target = yield* Tickets.ticket(org, { subject: "Original" })
      const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string>]> = [
        [true, typeError("bool")],
        [false, typeError("bool")],
        [target.id + 0.5, typeError("float")],
        ["1e3", typeError("str")],
        [` ${target.id}`, typeError("str")],
        [`${target.id} `, typeError("str")],
        [`+${target.id}`, typeError("str")],
        [`${target.id}.0`, typeError("str")],
        [`0x${target.id.toString(16)}`, typeError("str")],
        ["", typeError("str")],
        [[target.id], typeError("list")],
        [{ id: target.id }, typeError("dict")],
        [null, ["This field may not be null."]],
        [0, unknownPk(0)],
        [-target.id, unknownPk(-target.id)],
        [2 ** 53, unknownPk(2 ** 53)],
        [1e20, unknownPk("100000000000000000000")],
        ["9223372036854775808", unknownPk("9223372036854775808")]
      ]
      for (const [into, messages] of cases) {
        const refused = yield* merge(org, source.id, { json: { into } })
        assertRefused(refused, { into: messages }, JSON.stringify(into))
      }
      for (const into of [` ${target.id}`, `+${target.id}`, `${target.id}.0`, "true"]) {
        const refused = yield* merge(org, source.id, { form: { into } })
        assert.strictEqual(refused.status, 400, `form ${into} → ${refused.text}`)
      }
      assert.isNull((yield* Tickets.readTicketBody(org, source.id)).merged_into)
      // A form's digits are still an id.
      const merged = yield* merge(org, source.id, { form: { into: String(target.id) } })
      assert.strictEqual(merged.status, 200, merged.text)
      assert.strictEqual(merged.body.merged_into.id, target.id)
    })
  )

  it.effect("every id field of the ticket and company bodies refuses booleans and padded strings", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const urgent = yield* Tickets.tag(org, "Urgent")
      const t = yield* Tickets.ticket(org)
      const base = { subject: "Hello", customer_email: "jane@example.com" }
      for (const [field, value] of [
        ["inbox_id", true],
        ["customer_id", true],
        ["assignee_id", ` ${org.ownerId}`],
        ["channel_connection_id", 1.5],
        ["tags", [`${urgent.id} `]]
      ] as const) {
        const created = yield* post(org.tickets, { token: org.ownerToken, json: { ...base, [field]: value } })
        assert.strictEqual(created.status, 400, `${field}: ${created.text}`)
        assert.property(created.body, field)
      }
      const assigned = yield* Tickets.updateTicket(org, t.id, { assignee_id: true })
      assert.deepStrictEqual(assigned.body, { assignee_id: typeError("bool") })
      const padded = yield* Tickets.updateTicket(org, t.id, { assignee_id: `+${org.ownerId}` })
      assert.deepStrictEqual(padded.body, { assignee_id: typeError("str") })
      const tags = yield* Tickets.updateTicket(org, t.id, { tags: [true, urgent.id] })
      assert.deepStrictEqual(tags.body, { tags: { "0": typeError("bool") } })
      const reply = yield* post(Tickets.ticketPath(org, t.id, "messages/"), {
        token: org.ownerToken,
        json: { content: "Hi", next_assignee_id: false }
      })
      assert.deepStrictEqual(reply.body, { next_assignee_id: typeError("bool") })
      const after = yield* Tickets.readTicketBody(org, t.id)
      assert.isNull(after.assignee)
      assert.deepStrictEqual(after.tags, [])

      const company = yield* post(`${org.path}companies/`, {
        token: org.ownerToken,
        json: { name: "Acme", default_assignee_id: true }
      })
      assert.deepStrictEqual(company.body, { default_assignee_id: typeError("bool") })
    })
  )

  it.effect("integer fields refuse booleans and padded strings too", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const filters = `${org.path}custom-preset-filters/`
      for (const position of [true, " 3", "3.0", "1e3"]) {
        const refused = yield* post(filters, { token: org.ownerToken, json: { name: "x", position } })
        assert.deepStrictEqual(refused.body, { position: ["A valid integer is required."] }, String(position))
      }
      const form = yield* post(filters, { token: org.ownerToken, form: { name: "x", position: "3" } })
      assert.strictEqual(form.status, 201, form.text)
      assert.strictEqual(form.body.position, 3)
    })
  )

  it.effect(
    "preset filter criteria: another organization's inbox and an unknown user are refused, nothing stored",
    () =>
      Effect.gen(function* () {
        const org = yield* Fixtures.organization()
        const other = yield* Fixtures.organization()
        const filters = `${org.path}custom-preset-filters/`
        const ownInbox = yield* newInbox(org)
        const foreignInbox = yield* newInbox(other)
        const unknownUser = other.ownerId + 1_000_000

        const refused = yield* post(filters, {
          token: org.ownerToken,
          json: { name: "Theirs", criteria: { inbox_ids: [ownInbox, foreignInbox], assignee_ids: [unknownUser] } }
        })
        assertRefused(refused, {
          criteria: { inbox_ids: unknownPk(foreignInbox), assignee_ids: unknownPk(unknownUser) }
        })
        const foreignMember = yield* post(filters, {
          token: org.ownerToken,
          json: { name: "Theirs", criteria: { assignee_ids: [other.ownerId] } }
        })
        assert.deepStrictEqual(foreignMember.body, { criteria: { assignee_ids: unknownPk(other.ownerId) } })
        assert.strictEqual((yield* get(filters, { token: org.ownerToken })).body.count, 0)

        const ours = yield* post(filters, {
          token: org.ownerToken,
          json: { name: "Ours", criteria: { inbox_ids: [ownInbox], assignee_ids: [org.ownerId] } }
        })
        assert.strictEqual(ours.status, 201, ours.text)
        const changed = yield* patch(`${filters}${ours.body.id}/`, {
          token: org.ownerToken,
          json: { name: "Renamed", criteria: { inbox_ids: [foreignInbox] } }
        })
        assertRefused(changed, { criteria: { inbox_ids: unknownPk(foreignInbox) } })
        const stored = (yield* get(`${filters}${ours.body.id}/`, { token: org.ownerToken })).body
        assert.strictEqual(stored.name, "Ours")
        assert.deepStrictEqual(stored.criteria.inbox_ids, [ownInbox])
        assert.deepStrictEqual(stored.criteria.assignee_ids, [org.ownerId])
      })
  )

  it.effect("an empty form value clears a nullable field: a customer's company, a ticket's assignee", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const acme = yield* post(`${org.path}companies/`, { token: org.ownerToken, json: { name: "Acme" } })
      assert.strictEqual(acme.status, 201, acme.text)
      const customer = yield* post(`${org.path}customers/`, {
        token: org.ownerToken,
        json: { email: "pat@example.com", company_id: acme.body.id }
      })
      assert.strictEqual(customer.status, 201, customer.text)
      const cleared = yield* patch(`${org.path}customers/${customer.body.id}/`, {
        token: org.ownerToken,
        form: { company_id: "" }
      })
      assert.strictEqual(cleared.status, 200, cleared.text)
      assert.isNull(cleared.body.company)

      const t = yield* Tickets.ticket(org, { assignee_id: org.ownerId })
      assert.strictEqual(t.assignee.id, org.ownerId)
      const unassigned = yield* patch(Tickets.ticketPath(org, t.id), {
        token: org.ownerToken,
        form: { assignee_id: "" }
      })
      assert.strictEqual(unassigned.status, 200, unassigned.text)
      assert.isNull(unassigned.body.assignee)
    })
  )

  it.effect("property: any JSON value that is not an integer id gets 400 under the field, never a 500", () =>
    Effect.gen(function* () {
      const { org, t: source } = yield* Tickets.organizationWithTicket({ subject: "Duplicate" })
      yield* Tickets.ticket(org, { subject: "Original" })
      const values = FastCheck.sample(
        FastCheck.oneof(
          FastCheck.jsonValue(),
          FastCheck.boolean(),
          FastCheck.double({ noNaN: true, noDefaultInfinity: true }),
          FastCheck.string(),
          FastCheck.constantFrom(" 1", "1 ", "+1", "1.0", "1e3", "0x1", "١", "1_000", "Infinity", "NaN")
        ).filter((value) => !mayBeAnId(value)),
        { numRuns: 120, seed: 802 }
      )
      for (const value of values) {
        const merged = yield* merge(org, source.id, { json: { into: value } })
        assert.strictEqual(merged.status, 400, `into ${JSON.stringify(value)} → ${merged.text}`)
        assert.deepStrictEqual(Object.keys(merged.body), ["into"], JSON.stringify(value))
        if (value === null || value === "") continue // a nullable id: null and "" clear it
        const assigned = yield* Tickets.updateTicket(org, source.id, { assignee_id: value })
        assert.strictEqual(assigned.status, 400, `assignee_id ${JSON.stringify(value)} → ${assigned.text}`)
        assert.deepStrictEqual(Object.keys(assigned.body), ["assignee_id"], JSON.stringify(value))
      }
      const after = yield* Tickets.readTicketBody(org, source.id)
      assert.isNull(after.merged_into)
      assert.isNull(after.assignee)
    })
  )
})
