import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import * as Fuzz from "./support/Fuzz.js"
import { assertRefused, get, patch, post, TestApp, TestAppLive } from "./support/TestApp.js"

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

layer(TestAppLive, { excludeTestServices: true })("companies over HTTP", (it) => {
  it.effect("POST creates a company: 201, Location, every field", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const response = yield* post(`${org.path}companies/`, {
        token: org.ownerToken,
        json: {
          name: " Acme Corp ",
          default_assignee_id: org.ownerId,
          email_domains: ["ACME.test", "@acme.example", "acme.test"]
        }
      })
      assert.strictEqual(response.status, 201, response.text)
      const c = response.body
      assert.match(c.id, UUID)
      assert.strictEqual(c.name, "Acme Corp")
      assert.deepStrictEqual(c.default_assignee, {
        id: org.ownerId,
        email: org.ownerEmail,
        profile_picture_url: "",
        name: "Owner"
      })
      assert.deepStrictEqual(c.email_domains, ["acme.example", "acme.test"])
      assert.match(c.created_at, ISO_MS)
      assert.match(c.updated_at, ISO_MS)
      assert.deepStrictEqual(Object.keys(c).sort(), [
        "created_at",
        "default_assignee",
        "email_domains",
        "id",
        "name",
        "updated_at"
      ])
      assert.strictEqual(response.headers.get("location"), `${baseUrl}${org.path}companies/${c.id}/`)
      const read = yield* get(`${org.path}companies/${c.id}/`, { token: org.ownerToken })
      assert.deepStrictEqual(read.body, c)
      const upper = yield* get(`${org.path}companies/${c.id.toUpperCase()}/`, { token: org.ownerToken })
      assert.strictEqual(upper.status, 200)
    })
  )

  it.effect("name is required, at most 255 characters, unique ignoring case", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const path = `${org.path}companies/`
      const missing = yield* post(path, { token: org.ownerToken, json: {} })
      assert.deepStrictEqual(missing.body, { name: ["This field is required."] })
      const longest = yield* post(path, { token: org.ownerToken, json: { name: "n".repeat(255) } })
      assert.strictEqual(longest.status, 201)
      const tooLong = yield* post(path, { token: org.ownerToken, json: { name: "n".repeat(256) } })
      assert.deepStrictEqual(tooLong.body, { name: ["Ensure this field has no more than 255 characters."] })
      yield* post(path, { token: org.ownerToken, json: { name: "Globex" } })
      const taken = yield* post(path, { token: org.ownerToken, json: { name: "GLOBEX" } })
      assertRefused(taken, { name: ["A company with this name already exists."] })
    })
  )

  it.effect("email domains are validated, at most 50, unique in the organization", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const path = `${org.path}companies/`
      const bad = yield* post(path, {
        token: org.ownerToken,
        json: { name: "Bad", email_domains: ["ok.test", "not a domain", "localhost", "-x.test", "1.2.3.4"] }
      })
      assertRefused(bad, {
        email_domains: {
          "1": ['"not a domain" is not a valid domain name (e.g. example.com).'],
          "2": ['"localhost" is not a valid domain name (e.g. example.com).'],
          "3": ['"-x.test" is not a valid domain name (e.g. example.com).'],
          "4": ['"1.2.3.4" is not a valid domain name (e.g. example.com).']
        }
      })
      const notList = yield* post(path, { token: org.ownerToken, json: { name: "X", email_domains: "x.test" } })
      assert.deepStrictEqual(notList.body, { email_domains: ['Expected a list of items but got type "string".'] })
      const fifty = Array.from({ length: 50 }, (_, n) => `d${n}.test`)
      assert.strictEqual(
        (yield* post(path, { token: org.ownerToken, json: { name: "Fifty", email_domains: fifty } })).status,
        201
      )
      const fiftyOne = Array.from({ length: 51 }, (_, n) => `e${n}.test`)
      const tooMany = yield* post(path, { token: org.ownerToken, json: { name: "Many", email_domains: fiftyOne } })
      assert.deepStrictEqual(tooMany.body, { email_domains: ["Ensure this field has no more than 50 elements."] })
      const clash = yield* post(path, {
        token: org.ownerToken,
        json: { name: "Clash", email_domains: ["D7.test", "new.test"] }
      })
      assertRefused(clash, { email_domains: ["The domain d7.test already belongs to Fifty."] })
      const elsewhere = yield* post(`${other.path}companies/`, {
        token: other.ownerToken,
        json: { name: "Fifty", email_domains: ["d7.test"] }
      })
      assert.strictEqual(elsewhere.status, 201)
      const form = yield* post(path, {
        token: org.ownerToken,
        form: { name: "Form Co", email_domains: ["form.test", "form.example"] }
      })
      assert.strictEqual(form.status, 201, form.text)
      assert.deepStrictEqual(form.body.email_domains, ["form.example", "form.test"])
      const single = yield* post(path, {
        token: org.ownerToken,
        multipart: { name: "Single", email_domains: "single.test" }
      })
      assert.strictEqual(single.status, 201, single.text)
      assert.deepStrictEqual(single.body.email_domains, ["single.test"])
    })
  )

  it.effect("the default assignee must be a user of the organization", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const member = yield* Fixtures.member(org, "member")
      const path = `${org.path}companies/`
      const outsider = yield* post(path, {
        token: org.ownerToken,
        json: { name: "A", default_assignee_id: other.ownerId }
      })
      assertRefused(outsider, {
        default_assignee_id: [`Invalid pk "${other.ownerId}" - the user is not a member of this organization.`]
      })
      const notInt = yield* post(path, { token: org.ownerToken, json: { name: "A", default_assignee_id: "me" } })
      assert.deepStrictEqual(notInt.body, {
        default_assignee_id: ["Incorrect type. Expected pk value, received str."]
      })
      const created = yield* post(path, {
        token: org.ownerToken,
        json: { name: "A", default_assignee_id: member.userId }
      })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(created.body.default_assignee.id, member.userId)
      assert.strictEqual(created.body.default_assignee.email, member.email)
      const cleared = yield* patch(`${path}${created.body.id}/`, {
        token: org.ownerToken,
        json: { default_assignee_id: null }
      })
      assert.isNull(cleared.body.default_assignee)
    })
  )

  it.effect("PATCH renames, replaces the domains; unknown, foreign and malformed ids are 404", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const path = `${org.path}companies/`
      const c = (yield* post(path, { token: org.ownerToken, json: { name: "Initech", email_domains: ["a.test"] } }))
        .body
      const changed = yield* patch(`${path}${c.id}/`, {
        token: org.ownerToken,
        json: { name: "Initech Ltd", email_domains: ["b.test", "a.test"] }
      })
      assert.strictEqual(changed.status, 200)
      assert.strictEqual(changed.body.name, "Initech Ltd")
      assert.deepStrictEqual(changed.body.email_domains, ["a.test", "b.test"])
      const cleared = yield* patch(`${path}${c.id}/`, { token: org.ownerToken, json: { email_domains: [] } })
      assert.deepStrictEqual(cleared.body.email_domains, [])
      const theirs = (yield* post(`${other.path}companies/`, { token: other.ownerToken, json: { name: "Theirs" } }))
        .body
      for (const id of [theirs.id, "0f8fad5b-d9cb-469f-a165-70867728950e", "nope", "123"]) {
        assert.strictEqual((yield* get(`${path}${id}/`, { token: org.ownerToken })).status, 404, id)
        assert.strictEqual(
          (yield* patch(`${path}${id}/`, { token: org.ownerToken, json: { name: "Mine" } })).status,
          404
        )
      }
    })
  )

  it.effect("members read and write companies (decision 0412); the list pages, orders and searches", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const member = yield* Fixtures.member(org, "member")
      const path = `${org.path}companies/`
      for (const name of ["Beta", "Alpha"]) yield* post(path, { token: org.ownerToken, json: { name } })
      const byMember = yield* post(path, { token: member.token, json: { name: "Örsted" } })
      assert.strictEqual(byMember.status, 201, byMember.text)
      const renamed = yield* patch(`${path}${byMember.body.id}/`, { token: member.token, json: { name: "Örsted" } })
      assert.strictEqual(renamed.status, 200, renamed.text)
      const list = yield* get(`${path}?page_size=2`, { token: member.token })
      assert.strictEqual(list.status, 200)
      assert.strictEqual(list.body.count, 3)
      assert.deepStrictEqual(
        list.body.results.map((c: { name: string }) => c.name),
        ["Alpha", "Beta"]
      )
      assert.strictEqual(list.body.next, `${baseUrl}${path}?page_size=2&page=2`)
      const desc = yield* get(`${path}?ordering=-name`, { token: member.token })
      assert.deepStrictEqual(
        desc.body.results.map((c: { name: string }) => c.name),
        ["Örsted", "Beta", "Alpha"]
      )
      const search = yield* get(`${path}?search=orst`, { token: member.token })
      assert.deepStrictEqual(
        search.body.results.map((c: { name: string }) => c.name),
        ["Örsted"]
      )
      const bad = yield* get(`${path}?ordering=email`, { token: member.token })
      assert.strictEqual(bad.status, 400)
    })
  )

  it.effect("suggested members: customers without a company whose address is at one of the company's domains", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const path = `${org.path}companies/`
      const acme = (yield* post(path, { token: org.ownerToken, json: { name: "Acme", email_domains: ["acme.test"] } }))
        .body
      const other = (yield* post(path, { token: org.ownerToken, json: { name: "Other" } })).body
      const add = (json: Record<string, unknown>) => post(`${org.path}customers/`, { token: org.ownerToken, json })
      const ann = (yield* add({ email: "ann@ACME.test" })).body
      yield* add({ email: "bob@acme.test", company_id: acme.id })
      yield* add({ email: "cat@acme.test", company_id: other.id })
      yield* add({ email: "dan@sub.acme.test" })
      yield* add({ email: "eve@example.com" })
      const suggested = yield* get(`${path}${acme.id}/suggested-members/`, { token: org.ownerToken })
      assert.strictEqual(suggested.status, 200)
      assert.strictEqual(suggested.body.count, 1)
      assert.deepStrictEqual(suggested.body.results, [ann])
      const none = yield* get(`${path}${other.id}/suggested-members/`, { token: org.ownerToken })
      assert.strictEqual(none.body.count, 0)
      assert.strictEqual((yield* get(`${path}nope/suggested-members/`, { token: org.ownerToken })).status, 404)
    })
  )

  it.effect("arbitrary company bodies get 2xx or a 4xx, never a 500", () =>
    Fuzz.directoryWrites("companies", { name: "Target" }, ["name", "default_assignee_id", "email_domains"])
  )
})
