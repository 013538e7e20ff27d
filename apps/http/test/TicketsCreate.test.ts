import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Tokens } from "../src/Auth/Tokens.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, post, TestApp, TestAppLive } from "./support/TestApp.js"
import { usesRealPostgres } from "./support/TestDatabase.js"
import * as Tickets from "./TicketsSupport.js"

const TICKET_FIELDS = [
  "id",
  "public_id",
  "subject",
  "inbox",
  "channel",
  "customer",
  "assignee",
  "kind",
  "summary",
  "customer_visible_reply_count",
  "status",
  "classification",
  "priority",
  "waiting_on",
  "created_at",
  "updated_at",
  "csat_response",
  "attachments",
  "has_attachments",
  "origin",
  "created_by",
  "external_recipient_emails",
  "bcc_recipient_emails",
  "from_email",
  "from_name",
  "snoozed_until",
  "snoozed_by",
  "last_snooze_ended_at",
  "last_unsnooze_reason",
  "merged_into",
  "merged_at",
  "merged_by",
  "delivery_status",
  "sent_at",
  "read_at",
  "failed_at",
  "delivery_failure_reason",
  "description",
  "description_html",
  "sentiment_analysis_class",
  "tags",
  "language",
  "is_spam",
  "sla_policy",
  "first_reply_due_at",
  "next_reply_due_at",
  "resolution_due_at",
  "sla_breached"
]

layer(TestAppLive, { excludeTestServices: true })("tickets: creation", (it) => {
  it.effect("POST …/tickets/ answers 201 with every field of the Ticket, and GET answers the same", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const { baseUrl } = yield* TestApp
      const billing = yield* Tickets.tag(org, "Billing", "#ff0000")
      const response = yield* Tickets.createTicket(org, {
        subject: "  Parcel missing  ",
        description: Tickets.ENGLISH,
        description_html: `<p>${Tickets.ENGLISH}</p>`,
        customer_email: "Jane.Doe@Example.COM",
        customer_name: "Jane Doe",
        priority: "high",
        tags: [billing.id],
        external_recipient_emails: ["boss@example.com", "Boss@example.com"],
        bcc_recipient_emails: ["audit@example.com"]
      })
      assert.strictEqual(response.status, 201, response.text)
      const t = response.body
      assert.deepStrictEqual(Object.keys(t).sort(), [...TICKET_FIELDS].sort())
      assert.isNumber(t.id)
      assert.strictEqual(response.headers.get("location"), `${baseUrl}${org.tickets}${t.id}/`)
      assert.strictEqual(t.public_id, "1")
      assert.strictEqual(t.subject, "Parcel missing")
      assert.isNumber(t.inbox.id)
      assert.deepStrictEqual(
        { ...t.inbox, id: 0 },
        { id: 0, name: "Support", email_prefix: "support", customer_interaction_style: "helpdesk" }
      )
      assert.deepStrictEqual(t.channel, { type: "api", connection_id: null })
      assert.isNumber(t.customer.id)
      assert.deepStrictEqual(
        { ...t.customer, id: 0 },
        {
          id: 0,
          name: "Jane Doe",
          email: "Jane.Doe@example.com",
          is_spam: false,
          company: null,
          is_company_manager: false
        }
      )
      assert.strictEqual(t.assignee, null)
      assert.strictEqual(t.kind, "text")
      assert.strictEqual(t.summary, "")
      assert.strictEqual(t.customer_visible_reply_count, 0)
      assert.strictEqual(t.status, "created")
      assert.strictEqual(t.classification, "")
      assert.strictEqual(t.priority, "high")
      assert.strictEqual(t.waiting_on, "customer")
      assert.match(t.created_at, Tickets.ISO_MS)
      assert.match(t.updated_at, Tickets.ISO_MS)
      assert.strictEqual(t.csat_response, null)
      assert.deepStrictEqual(t.attachments, [])
      assert.strictEqual(t.has_attachments, false)
      assert.strictEqual(t.origin, "api")
      assert.deepStrictEqual(t.created_by, {
        role: "associate",
        user: { id: org.ownerId, email: org.ownerEmail, profile_picture_url: "", name: "Owner" }
      })
      assert.deepStrictEqual(t.external_recipient_emails, ["boss@example.com"])
      assert.deepStrictEqual(t.bcc_recipient_emails, ["audit@example.com"])
      assert.strictEqual(t.from_email, "Jane.Doe@example.com")
      assert.strictEqual(t.from_name, "Jane Doe")
      for (const key of ["snoozed_until", "snoozed_by", "last_snooze_ended_at", "last_unsnooze_reason"])
        assert.strictEqual(t[key], null, key)
      for (const key of ["merged_into", "merged_at", "merged_by", "sent_at", "read_at", "failed_at"])
        assert.strictEqual(t[key], null, key)
      assert.strictEqual(t.delivery_status, "pending")
      assert.strictEqual(t.delivery_failure_reason, "")
      assert.strictEqual(t.description, Tickets.ENGLISH)
      assert.strictEqual(t.description_html, `<p>${Tickets.ENGLISH}</p>`)
      assert.strictEqual(t.sentiment_analysis_class, "pending")
      assert.deepStrictEqual(t.tags, [{ id: billing.id, name: "Billing", color: "#ff0000" }])
      assert.strictEqual(t.language, "en")
      assert.strictEqual(t.is_spam, false)

      const read = yield* Tickets.readTicket(org, t.id)
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, t)
    })
  )

  it.effect("an associate's ticket queues the create-email in the outbox; an inbound customer ticket does not", () =>
    Effect.gen(function* () {
      const { org, t: byAssociate } = yield* Tickets.organizationWithTicket()
      const rows = yield* Tickets.outbox(byAssociate.id)
      assert.strictEqual(rows.length, 1)
      assert.strictEqual(rows[0]!.kind, "ticket_created")
      assert.strictEqual(rows[0]!.messageId, null)
      assert.strictEqual(rows[0]!.status, "pending")
      assert.strictEqual(rows[0]!.payload.to, "jane@example.com")

      const inbound = yield* Tickets.ticket(org, { created_by_role: "customer", origin: "email" }, org.integration)
      assert.deepStrictEqual(inbound.created_by, { role: "customer", user: null })
      assert.strictEqual(inbound.delivery_status, null)
      assert.strictEqual(inbound.waiting_on, "associate")
      assert.deepStrictEqual(inbound.channel, { type: "email", connection_id: null })
      assert.strictEqual((yield* Tickets.outbox(inbound.id)).length, 0)

      const byIntegration = yield* Tickets.ticket(org, {}, org.integration)
      assert.deepStrictEqual(byIntegration.created_by, { role: "associate", user: null })
      assert.strictEqual(byIntegration.delivery_status, "pending")
    })
  )

  it.effect("the inbox: the default when omitted, the given one, and another organization's is refused", () =>
    Effect.gen(function* () {
      const [org, other] = yield* Tickets.organizationAndAnother
      // The first ticket provisions the default inbox ("Support") of an organization that has none.
      const inDefault = yield* Tickets.ticket(org)
      assert.strictEqual(inDefault.inbox.email_prefix, "support")
      const sales = yield* Tickets.inbox(org, "Sales", "sales")
      yield* Tickets.ticket(other)
      const foreign = yield* Tickets.inbox(other, "Foreign", "foreign")
      assert.strictEqual((yield* Tickets.ticket(org)).inbox.id, inDefault.inbox.id)
      const inSales = yield* Tickets.ticket(org, { inbox_id: sales.id })
      assert.deepStrictEqual(inSales.inbox, {
        id: sales.id,
        name: "Sales",
        email_prefix: "sales",
        customer_interaction_style: "helpdesk"
      })
      const refused = yield* Tickets.createTicket(org, {
        subject: "x",
        description: "y",
        customer_email: "a@example.com",
        inbox_id: foreign.id
      })
      assert.strictEqual(refused.status, 400)
      assert.deepStrictEqual(Object.keys(refused.body), ["inbox_id"])
    })
  )

  it.effect(
    "customers: created on the fly by e-mail (matched ignoring case), or named by id of this organization",
    () =>
      Effect.gen(function* () {
        const [org, other] = yield* Tickets.organizationAndAnother
        const first = yield* Tickets.ticket(org, { customer_email: "Sam@Example.com", customer_name: "Sam" })
        const second = yield* Tickets.ticket(org, { customer_email: "sam@example.com", customer_name: "Samuel" })
        assert.strictEqual(second.customer.id, first.customer.id)
        assert.strictEqual(second.customer.name, "Sam")
        const byId = yield* Tickets.ticket(org, { customer_email: undefined, customer_id: first.customer.id })
        assert.strictEqual(byId.customer.id, first.customer.id)
        const elsewhere = yield* Tickets.ticket(other, { customer_email: "sam@example.com" })
        assert.notStrictEqual(elsewhere.customer.id, first.customer.id)

        const foreign = yield* Tickets.createTicket(org, {
          subject: "x",
          description: "y",
          customer_id: elsewhere.customer.id
        })
        Tickets.assertInvalid(foreign, "customer_id")
        const none = yield* Tickets.createTicket(org, { subject: "x", description: "y" })
        Tickets.assertInvalid(none, "customer_id")
        const both = yield* Tickets.createTicket(org, {
          subject: "x",
          description: "y",
          customer_id: first.customer.id,
          customer_email: "sam@example.com"
        })
        assert.strictEqual(both.status, 400)
        const badEmail = yield* Tickets.createTicket(org, {
          subject: "x",
          description: "y",
          customer_email: "not-an-email"
        })
        assert.deepStrictEqual(badEmail.body, { customer_email: ["Enter a valid email address."] })
      })
  )

  it.effect(
    "public ids are 1, 2, 3 … without gaps under concurrent creation; a refused creation frees its number",
    () =>
      Effect.gen(function* () {
        const { org, t: first } = yield* Tickets.organizationWithTicket()
        assert.strictEqual(first.public_id, "1")
        const refused = yield* Tickets.createTicket(org, {
          subject: "x",
          description: "y",
          customer_email: "a@example.com",
          tags: [999_999]
        })
        assert.strictEqual(refused.status, 400)
        assert.deepStrictEqual(Object.keys(refused.body), ["tags"])
        // Embedded PGlite multiplexes every connection onto one session and mixes up concurrent transactions' answers
        // (a lookup sees no rows), so there the creations run one at a time; CI runs this on PostgreSQL.
        const parallel = usesRealPostgres ? 16 : 1
        const concurrent = yield* Effect.forEach(
          Array.from({ length: parallel }, (_, i) => i),
          (i) => Tickets.ticket(org, { subject: `Concurrent ${i}`, customer_email: `c${i}@example.com` }),
          { concurrency: parallel }
        )
        const numbers = concurrent.map((t) => Number(t.public_id)).sort((a, b) => a - b)
        assert.deepStrictEqual(
          numbers,
          Array.from({ length: parallel }, (_, i) => i + 2)
        )
        // Another organization counts on its own.
        const other = yield* Tickets.organization
        assert.strictEqual((yield* Tickets.ticket(other)).public_id, "1")
      })
  )

  it.effect("language: detected from subject and description (ISO 639-1), empty when the text is too short", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      assert.strictEqual(
        (yield* Tickets.ticket(org, { subject: "Colis perdu", description: Tickets.FRENCH })).language,
        "fr"
      )
      assert.strictEqual((yield* Tickets.ticket(org, { subject: "Hi", description: "Thanks!" })).language, "")
      const fromHtml = yield* Tickets.ticket(org, {
        description: undefined,
        description_html: `<div>${Tickets.FRENCH}</div>`
      })
      assert.strictEqual(fromHtml.description, Tickets.FRENCH)
      assert.strictEqual(fromHtml.language, "fr")
    })
  )

  it.effect("audio tickets: an empty description means speech-to-text is pending; HTML is refused", () =>
    Effect.gen(function* () {
      const { org, t: audio } = yield* Tickets.organizationWithTicket({ kind: "audio", description: "" })
      assert.strictEqual(audio.kind, "audio")
      assert.strictEqual(audio.description, "")
      assert.strictEqual(audio.language, "")
      const refused = yield* Tickets.createTicket(org, {
        subject: "Voicemail",
        kind: "audio",
        description_html: "<p>x</p>",
        customer_email: "a@example.com"
      })
      Tickets.assertInvalid(refused, "description_html")
    })
  )

  it.effect("form bodies work too (lists repeat the key)", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const a = yield* Tickets.tag(org, "a")
      const b = yield* Tickets.tag(org, "b")
      const response = yield* post(org.tickets, {
        token: org.ownerToken,
        form: {
          subject: "By form",
          description: "Sent as a form",
          customer_email: "form@example.com",
          tags: [String(a.id), String(b.id)],
          priority: "low",
          assignee_id: String(org.ownerId)
        }
      })
      assert.strictEqual(response.status, 201, response.text)
      assert.deepStrictEqual(
        response.body.tags.map((t: { id: number }) => t.id),
        [a.id, b.id]
      )
      assert.strictEqual(response.body.assignee.id, org.ownerId)
    })
  )

  it.effect("bad input gets 4xx field errors, never 500; limits hold at their edge", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const base = { subject: "x", description: "y", customer_email: "a@example.com" }
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ ...base, subject: undefined }, "subject"],
        [{ ...base, subject: "s".repeat(501) }, "subject"],
        [{ ...base, description: "" }, "description"],
        [{ ...base, kind: "video" }, "kind"],
        [{ ...base, priority: "asap" }, "priority"],
        [{ ...base, origin: "fax" }, "origin"],
        [{ ...base, channel_type: "pigeon" }, "channel_type"],
        [{ ...base, external_recipient_emails: ["nope"] }, "external_recipient_emails"],
        [{ ...base, bcc_recipient_emails: "audit@example.com" }, "bcc_recipient_emails"],
        [
          { ...base, external_recipient_emails: Array.from({ length: 51 }, (_, i) => `p${i}@example.com`) },
          "external_recipient_emails"
        ],
        [{ ...base, tags: ["a"] }, "tags"],
        [{ ...base, inbox_id: 0 }, "inbox_id"],
        [{ ...base, inbox_id: 987654 }, "inbox_id"],
        [{ ...base, assignee_id: 987654 }, "assignee_id"],
        [{ ...base, customer_name: "n".repeat(256) }, "customer_name"],
        [{ ...base, customer_email: `${"e".repeat(243)}@example.com` }, "customer_email"],
        // Only integration tokens create tickets on behalf of the customer.
        [{ ...base, created_by_role: "customer" }, "created_by_role"]
      ]
      for (const [body, field] of cases) {
        const response = yield* Tickets.createTicket(org, body)
        Tickets.assertInvalid(response, field, field)
      }
      assert.strictEqual((yield* Tickets.createTicket(org, { ...base, subject: "s".repeat(500) })).status, 201)
      assert.strictEqual(
        (yield* Tickets.createTicket(org, {
          ...base,
          external_recipient_emails: Array.from({ length: 50 }, (_, i) => `p${i}@example.com`)
        })).status,
        201
      )
      const malformed = yield* post(org.tickets, { token: org.ownerToken, body: "{", contentType: "application/json" })
      assert.strictEqual(malformed.status, 400)
      const array = yield* post(org.tickets, { token: org.ownerToken, json: [1] })
      assert.strictEqual(array.status, 400)
      const text = yield* post(org.tickets, { token: org.ownerToken, body: "x", contentType: "text/plain" })
      assert.strictEqual(text.status, 415)
    })
  )

  it.effect("every offending field at once: a malformed field, the missing description and the missing customer", () =>
    Effect.gen(function* () {
      const missing = yield* Tickets.createTicket(yield* Tickets.organization, { subject: "Only a subject" })
      assert.strictEqual(missing.status, 400)
      assert.deepStrictEqual(Object.keys(missing.body).sort(), ["customer_id", "description"], missing.text)
      const org = yield* Tickets.organization
      const all = yield* Tickets.createTicket(org, { priority: "asap", description: "  " })
      assert.strictEqual(all.status, 400)
      assert.deepStrictEqual(
        Object.keys(all.body).sort(),
        ["customer_id", "description", "priority", "subject"],
        all.text
      )
      assert.deepStrictEqual(all.body.subject, ["This field is required."])
      // A malformed customer address is reported as malformed, not as a missing customer.
      const bad = yield* Tickets.createTicket(org, { subject: "s", customer_email: "not-an-address" })
      assert.deepStrictEqual(Object.keys(bad.body).sort(), ["customer_email", "description"], bad.text)
      const both = yield* Tickets.createTicket(org, { subject: "s", customer_id: 1, customer_email: "a@example.com" })
      assert.deepStrictEqual(Object.keys(both.body).sort(), ["customer_id", "description"], both.text)
      assert.include(both.body.customer_id[0], "not both")
      // Form bodies are checked the same way.
      const form = yield* Tickets.createTicket(org, {}, { json: undefined, form: { subject: "s", kind: "audio" } })
      assert.deepStrictEqual(Object.keys(form.body), ["customer_id"], form.text)
    })
  )

  it.effect("roles: members read and create tickets; other organizations' tickets are 404", () =>
    Effect.gen(function* () {
      const [org, other] = yield* Tickets.organizationAndAnother
      const member = yield* Fixtures.member(org, "member")
      const outsider = yield* Fixtures.outsider
      const t = yield* Tickets.ticket(org)
      assert.strictEqual((yield* get(`${org.tickets}${t.id}/`, { token: member.token })).status, 200)
      const write = yield* Tickets.createTicket(
        org,
        { subject: "x", description: "y", customer_email: "a@example.com" },
        {
          token: member.token
        }
      )
      assert.strictEqual(write.status, 201, write.text)
      assert.strictEqual((yield* get(`${org.tickets}${t.id}/`, { token: outsider })).status, 404)
      assert.strictEqual((yield* get(`${other.tickets}${t.id}/`, { token: other.ownerToken })).status, 404)
      assert.strictEqual((yield* get(`${org.tickets}${t.id}/`, { token: other.integration })).status, 404)
      assert.strictEqual((yield* get(`${org.tickets}abc/`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* get(`${org.tickets}0/`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* get(`${org.tickets}99999999/`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* get(`${org.tickets}${t.id}/`)).status, 401)
    })
  )

  it.effect("GET ticket: every bad token is 401 before any 404, as on every endpoint", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket()
      const revoked = yield* Fixtures.member(org, "admin")
      assert.strictEqual((yield* get(`${org.tickets}${t.id}/`, { token: revoked.token })).status, 200)
      yield* (yield* Tokens).revoke(revoked.token)
      const unknown = `hd_pat_${"A".repeat(43)}`
      const paths = [
        `${org.tickets}${t.id}/`,
        `${org.tickets}abc/`,
        `${org.tickets}99999999/`,
        "/organizations/x!y/tickets/1/"
      ]
      for (const path of paths) {
        for (const token of [unknown, "garbage", `${org.ownerToken}x`, revoked.token]) {
          const response = yield* get(path, { token })
          assert.strictEqual(response.status, 401, `${path} ${token}`)
          assert.deepStrictEqual(response.body, { detail: "Invalid token." })
          assert.strictEqual(response.headers.get("www-authenticate"), "X-Service-Token")
        }
        const missing = yield* get(path)
        assert.strictEqual(missing.status, 401)
        assert.deepStrictEqual(missing.body, { detail: "Authentication credentials were not provided." })
      }
      // The integration token of the organization reads it; the owner's token is unaffected by the revocation.
      const byIntegration = yield* get(`${org.tickets}${t.id}/`, { token: org.integration })
      assert.strictEqual(byIntegration.status, 200)
      assert.strictEqual(byIntegration.body.id, t.id)
      assert.deepStrictEqual(yield* Tickets.readTicketBody(org, t.id), byIntegration.body)
      assert.strictEqual((yield* get("/organizations/x!y/tickets/1/", { token: org.ownerToken })).status, 404)
    })
  )
})
