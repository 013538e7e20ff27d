import { assert, layer } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { EMPTY_CRITERIA } from "../src/PresetFilters/Criteria.js"
import * as Fixtures from "./support/Fixtures.js"
import { assertRefused, del, get, patch, post, request, TestApp, TestAppLive } from "./support/TestApp.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** An organization with an owner, an admin, a member and an integration token. */
const team = Effect.gen(function* () {
  const org = yield* Fixtures.organization()
  const admin = yield* Fixtures.member(org, "admin")
  const member = yield* Fixtures.member(org, "member")
  const token = yield* Fixtures.integrationToken(org)
  return { org, admin, member, token, filters: `${org.path}custom-preset-filters/` }
})

const names = (body: { readonly results: ReadonlyArray<{ readonly name: string }> }) =>
  body.results.map((f) => f.name).sort()

const createFilter = (path: string, token: string, json: Record<string, unknown>) =>
  Effect.gen(function* () {
    const response = yield* post(path, { token, json })
    assert.strictEqual(response.status, 201, response.text)
    return response.body as { readonly id: string; readonly name: string; readonly visibility: string }
  })

layer(TestAppLive, { excludeTestServices: true })("custom preset filters", (it) => {
  it.effect("POST creates a personal filter by default: 201, Location and every field", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      const { baseUrl } = yield* TestApp
      const response = yield* post(filters, {
        token: org.ownerToken,
        json: {
          name: "  My open tickets  ",
          criteria: { statuses: ["created", "active"], assignee_ids: [org.ownerId], is_snoozed: false },
          id: "ignored",
          created_by: { id: 999 }
        }
      })
      assert.strictEqual(response.status, 201, response.text)
      const f = response.body
      assert.match(f.id, UUID)
      assert.strictEqual(response.headers.get("location"), `${baseUrl}${filters}${f.id}/`)
      assert.strictEqual(f.name, "My open tickets")
      assert.deepStrictEqual(f.criteria, {
        ...EMPTY_CRITERIA,
        statuses: ["created", "active"],
        assignee_ids: [org.ownerId],
        is_snoozed: false
      })
      assert.deepStrictEqual(f.created_by, { id: org.ownerId, email: org.ownerEmail, name: "Owner" })
      assert.match(f.created_at, ISO_MS)
      assert.match(f.updated_at, ISO_MS)
      assert.strictEqual(f.position, 0)
      assert.strictEqual(f.display_count, false)
      assert.strictEqual(f.group_by_priority, false)
      assert.strictEqual(f.visibility, "personal")
      assert.strictEqual(Object.keys(f).length, 10)
      const read = yield* get(`${filters}${f.id}/`, { token: org.ownerToken })
      assert.strictEqual(read.status, 200)
      assert.deepStrictEqual(read.body, f)
    })
  )

  it.effect("visibility: personal filters only for their creator; tokens see organization filters only", () =>
    Effect.gen(function* () {
      const { org, admin, member, token, filters } = yield* team
      const ownerPersonal = yield* createFilter(filters, org.ownerToken, { name: "owner personal" })
      yield* createFilter(filters, org.ownerToken, { name: "owner shared", visibility: "organization" })
      yield* createFilter(filters, member.token, { name: "member personal" })
      const byToken = yield* createFilter(filters, token, { name: "token shared" })
      assert.strictEqual(byToken.visibility, "organization")

      const seen = (caller: string) =>
        Effect.map(get(filters, { token: caller }), (response) => {
          assert.strictEqual(response.status, 200)
          assert.strictEqual(response.body.count, response.body.results.length)
          return names(response.body)
        })
      assert.deepStrictEqual(yield* seen(org.ownerToken), ["owner personal", "owner shared", "token shared"])
      assert.deepStrictEqual(yield* seen(member.token), ["member personal", "owner shared", "token shared"])
      assert.deepStrictEqual(yield* seen(admin.token), ["owner shared", "token shared"])
      assert.deepStrictEqual(yield* seen(token), ["owner shared", "token shared"])

      // Someone else's personal filter does not exist for them, whatever their role.
      for (const caller of [admin.token, member.token, token]) {
        const response = yield* get(`${filters}${ownerPersonal.id}/`, { token: caller })
        assert.strictEqual(response.status, 404)
        assert.deepStrictEqual(response.body, { detail: "Not found." })
        assert.strictEqual((yield* patch(`${filters}${ownerPersonal.id}/`, { token: caller, json: {} })).status, 404)
        assert.strictEqual((yield* del(`${filters}${ownerPersonal.id}/`, { token: caller })).status, 404)
      }
      const tokenFilter = yield* get(`${filters}${byToken.id}/`, { token: member.token })
      assert.strictEqual(tokenFilter.body.created_by, null)
    })
  )

  it.effect("roles: members keep their own filters; shared filters are written by owners, admins and tokens", () =>
    Effect.gen(function* () {
      const { org, admin, member, token, filters } = yield* team
      const shared = yield* createFilter(filters, admin.token, { name: "shared", visibility: "organization" })
      const mine = yield* createFilter(filters, member.token, { name: "mine" })

      const memberShares = yield* post(filters, {
        token: member.token,
        json: { name: "x", visibility: "organization" }
      })
      assert.strictEqual(memberShares.status, 403)
      assert.include(memberShares.body.detail, "owners, admins and integration tokens")
      assert.strictEqual(
        (yield* patch(`${filters}${shared.id}/`, { token: member.token, json: { name: "y" } })).status,
        403
      )
      assert.strictEqual((yield* del(`${filters}${shared.id}/`, { token: member.token })).status, 403)
      const promote = yield* patch(`${filters}${mine.id}/`, {
        token: member.token,
        json: { visibility: "organization" }
      })
      assert.strictEqual(promote.status, 403)

      const renamed = yield* patch(`${filters}${mine.id}/`, { token: member.token, json: { name: "mine, renamed" } })
      assert.strictEqual(renamed.status, 200)
      assert.strictEqual(renamed.body.name, "mine, renamed")

      const byOwner = yield* patch(`${filters}${shared.id}/`, { token: org.ownerToken, json: { display_count: true } })
      assert.strictEqual(byOwner.status, 200)
      assert.strictEqual(byOwner.body.display_count, true)
      const byToken = yield* patch(`${filters}${shared.id}/`, { token, json: { group_by_priority: "yes" } })
      assert.strictEqual(byToken.status, 200)
      assert.strictEqual(byToken.body.group_by_priority, true)

      // Only the creator may make a shared filter personal; tokens have no personal filters.
      const notCreator = yield* patch(`${filters}${shared.id}/`, {
        token: org.ownerToken,
        json: { visibility: "personal" }
      })
      assert.strictEqual(notCreator.status, 400)
      assert.property(notCreator.body, "visibility")
      const tokenPersonal = yield* post(filters, { token, json: { name: "t", visibility: "personal" } })
      assert.strictEqual(tokenPersonal.status, 400)
      assert.property(tokenPersonal.body, "visibility")
      const creator = yield* patch(`${filters}${shared.id}/`, { token: admin.token, json: { visibility: "personal" } })
      assert.strictEqual(creator.status, 200)
      assert.strictEqual((yield* get(`${filters}${shared.id}/`, { token })).status, 404)

      assert.strictEqual((yield* del(`${filters}${mine.id}/`, { token: member.token })).status, 204)
      assert.strictEqual((yield* get(`${filters}${mine.id}/`, { token: member.token })).status, 404)
      const tokenShared = yield* createFilter(filters, token, { name: "by token" })
      const deleted = yield* del(`${filters}${tokenShared.id}/`, { token: admin.token })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual(deleted.text, "")
    })
  )

  it.effect("invalid criteria are 400 with nested field errors, reported together with other fields", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      const response = yield* post(filters, {
        token: org.ownerToken,
        json: {
          name: "",
          criteria: {
            statuses: ["bogus"],
            waiting_on: ["nobody"],
            classifications: ["pending"],
            priorities: ["critical"],
            channels: ["sms"],
            assignee_ids: ["abc", 1.5],
            inbox_ids: [0],
            tags_include: [""],
            is_snoozed: "sometimes",
            sla_breached: "sometimes",
            sla_due_within: 0,
            status: ["active"]
          }
        }
      })
      assert.strictEqual(response.status, 400)
      assert.deepStrictEqual(response.body.name, ["This field may not be blank."])
      const criteria = response.body.criteria
      assert.deepStrictEqual(Object.keys(criteria).sort(), [
        "assignee_ids",
        "channels",
        "classifications",
        "inbox_ids",
        "is_snoozed",
        "priorities",
        "sla_breached",
        "sla_due_within",
        "status",
        "statuses",
        "tags_include",
        "waiting_on"
      ])
      assert.deepStrictEqual(criteria.sla_due_within, ["Ensure this value is greater than or equal to 1."])
      assert.lengthOf(criteria.statuses, 1)
      assert.isTrue(criteria.statuses[0].startsWith('"bogus" is not a valid choice.'), criteria.statuses[0])
      assert.lengthOf(criteria.assignee_ids, 2)
      for (const messages of Object.values(criteria)) assert.isArray(messages)

      const notObject = yield* post(filters, { token: org.ownerToken, json: { name: "x", criteria: ["active"] } })
      assert.strictEqual(notObject.status, 400)
      assert.deepStrictEqual(Object.keys(notObject.body.criteria), ["non_field_errors"])
      const nullCriteria = yield* post(filters, { token: org.ownerToken, json: { name: "x", criteria: null } })
      assert.strictEqual(nullCriteria.status, 400)
      assert.property(nullCriteria.body, "criteria")
    })
  )

  it.effect("criteria at their edges: 100 values accepted, 101 refused; allowed values of every list", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
      const ok = yield* post(filters, {
        token: org.ownerToken,
        json: {
          name: "edges",
          criteria: {
            tags_exclude: hundred.map((i) => `tag ${i}`),
            statuses: ["created", "active", "closed"],
            waiting_on: ["", "customer", "associate"],
            classifications: ["", "no_response", "customer_inactivity", "resolved", "invalid", "other"],
            priorities: ["not_set", "low", "medium", "high", "urgent"],
            channels: ["email", "api", "telegram", "whatsapp"],
            tags_include: ["VIP"],
            is_snoozed: null,
            sla_breached: false,
            sla_due_within: 525_600
          }
        }
      })
      assert.strictEqual(ok.status, 201, ok.text)
      assert.lengthOf(ok.body.criteria.tags_exclude, 100)
      assert.strictEqual(ok.body.criteria.sla_breached, false)
      assert.strictEqual(ok.body.criteria.sla_due_within, 525_600)
      const read = yield* get(`${filters}${ok.body.id}/`, { token: org.ownerToken })
      assert.deepStrictEqual(read.body.criteria, ok.body.criteria)
      for (const [minutes, status] of [
        [1, 201],
        [525_601, 400]
      ] as const) {
        const atEdge = yield* post(filters, {
          token: org.ownerToken,
          json: { name: "due", criteria: { sla_due_within: minutes } }
        })
        assert.strictEqual(atEdge.status, status, atEdge.text)
      }
      const tooMany = yield* post(filters, {
        token: org.ownerToken,
        json: { name: "edges", criteria: { inbox_ids: [...hundred, 101] } }
      })
      assertRefused(tooMany, {
        criteria: { inbox_ids: ["Ensure this field has no more than 100 elements."] }
      })
    })
  )

  it.effect("name: at most 100 characters, required, not blank", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      assert.strictEqual((yield* post(filters, { token: org.ownerToken, json: { name: "n".repeat(100) } })).status, 201)
      const tooLong = yield* post(filters, { token: org.ownerToken, json: { name: "n".repeat(101) } })
      assert.deepStrictEqual(tooLong.body, { name: ["Ensure this field has no more than 100 characters."] })
      const missing = yield* post(filters, { token: org.ownerToken, json: {} })
      assert.deepStrictEqual(missing.body, { name: ["This field is required."] })
    })
  )

  it.effect("PATCH replaces criteria as a whole and bumps updated_at; position defaults to after the last", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      const first = yield* createFilter(filters, org.ownerToken, { name: "a", position: 7 })
      const second = yield* post(filters, {
        token: org.ownerToken,
        json: { name: "b", criteria: { statuses: ["active"], priorities: ["high"] } }
      })
      assert.strictEqual(second.body.position, 8)
      yield* Effect.sleep("5 millis")
      const changed = yield* patch(`${filters}${second.body.id}/`, {
        token: org.ownerToken,
        json: { criteria: { tags_include: ["billing"] } }
      })
      assert.strictEqual(changed.status, 200)
      assert.deepStrictEqual(changed.body.criteria, { ...EMPTY_CRITERIA, tags_include: ["billing"] })
      assert.isAbove(Date.parse(changed.body.updated_at), Date.parse(second.body.updated_at))
      assert.strictEqual(changed.body.created_at, second.body.created_at)
      const unchanged = yield* patch(`${filters}${first.id}/`, { token: org.ownerToken })
      assert.strictEqual(unchanged.status, 200)
      assert.strictEqual(unchanged.body.name, "a")
    })
  )

  it.effect("form and multipart bodies: criteria as a JSON string, booleans as text", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      const form = yield* post(filters, {
        token: org.ownerToken,
        form: { name: "form", criteria: '{"statuses":["closed"]}', display_count: "yes", position: "3" }
      })
      assert.strictEqual(form.status, 201, form.text)
      assert.deepStrictEqual(form.body.criteria.statuses, ["closed"])
      assert.strictEqual(form.body.display_count, true)
      assert.strictEqual(form.body.position, 3)
      const multipart = yield* post(filters, {
        token: org.ownerToken,
        multipart: { name: "multi", criteria: '{"channels":["email"]}', group_by_priority: "1" }
      })
      assert.strictEqual(multipart.status, 201, multipart.text)
      assert.deepStrictEqual(multipart.body.criteria.channels, ["email"])
      assert.strictEqual(multipart.body.group_by_priority, true)
      const badForm = yield* post(filters, { token: org.ownerToken, form: { name: "f", criteria: "{oops" } })
      assert.strictEqual(badForm.status, 400)
      assert.property(badForm.body.criteria, "non_field_errors")
    })
  )

  it.effect("malformed bodies: broken JSON 400, other media types 415, bad booleans and positions 400", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      const broken = yield* post(filters, { token: org.ownerToken, body: '{"name":', contentType: "application/json" })
      assert.strictEqual(broken.status, 400)
      assert.match(broken.body.detail, /^JSON parse error - /)
      const text = yield* post(filters, { token: org.ownerToken, body: "name=x", contentType: "text/plain" })
      assert.strictEqual(text.status, 415)
      const array = yield* post(filters, { token: org.ownerToken, json: [] })
      assert.strictEqual(array.status, 400)
      const fields = yield* post(filters, {
        token: org.ownerToken,
        json: { name: "x", display_count: "perhaps", position: -1, visibility: "public" }
      })
      assert.strictEqual(fields.status, 400)
      assert.deepStrictEqual(Object.keys(fields.body).sort(), ["display_count", "position", "visibility"])
    })
  )

  it.effect("cross-organization ids and organizations are 404; unauthenticated is 401", () =>
    Effect.gen(function* () {
      const a = yield* team
      const b = yield* team
      const filter = yield* createFilter(a.filters, a.org.ownerToken, { name: "a", visibility: "organization" })
      // B's owner asks for A's filter through B's organization, and through A's.
      for (const path of [`${b.filters}${filter.id}/`, `${a.filters}${filter.id}/`]) {
        assert.strictEqual((yield* get(path, { token: b.org.ownerToken })).status, 404)
        assert.strictEqual((yield* patch(path, { token: b.org.ownerToken, json: { name: "x" } })).status, 404)
        assert.strictEqual((yield* del(path, { token: b.org.ownerToken })).status, 404)
      }
      assert.strictEqual((yield* get(a.filters, { token: b.token })).status, 404)
      assert.strictEqual((yield* post(a.filters, { token: b.token, json: { name: "x" } })).status, 404)
      assert.strictEqual((yield* get(a.filters)).status, 401)
      assert.strictEqual((yield* get(`${a.filters}not-a-uuid/`, { token: a.org.ownerToken })).status, 404)
      assert.strictEqual(
        (yield* get(`${a.filters}${filter.id.toUpperCase()}/`, { token: a.org.ownerToken })).status,
        200
      )
      assert.strictEqual((yield* get(`${a.filters}${filter.id}/`, { token: a.org.ownerToken })).body.name, "a")
    })
  )

  it.effect("paging and ordering: envelope with links, past-the-end 404, unknown ordering 400", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      for (const name of ["c", "a", "b"]) yield* createFilter(filters, org.ownerToken, { name })
      const first = yield* get(`${filters}?page_size=2`, { token: org.ownerToken })
      assert.strictEqual(first.body.count, 3)
      assert.deepStrictEqual(
        first.body.results.map((f: { name: string }) => f.name),
        ["c", "a"]
      )
      assert.match(first.body.next, /page=2/)
      assert.isNull(first.body.previous)
      const byName = yield* get(`${filters}?ordering=-name`, { token: org.ownerToken })
      assert.deepStrictEqual(
        byName.body.results.map((f: { name: string }) => f.name),
        ["c", "b", "a"]
      )
      assert.strictEqual((yield* get(`${filters}?page=3&page_size=2`, { token: org.ownerToken })).status, 404)
      const unknown = yield* get(`${filters}?ordering=criteria`, { token: org.ownerToken })
      assert.strictEqual(unknown.status, 400)
      assert.property(unknown.body, "ordering")
    })
  )

  it.effect("arbitrary JSON bodies and criteria never give a 500", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      const existing = yield* createFilter(filters, org.ownerToken, { name: "target" })
      const bodies = FastCheck.sample(
        FastCheck.oneof(
          FastCheck.jsonValue(),
          FastCheck.record({ name: FastCheck.jsonValue(), criteria: FastCheck.jsonValue() }),
          FastCheck.record({
            name: FastCheck.string(),
            criteria: FastCheck.dictionary(
              FastCheck.constantFrom("statuses", "assignee_ids", "tags_include", "is_snoozed", "channels", "x"),
              FastCheck.jsonValue()
            )
          })
        ),
        { numRuns: 40, seed: 42 }
      )
      for (const json of bodies) {
        const created = yield* post(filters, { token: org.ownerToken, json })
        assert.include([201, 400], created.status, `${JSON.stringify(json)} → ${created.text}`)
        const changed = yield* patch(`${filters}${existing.id}/`, { token: org.ownerToken, json })
        assert.include([200, 400], changed.status, `${JSON.stringify(json)} → ${changed.text}`)
      }
    })
  )

  it.effect("no route answers 500 for odd methods and paths", () =>
    Effect.gen(function* () {
      const { org, filters } = yield* team
      const put = yield* request("PUT", filters, { token: org.ownerToken, json: { name: "x" } })
      assert.isBelow(put.status, 500)
      const noSlash = yield* request("POST", filters.slice(0, -1), { token: org.ownerToken, json: { name: "x" } })
      assert.strictEqual(noSlash.status, 404)
    })
  )
})
