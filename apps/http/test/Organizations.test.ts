import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { assertRefused, get, patch, post, TestApp, TestAppLive } from "./support/TestApp.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

layer(TestAppLive, { excludeTestServices: true })("organizations", (it) => {
  it.effect("GET /organizations/{id}/ shows every field of the Organization", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization("Acme Support")
      const response = yield* get(org.path, { token: org.ownerToken })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers.get("content-type"), "application/json")
      const o = response.body
      assert.strictEqual(o.id, org.organization.id)
      assert.isNumber(o.id)
      assert.match(o.public_id, /^acme-support-[a-z0-9]{8}$/)
      assert.strictEqual(o.name, "Acme Support")
      assert.match(o.created_at, ISO_MS)
      assert.match(o.updated_at, ISO_MS)
      assert.deepStrictEqual(o.created_by, {
        id: org.ownerId,
        email: org.ownerEmail,
        profile_picture_url: "",
        name: "Owner"
      })
      assert.strictEqual(o.support_email, "")
      assert.deepStrictEqual(o.deletion_plan, { status: "none", inactivity_detected_at: null, deletion_at: null })
      assert.deepStrictEqual(o.subscription, {
        status: "active",
        plan_name: "Self-hosted",
        plan_metric: "unlimited",
        renews_at: null,
        ends_at: null,
        trial_ends_at: null,
        trial_days_remaining: 0,
        has_access_enabled: true
      })
      assert.strictEqual(o.customer_max_inactivity_period, 0)
      assert.strictEqual(o.customer_inactivity_reminder_period, 0)
      for (const key of ["site_url", "description", "email_from_name", "email_subject_prefix"])
        assert.strictEqual(o[key], "", key)
      for (const key of [
        "enable_csat",
        "enable_auto_tagging",
        "enable_cc_email_routing",
        "enable_self_service",
        "enable_associate_signatures",
        "enable_auto_stt"
      ])
        assert.strictEqual(o[key], false, key)
      assert.strictEqual(o.ticket_public_id_mode, "auto_numeric")
      assert.strictEqual(o.working_language, "en")
      assert.strictEqual(Object.keys(o).length, 23)
    })
  )

  it.effect("POST /organizations/ creates it: 201, Location, the caller becomes owner", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const response = yield* post("/organizations/", {
        token: org.ownerToken,
        json: { name: "  Nova Ltd  ", support_email: "help@Nova.EXAMPLE", enable_csat: true, id: 999, subscription: {} }
      })
      assert.strictEqual(response.status, 201)
      const created = response.body
      assert.strictEqual(created.name, "Nova Ltd")
      assert.strictEqual(created.support_email, "help@nova.example")
      assert.strictEqual(created.enable_csat, true)
      assert.notStrictEqual(created.id, 999)
      assert.strictEqual(created.subscription.status, "active")
      assert.strictEqual(created.created_by.id, org.ownerId)
      assert.strictEqual(response.headers.get("location"), `${baseUrl}/organizations/${created.public_id}/`)
      // The creator may now change it (an owner).
      const renamed = yield* patch(`/organizations/${created.public_id}/`, {
        token: org.ownerToken,
        json: { name: "Nova" }
      })
      assert.strictEqual(renamed.status, 200)
      assert.strictEqual(renamed.body.name, "Nova")
    })
  )

  it.effect("POST /organizations/ needs a name, at most 255 characters", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const missing = yield* post("/organizations/", { token: org.ownerToken, json: {} })
      assertRefused(missing, { name: ["This field is required."] })
      const blank = yield* post("/organizations/", { token: org.ownerToken, json: { name: "   " } })
      assert.deepStrictEqual(blank.body, { name: ["This field may not be blank."] })
      const tooLong = yield* post("/organizations/", { token: org.ownerToken, json: { name: "é".repeat(256) } })
      assertRefused(tooLong, { name: ["Ensure this field has no more than 255 characters."] })
      const longest = yield* post("/organizations/", { token: org.ownerToken, json: { name: "é".repeat(255) } })
      assert.strictEqual(longest.status, 201)
      assert.strictEqual(longest.body.name, "é".repeat(255))
    })
  )

  it.effect("integration tokens cannot create organizations (403)", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const token = yield* Fixtures.integrationToken(org)
      const response = yield* post("/organizations/", { token, json: { name: "Other" } })
      assert.strictEqual(response.status, 403)
      assert.deepStrictEqual(response.body, { detail: "Integration tokens cannot create organizations." })
    })
  )

  it.effect("PATCH changes every writable setting and ignores read-only ones", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const changes = {
        name: "Renamed",
        support_email: "support@example.com",
        customer_max_inactivity_period: 90,
        customer_inactivity_reminder_period: 14,
        site_url: "https://example.com/help",
        description: "We help.",
        email_from_name: "Example Support",
        email_subject_prefix: "[Example]",
        enable_csat: true,
        enable_auto_tagging: true,
        enable_cc_email_routing: true,
        enable_self_service: true,
        enable_associate_signatures: true,
        enable_auto_stt: true,
        ticket_public_id_mode: "random_alphanumeric",
        working_language: "pt-br"
      }
      const response = yield* patch(org.path, {
        token: org.ownerToken,
        json: {
          ...changes,
          public_id: "hijack",
          created_at: "2000-01-01T00:00:00.000Z",
          subscription: { status: "canceled" },
          deletion_plan: { status: "scheduled" },
          unknown_field: 1
        }
      })
      assert.strictEqual(response.status, 200)
      const o = response.body
      assert.deepInclude(o, { ...changes, working_language: "pt-BR" })
      assert.strictEqual(o.public_id, org.organization.public_id)
      assert.strictEqual(o.subscription.status, "active")
      assert.strictEqual(o.deletion_plan.status, "none")
      assert.isAbove(Date.parse(o.updated_at), Date.parse(o.created_at) - 1)
      // And it sticks.
      const again = yield* get(org.path, { token: org.ownerToken })
      assert.deepStrictEqual(again.body, o)
    })
  )

  it.effect("PATCH validates each setting at its edge", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const cases: ReadonlyArray<readonly [Record<string, unknown>, Record<string, Array<string>> | null]> = [
        [{ customer_max_inactivity_period: 3650 }, null],
        [
          { customer_max_inactivity_period: 3651 },
          { customer_max_inactivity_period: ["Ensure this value is less than or equal to 3650."] }
        ],
        [
          { customer_inactivity_reminder_period: -1 },
          { customer_inactivity_reminder_period: ["Ensure this value is greater than or equal to 0."] }
        ],
        [
          { customer_inactivity_reminder_period: 1.5 },
          { customer_inactivity_reminder_period: ["A valid integer is required."] }
        ],
        [{ customer_inactivity_reminder_period: "12" }, null],
        [{ support_email: "a@b" }, { support_email: ["Enter a valid email address."] }],
        [{ support_email: `${"a".repeat(242)}@example.com` }, null],
        [
          { support_email: `${"a".repeat(243)}@example.com` },
          { support_email: ["Ensure this field has no more than 254 characters."] }
        ],
        [{ support_email: "" }, null],
        [{ site_url: "ftp://example.com" }, { site_url: ["Enter a valid URL (http:// or https://)."] }],
        [{ site_url: `https://example.com/${"a".repeat(180)}` }, null],
        [
          { site_url: `https://example.com/${"a".repeat(181)}` },
          { site_url: ["Ensure this field has no more than 200 characters."] }
        ],
        [{ description: "d".repeat(2000) }, null],
        [{ description: "d".repeat(2001) }, { description: ["Ensure this field has no more than 2000 characters."] }],
        [
          { email_from_name: "n".repeat(256) },
          { email_from_name: ["Ensure this field has no more than 255 characters."] }
        ],
        [{ email_subject_prefix: "p".repeat(50) }, null],
        [
          { email_subject_prefix: "p".repeat(51) },
          { email_subject_prefix: ["Ensure this field has no more than 50 characters."] }
        ],
        [
          { ticket_public_id_mode: "sequential" },
          { ticket_public_id_mode: ['"sequential" is not a valid choice. Allowed: auto_numeric, random_alphanumeric.'] }
        ],
        [
          { working_language: "english" },
          { working_language: ['"english" is not a valid language code. Use a BCP 47 tag such as "en" or "pt-BR".'] }
        ],
        [
          { working_language: "e" },
          { working_language: ['"e" is not a valid language code. Use a BCP 47 tag such as "en" or "pt-BR".'] }
        ],
        [{ working_language: "de-CH" }, null],
        [{ enable_csat: null }, { enable_csat: ["This field may not be null."] }],
        [{ name: 12 }, null]
      ]
      for (const [body, errors] of cases) {
        const response = yield* patch(org.path, { token: org.ownerToken, json: body })
        if (errors === null) assert.strictEqual(response.status, 200, JSON.stringify(body))
        else {
          assertRefused(response, errors, JSON.stringify(body))
        }
      }
    })
  )

  it.effect("owners, admins and integration tokens write; members read but get 403 on writes", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const admin = yield* Fixtures.member(org, "admin")
      const memberUser = yield* Fixtures.member(org, "member")
      const integration = yield* Fixtures.integrationToken(org)
      for (const token of [org.ownerToken, admin.token, integration]) {
        const response = yield* patch(org.path, { token, json: { description: "changed" } })
        assert.strictEqual(response.status, 200)
      }
      const read = yield* get(org.path, { token: memberUser.token })
      assert.strictEqual(read.status, 200)
      const write = yield* patch(org.path, { token: memberUser.token, json: { description: "nope" } })
      assert.strictEqual(write.status, 403)
      assert.deepStrictEqual(write.body, { detail: "You do not have permission to perform this action." })
      // A member's invalid body is still 403: permission is checked before the body.
      const invalid = yield* patch(org.path, { token: memberUser.token, json: { name: "" } })
      assert.strictEqual(invalid.status, 403)
    })
  )

  it.effect("another organization is 404 Not found, for people and integration tokens alike", () =>
    Effect.gen(function* () {
      const mine = yield* Fixtures.organization()
      const theirs = yield* Fixtures.organization()
      const integration = yield* Fixtures.integrationToken(mine)
      const outsider = yield* Fixtures.outsider
      for (const token of [mine.ownerToken, integration, outsider]) {
        for (const response of [
          yield* get(theirs.path, { token }),
          yield* patch(theirs.path, { token, json: { name: "Mine now" } })
        ]) {
          assert.strictEqual(response.status, 404)
          assert.deepStrictEqual(response.body, { detail: "Not found." })
        }
      }
      const unknown = yield* get("/organizations/does-not-exist/", { token: mine.ownerToken })
      assert.deepStrictEqual(unknown.body, { detail: "Not found." })
    })
  )

  it.effect("the list shows only the caller's organizations; an integration token sees its one", () =>
    Effect.gen(function* () {
      const a = yield* Fixtures.organization("Alpha")
      const b = yield* Fixtures.organization("Beta")
      yield* post("/organizations/", { token: a.ownerToken, json: { name: "Alpha Two" } })
      const mine = yield* get("/organizations/", { token: a.ownerToken })
      assert.deepStrictEqual(
        mine.body.results.map((o: { name: string }) => o.name),
        ["Alpha", "Alpha Two"]
      )
      assert.strictEqual(mine.body.count, 2)
      const integration = yield* Fixtures.integrationToken(b)
      const theirs = yield* get("/organizations/", { token: integration })
      assert.deepStrictEqual(
        theirs.body.results.map((o: { id: number }) => o.id),
        [b.organization.id]
      )
      const outsider = yield* Fixtures.outsider
      const none = yield* get("/organizations/", { token: outsider })
      assert.deepStrictEqual(none.body, { count: 0, next: null, previous: null, results: [] })
    })
  )

  it.effect("search is case- and accent-insensitive, every word must match", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization("Café Zürich")
      for (const name of ["Ångström Labs", "CAFE Berlin", "Tea House", "100% Support_Desk"])
        yield* post("/organizations/", { token: org.ownerToken, json: { name } })
      const names = (search: string) =>
        get(`/organizations/?search=${encodeURIComponent(search)}`, { token: org.ownerToken }).pipe(
          Effect.map((r) => r.body.results.map((o: { name: string }) => o.name))
        )
      assert.deepStrictEqual(yield* names("cafe"), ["CAFE Berlin", "Café Zürich"])
      assert.deepStrictEqual(yield* names("CAFÉ zurich"), ["Café Zürich"])
      assert.deepStrictEqual(yield* names("angstrom"), ["Ångström Labs"])
      assert.deepStrictEqual(yield* names("%"), ["100% Support_Desk"])
      assert.deepStrictEqual(yield* names("_"), ["100% Support_Desk"])
      assert.deepStrictEqual(yield* names("nothing"), [])
      assert.strictEqual((yield* names("")).length, 5)
    })
  )

  it.effect("paging: page_size, absolute next/previous keeping other parameters, clamping, bad pages", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization("Page 00")
      for (let i = 1; i <= 6; i++)
        yield* post("/organizations/", { token: org.ownerToken, json: { name: `Page 0${i}` } })
      const { baseUrl } = yield* TestApp
      const first = yield* get("/organizations/?search=page&page_size=3", { token: org.ownerToken })
      assert.strictEqual(first.body.count, 7)
      assert.deepStrictEqual(
        first.body.results.map((o: { name: string }) => o.name),
        ["Page 00", "Page 01", "Page 02"]
      )
      assert.strictEqual(first.body.previous, null)
      assert.strictEqual(first.body.next, `${baseUrl}/organizations/?search=page&page_size=3&page=2`)
      const second = yield* get("/organizations/?search=page&page_size=3&page=2", { token: org.ownerToken })
      assert.strictEqual(second.body.previous, `${baseUrl}/organizations/?search=page&page_size=3`)
      assert.strictEqual(second.body.next, `${baseUrl}/organizations/?search=page&page_size=3&page=3`)
      const last = yield* get("/organizations/?search=page&page_size=3&page=3", { token: org.ownerToken })
      assert.deepStrictEqual(
        last.body.results.map((o: { name: string }) => o.name),
        ["Page 06"]
      )
      assert.strictEqual(last.body.next, null)
      const past = yield* get("/organizations/?search=page&page_size=3&page=4", { token: org.ownerToken })
      assert.strictEqual(past.status, 404)
      assert.deepStrictEqual(past.body, { detail: "Invalid page." })
      for (const page of ["0", "-1", "x", "1.5"]) {
        const bad = yield* get(`/organizations/?page=${page}`, { token: org.ownerToken })
        assert.strictEqual(bad.status, 404, page)
        assert.deepStrictEqual(bad.body, { detail: "Invalid page." })
      }
      for (const size of ["0", "-3", "abc", "2.5"]) {
        const bad = yield* get(`/organizations/?page_size=${size}`, { token: org.ownerToken })
        assertRefused(bad, { page_size: ["A valid integer is required."] }, size)
      }
      const clamped = yield* get("/organizations/?page_size=1000", { token: org.ownerToken })
      assert.strictEqual(clamped.status, 200)
      assert.strictEqual(clamped.body.results.length, 7)
      const forwarded = yield* get("/organizations/?page_size=3", {
        token: org.ownerToken,
        headers: { "x-forwarded-proto": "https" }
      })
      // Only a trusted proxy's `X-Forwarded-Proto` counts (`TRUST_PROXY`, see BaseUrl.test.ts).
      assert.strictEqual(forwarded.body.next, `${baseUrl}/organizations/?page_size=3&page=2`)
    })
  )

  it.effect("ordering by allowed fields, descending with '-', unknown fields refused with the allowed list", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization("b-org")
      yield* post("/organizations/", { token: org.ownerToken, json: { name: "a-org" } })
      yield* post("/organizations/", { token: org.ownerToken, json: { name: "C-org" } })
      const names = (ordering: string) =>
        get(`/organizations/?ordering=${ordering}`, { token: org.ownerToken }).pipe(
          Effect.map((r) => r.body.results.map((o: { name: string }) => o.name))
        )
      assert.deepStrictEqual(yield* names("name"), ["a-org", "b-org", "C-org"])
      assert.deepStrictEqual(yield* names("-name"), ["C-org", "b-org", "a-org"])
      assert.deepStrictEqual(yield* names("created_at"), ["b-org", "a-org", "C-org"])
      assert.deepStrictEqual(yield* names("-created_at,name"), ["C-org", "a-org", "b-org"])
      assert.deepStrictEqual(yield* names("-id"), ["C-org", "a-org", "b-org"])
      const unknown = yield* get("/organizations/?ordering=name,foo", { token: org.ownerToken })
      assertRefused(unknown, {
        ordering: ["Unknown ordering field: foo. Allowed: created_at, id, name, updated_at."]
      })
    })
  )
})
