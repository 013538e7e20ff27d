import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import * as Fuzz from "./support/Fuzz.js"
import { assertRefused, get, patch, post, TestApp, TestAppLive } from "./support/TestApp.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const createInbox = (org: Fixtures.OrgFixture, json: Record<string, unknown>) =>
  Effect.gen(function* () {
    const response = yield* post(`${org.path}inboxes/`, { token: org.ownerToken, json })
    assert.strictEqual(response.status, 201, response.text)
    return response.body
  })

layer(TestAppLive, { excludeTestServices: true })("inboxes over HTTP", (it) => {
  it.effect("POST creates an inbox with every field of the Inbox; the first is the default", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization("Acme Support")
      const { baseUrl } = yield* TestApp
      const response = yield* post(`${org.path}inboxes/`, {
        token: org.ownerToken,
        json: { name: "Support", email_prefix: "Support", is_default: false, id: 7, inbox_email_address: "x@y.z" }
      })
      assert.strictEqual(response.status, 201, response.text)
      const i = response.body
      assert.isNumber(i.id)
      assert.notStrictEqual(i.id, 7)
      assert.strictEqual(i.name, "Support")
      assert.strictEqual(i.email_prefix, "support")
      assert.strictEqual(i.inbox_email_address, `support@${org.organization.public_id}.helpdesk.localhost`)
      assert.deepStrictEqual(i.channel_connections, [])
      assert.match(i.created_at, ISO_MS)
      assert.match(i.updated_at, ISO_MS)
      assert.strictEqual(i.is_default, true)
      for (const key of [
        "auto_reply_during_enabled",
        "auto_reply_outside_enabled",
        "enable_inactivity_reminders",
        "enable_auto_close_inactive_tickets"
      ])
        assert.strictEqual(i[key], false, key)
      for (const key of ["auto_reply_during_template", "auto_reply_outside_template", "signature", "email_from_name"])
        assert.strictEqual(i[key], "", key)
      assert.strictEqual(i.customer_max_inactivity_period, 0)
      assert.strictEqual(i.customer_inactivity_reminder_period, 0)
      assert.strictEqual(i.customer_max_inactivity_period_inherited, true)
      assert.strictEqual(i.customer_inactivity_reminder_period_inherited, true)
      assert.strictEqual(i.customer_interaction_style, "helpdesk")
      assert.deepStrictEqual(Object.keys(i).sort(), [
        "auto_reply_during_enabled",
        "auto_reply_during_template",
        "auto_reply_outside_enabled",
        "auto_reply_outside_template",
        "channel_connections",
        "created_at",
        "customer_inactivity_reminder_period",
        "customer_inactivity_reminder_period_inherited",
        "customer_interaction_style",
        "customer_max_inactivity_period",
        "customer_max_inactivity_period_inherited",
        "email_from_name",
        "email_prefix",
        "enable_auto_close_inactive_tickets",
        "enable_inactivity_reminders",
        "id",
        "inbox_email_address",
        "is_default",
        "name",
        "signature",
        "updated_at"
      ])
      assert.strictEqual(response.headers.get("location"), `${baseUrl}${org.path}inboxes/${i.id}/`)
      assert.deepStrictEqual((yield* get(`${org.path}inboxes/${i.id}/`, { token: org.ownerToken })).body, i)
    })
  )

  it.effect("every setting is writable on create and PATCH", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const settings = {
        auto_reply_during_enabled: true,
        auto_reply_outside_enabled: true,
        auto_reply_during_template: "We got it.",
        auto_reply_outside_template: "We are closed.",
        enable_inactivity_reminders: true,
        enable_auto_close_inactive_tickets: true,
        customer_max_inactivity_period: 14,
        customer_inactivity_reminder_period: 3,
        signature: "-- The team",
        email_from_name: "Acme Help",
        customer_interaction_style: "helpdesk"
      }
      const created = yield* createInbox(org, { name: "Main", email_prefix: "main", ...settings })
      for (const [key, value] of Object.entries(settings)) assert.deepStrictEqual(created[key], value, key)
      assert.strictEqual(created.customer_max_inactivity_period_inherited, false)
      const patched = yield* patch(`${org.path}inboxes/${created.id}/`, {
        token: org.ownerToken,
        json: { name: "Main desk", email_prefix: "desk", auto_reply_during_enabled: false, signature: "" }
      })
      assert.strictEqual(patched.status, 200)
      assert.strictEqual(patched.body.name, "Main desk")
      assert.strictEqual(patched.body.email_prefix, "desk")
      assert.strictEqual(patched.body.inbox_email_address, `desk@${org.organization.public_id}.helpdesk.localhost`)
      assert.strictEqual(patched.body.auto_reply_during_enabled, false)
      assert.strictEqual(patched.body.signature, "")
      assert.strictEqual(patched.body.auto_reply_outside_template, "We are closed.")
      const style = yield* patch(`${org.path}inboxes/${created.id}/`, {
        token: org.ownerToken,
        json: { customer_interaction_style: "chat" }
      })
      assert.deepStrictEqual(style.body, {
        customer_interaction_style: ['"chat" is not a valid choice. Allowed: helpdesk.']
      })
    })
  )

  it.effect("inactivity periods: whole days 0..3650, null falls back to the organization's", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      yield* patch(org.path, {
        token: org.ownerToken,
        json: { customer_max_inactivity_period: 30, customer_inactivity_reminder_period: 5 }
      })
      const inbox = yield* createInbox(org, { name: "A", email_prefix: "a", customer_max_inactivity_period: null })
      assert.strictEqual(inbox.customer_max_inactivity_period, 30)
      assert.strictEqual(inbox.customer_inactivity_reminder_period, 5)
      const path = `${org.path}inboxes/${inbox.id}/`
      const max = yield* patch(path, { token: org.ownerToken, json: { customer_max_inactivity_period: 3650 } })
      assert.strictEqual(max.body.customer_max_inactivity_period, 3650)
      assert.strictEqual(max.body.customer_max_inactivity_period_inherited, false)
      const over = yield* patch(path, {
        token: org.ownerToken,
        json: { customer_max_inactivity_period: 3651, customer_inactivity_reminder_period: -1 }
      })
      assertRefused(over, {
        customer_max_inactivity_period: ["Ensure this value is less than or equal to 3650."],
        customer_inactivity_reminder_period: ["Ensure this value is greater than or equal to 0."]
      })
      const fraction = yield* patch(path, { token: org.ownerToken, json: { customer_max_inactivity_period: 1.5 } })
      assert.deepStrictEqual(fraction.body, { customer_max_inactivity_period: ["A valid integer is required."] })
      const inherit = yield* patch(path, { token: org.ownerToken, json: { customer_max_inactivity_period: null } })
      assert.strictEqual(inherit.body.customer_max_inactivity_period, 30)
      assert.strictEqual(inherit.body.customer_max_inactivity_period_inherited, true)
      const form = yield* patch(path, { token: org.ownerToken, form: { customer_inactivity_reminder_period: "0" } })
      assert.strictEqual(form.body.customer_inactivity_reminder_period, 0)
      assert.strictEqual(form.body.customer_inactivity_reminder_period_inherited, false)
    })
  )

  it.effect("name and email_prefix are required and validated; the prefix is unique in the organization", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const path = `${org.path}inboxes/`
      const missing = yield* post(path, { token: org.ownerToken, json: {} })
      assert.deepStrictEqual(missing.body, {
        name: ["This field is required."],
        email_prefix: ["This field is required."]
      })
      const longName = yield* post(path, { token: org.ownerToken, json: { name: "n".repeat(256), email_prefix: "x" } })
      assert.deepStrictEqual(longName.body, { name: ["Ensure this field has no more than 255 characters."] })
      assert.strictEqual(
        (yield* post(path, { token: org.ownerToken, json: { name: "n".repeat(255), email_prefix: "p".repeat(64) } }))
          .status,
        201
      )
      const longPrefix = yield* post(path, { token: org.ownerToken, json: { name: "x", email_prefix: "p".repeat(65) } })
      assert.deepStrictEqual(longPrefix.body, { email_prefix: ["Ensure this field has no more than 64 characters."] })
      for (const bad of ["with space", "a..b", "-lead", "trail-", "ünï", "a@b", "a/b"]) {
        const response = yield* post(path, { token: org.ownerToken, json: { name: "x", email_prefix: bad } })
        assertRefused(
          response,
          {
            email_prefix: [
              "Enter a valid email prefix: lowercase letters and digits, with single '-', '_' or '.' between them."
            ]
          },
          bad
        )
      }
      yield* createInbox(org, { name: "Billing", email_prefix: "billing.team" })
      const taken = yield* post(path, { token: org.ownerToken, json: { name: "Other", email_prefix: "Billing.Team" } })
      assertRefused(taken, { email_prefix: ["An inbox with this email prefix already exists."] })
      const elsewhere = yield* post(`${other.path}inboxes/`, {
        token: other.ownerToken,
        json: { name: "Billing", email_prefix: "billing.team" }
      })
      assert.strictEqual(elsewhere.status, 201)
    })
  )

  it.effect("exactly one default: making another the default moves the flag; unsetting it is refused", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const a = yield* createInbox(org, { name: "A", email_prefix: "a" })
      const b = yield* createInbox(org, { name: "B", email_prefix: "b" })
      assert.isTrue(a.is_default)
      assert.isFalse(b.is_default)
      const c = yield* createInbox(org, { name: "C", email_prefix: "c", is_default: true })
      assert.isTrue(c.is_default)
      const defaults = () =>
        Effect.map(get(`${org.path}inboxes/`, { token: org.ownerToken }), (r) =>
          r.body.results.filter((i: { is_default: boolean }) => i.is_default).map((i: { id: number }) => i.id)
        )
      assert.deepStrictEqual(yield* defaults(), [c.id])
      const moved = yield* patch(`${org.path}inboxes/${b.id}/`, { token: org.ownerToken, form: { is_default: "true" } })
      assert.strictEqual(moved.status, 200)
      assert.isTrue(moved.body.is_default)
      assert.deepStrictEqual(yield* defaults(), [b.id])
      const refused = yield* patch(`${org.path}inboxes/${b.id}/`, {
        token: org.ownerToken,
        json: { is_default: false }
      })
      assertRefused(refused, {
        is_default: ["An organization always has a default inbox: make another inbox the default instead."]
      })
      assert.deepStrictEqual(yield* defaults(), [b.id])
    })
  )

  it.effect("the list shows the default first then by name, pages, and orders on request", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const member = yield* Fixtures.member(org, "member")
      const zeta = yield* createInbox(org, { name: "Zeta", email_prefix: "zeta" })
      const beta = yield* createInbox(org, { name: "beta", email_prefix: "beta" })
      const alpha = yield* createInbox(org, { name: "Alpha", email_prefix: "alpha" })
      const path = `${org.path}inboxes/`
      const list = yield* get(path, { token: member.token })
      assert.strictEqual(list.status, 200)
      assert.strictEqual(list.body.count, 3)
      assert.deepStrictEqual(
        list.body.results.map((i: { id: number }) => i.id),
        [zeta.id, alpha.id, beta.id]
      )
      const paged = yield* get(`${path}?page_size=1&page=2`, { token: member.token })
      assert.deepStrictEqual(
        paged.body.results.map((i: { id: number }) => i.id),
        [alpha.id]
      )
      assert.strictEqual(paged.body.next, `${baseUrl}${path}?page_size=1&page=3`)
      assert.strictEqual(paged.body.previous, `${baseUrl}${path}?page_size=1`)
      const byCreation = yield* get(`${path}?ordering=-created_at`, { token: member.token })
      assert.deepStrictEqual(
        byCreation.body.results.map((i: { id: number }) => i.id),
        [alpha.id, beta.id, zeta.id]
      )
      assert.strictEqual((yield* get(`${path}?page=0`, { token: member.token })).status, 404)
      assert.strictEqual((yield* get(`${path}?ordering=secret`, { token: member.token })).status, 400)
    })
  )

  it.effect("members read, cannot write; tokens write; other organizations' inboxes are 404", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const { member, admin, integration } = yield* Fixtures.staff(org)
      const inbox = yield* createInbox(org, { name: "Main", email_prefix: "main" })
      const path = `${org.path}inboxes/`
      assert.strictEqual((yield* get(`${path}${inbox.id}/`, { token: member.token })).status, 200)
      assert.strictEqual(
        (yield* post(path, { token: member.token, json: { name: "X", email_prefix: "x" } })).status,
        403
      )
      assert.strictEqual(
        (yield* patch(`${path}${inbox.id}/`, { token: member.token, json: { name: "X" } })).status,
        403
      )
      assert.strictEqual(
        (yield* post(path, { token: admin.token, json: { name: "Ad", email_prefix: "ad" } })).status,
        201
      )
      assert.strictEqual(
        (yield* post(path, { token: integration, json: { name: "In", email_prefix: "in" } })).status,
        201
      )
      const theirs = (yield* post(`${other.path}inboxes/`, {
        token: other.ownerToken,
        json: { name: "Theirs", email_prefix: "theirs" }
      })).body
      for (const pk of [String(theirs.id), "x", "0"]) {
        assert.strictEqual((yield* get(`${path}${pk}/`, { token: org.ownerToken })).status, 404, pk)
        assert.strictEqual((yield* patch(`${path}${pk}/`, { token: org.ownerToken, json: { name: "Y" } })).status, 404)
      }
      assert.strictEqual((yield* get(path, { token: other.ownerToken })).status, 404)
      const broken = yield* post(path, { token: org.ownerToken, body: "{", contentType: "application/json" })
      assert.strictEqual(broken.status, 400)
      assert.match(broken.body.detail, /^JSON parse error - /)
      const multipart = yield* post(path, {
        token: org.ownerToken,
        multipart: { name: "Multi", email_prefix: "multi" }
      })
      assert.strictEqual(multipart.status, 201, multipart.text)
    })
  )

  it.effect("arbitrary inbox bodies get 2xx or a 4xx, never a 500", () =>
    Fuzz.directoryWrites("inboxes", { name: "Target", email_prefix: "target" }, [
      "name",
      "email_prefix",
      "is_default",
      "auto_reply_during_enabled",
      "auto_reply_outside_template",
      "customer_max_inactivity_period",
      "customer_interaction_style",
      "signature"
    ])
  )
})
