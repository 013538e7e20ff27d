import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import * as Fuzz from "./support/Fuzz.js"
import { assertRefused, del, get, patch, post, TestApp, TestAppLive } from "./support/TestApp.js"

layer(TestAppLive, { excludeTestServices: true })("tags over HTTP", (it) => {
  it.effect("POST creates a tag {id, name, color}; color is optional, #rrggbb stored lowercase", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const path = `${org.path}tags/`
      const response = yield* post(path, { token: org.ownerToken, json: { name: " Urgent ", color: "#FFAA00" } })
      assert.strictEqual(response.status, 201)
      assert.deepStrictEqual(response.body, { id: response.body.id, name: "Urgent", color: "#ffaa00" })
      assert.isNumber(response.body.id)
      assert.strictEqual(response.headers.get("location"), `${baseUrl}${path}${response.body.id}/`)
      const plain = yield* post(path, { token: org.ownerToken, json: { name: "plain" } })
      assert.strictEqual(plain.body.color, "")
      const nullColor = yield* post(path, { token: org.ownerToken, json: { name: "nothing", color: null } })
      assert.strictEqual(nullColor.body.color, "")
      for (const bad of ["red", "#fff", "#12345g", "123456", "#1234567", 7]) {
        const r = yield* post(path, { token: org.ownerToken, json: { name: "c", color: bad } })
        assertRefused(
          r,
          {
            color: ['Enter a color as "#rrggbb" (six hexadecimal digits), or "" for none.']
          },
          String(bad)
        )
      }
      const read = yield* get(`${path}${response.body.id}/`, { token: org.ownerToken })
      assert.deepStrictEqual(read.body, response.body)
    })
  )

  it.effect("name: required, at most 100 characters, unique in the organization ignoring case", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const path = `${org.path}tags/`
      assert.deepStrictEqual((yield* post(path, { token: org.ownerToken, json: {} })).body, {
        name: ["This field is required."]
      })
      assert.strictEqual((yield* post(path, { token: org.ownerToken, json: { name: "t".repeat(100) } })).status, 201)
      assert.deepStrictEqual((yield* post(path, { token: org.ownerToken, json: { name: "t".repeat(101) } })).body, {
        name: ["Ensure this field has no more than 100 characters."]
      })
      yield* post(path, { token: org.ownerToken, json: { name: "Billing" } })
      const taken = yield* post(path, { token: org.ownerToken, json: { name: "BILLING" } })
      assertRefused(taken, { name: ["A tag with this name already exists."] })
      assert.strictEqual(
        (yield* post(`${other.path}tags/`, { token: other.ownerToken, json: { name: "billing" } })).status,
        201
      )
      const form = yield* post(path, { token: org.ownerToken, form: { name: "form", color: "#00FF00" } })
      assert.deepStrictEqual(form.body, { id: form.body.id, name: "form", color: "#00ff00" })
      const multipart = yield* post(path, { token: org.ownerToken, multipart: { name: "multi" } })
      assert.strictEqual(multipart.status, 201)
    })
  )

  it.effect("PATCH renames and recolors; DELETE answers 204; both 404 for foreign or unknown tags", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const path = `${org.path}tags/`
      const tag = (yield* post(path, { token: org.ownerToken, json: { name: "bug", color: "#ff0000" } })).body
      yield* post(path, { token: org.ownerToken, json: { name: "feature" } })
      const renamed = yield* patch(`${path}${tag.id}/`, { token: org.ownerToken, json: { name: "Bug" } })
      assert.deepStrictEqual(renamed.body, { id: tag.id, name: "Bug", color: "#ff0000" })
      const uncolored = yield* patch(`${path}${tag.id}/`, { token: org.ownerToken, json: { color: "" } })
      assert.strictEqual(uncolored.body.color, "")
      const clash = yield* patch(`${path}${tag.id}/`, { token: org.ownerToken, json: { name: "FEATURE" } })
      assert.deepStrictEqual(clash.body, { name: ["A tag with this name already exists."] })
      const theirs = (yield* post(`${other.path}tags/`, { token: other.ownerToken, json: { name: "theirs" } })).body
      for (const pk of [String(theirs.id), "x", "999999"]) {
        assert.strictEqual((yield* patch(`${path}${pk}/`, { token: org.ownerToken, json: { name: "y" } })).status, 404)
        assert.strictEqual((yield* del(`${path}${pk}/`, { token: org.ownerToken })).status, 404)
      }
      const deleted = yield* del(`${path}${tag.id}/`, { token: org.ownerToken })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual(deleted.text, "")
      assert.strictEqual((yield* get(`${path}${tag.id}/`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* del(`${path}${tag.id}/`, { token: org.ownerToken })).status, 404)
      assert.strictEqual((yield* get(`${other.path}tags/${theirs.id}/`, { token: other.ownerToken })).status, 200)
    })
  )

  it.effect("members read but cannot create, change or delete; tokens can", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const member = yield* Fixtures.member(org, "member")
      const integration = yield* Fixtures.integrationToken(org)
      const path = `${org.path}tags/`
      const tag = (yield* post(path, { token: org.ownerToken, json: { name: "x" } })).body
      assert.strictEqual((yield* get(path, { token: member.token })).status, 200)
      assert.strictEqual((yield* post(path, { token: member.token, json: { name: "m" } })).status, 403)
      assert.strictEqual((yield* patch(`${path}${tag.id}/`, { token: member.token, json: { name: "m" } })).status, 403)
      assert.strictEqual((yield* del(`${path}${tag.id}/`, { token: member.token })).status, 403)
      assert.strictEqual((yield* post(path, { token: integration, json: { name: "i" } })).status, 201)
      assert.strictEqual((yield* del(`${path}${tag.id}/`, { token: integration })).status, 204)
      assert.strictEqual((yield* get(path, { token: yield* Fixtures.outsider })).status, 404)
    })
  )

  it.effect("the list pages, orders by name by default, and searches ignoring case", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const { baseUrl } = yield* TestApp
      const path = `${org.path}tags/`
      for (const name of ["delta", "Alpha", "charlie", "Bravo"])
        yield* post(path, { token: org.ownerToken, json: { name } })
      const first = yield* get(`${path}?page_size=3`, { token: org.ownerToken })
      assert.strictEqual(first.body.count, 4)
      assert.deepStrictEqual(
        first.body.results.map((t: { name: string }) => t.name),
        ["Alpha", "Bravo", "charlie"]
      )
      assert.strictEqual(first.body.next, `${baseUrl}${path}?page_size=3&page=2`)
      const desc = yield* get(`${path}?ordering=-name&page_size=2&page=2`, { token: org.ownerToken })
      assert.deepStrictEqual(
        desc.body.results.map((t: { name: string }) => t.name),
        ["Bravo", "Alpha"]
      )
      const search = yield* get(`${path}?search=HAR`, { token: org.ownerToken })
      assert.deepStrictEqual(
        search.body.results.map((t: { name: string }) => t.name),
        ["charlie"]
      )
      const literal = yield* get(`${path}?search=%25`, { token: org.ownerToken })
      assert.strictEqual(literal.body.count, 0)
      assert.strictEqual((yield* get(`${path}?page=9`, { token: org.ownerToken })).status, 404)
    })
  )

  it.effect("arbitrary tag bodies get 2xx or a 4xx, never a 500", () =>
    Fuzz.directoryWrites("tags", { name: "target" }, ["name", "color"])
  )

  it.effect("/openapi.json documents the directory endpoints", () =>
    Effect.gen(function* () {
      const spec = (yield* get("/openapi.json")).body
      for (const path of [
        "/organizations/{organization_id}/customers/",
        "/organizations/{organization_id}/customers/{pk}/",
        "/organizations/{organization_id}/companies/",
        "/organizations/{organization_id}/companies/{company_id}/",
        "/organizations/{organization_id}/companies/{company_id}/suggested-members/",
        "/organizations/{organization_id}/inboxes/",
        "/organizations/{organization_id}/inboxes/{pk}/",
        "/organizations/{organization_id}/tags/",
        "/organizations/{organization_id}/tags/{pk}/"
      ])
        assert.property(spec.paths, path)
      const create = spec.paths["/organizations/{organization_id}/customers/"].post
      assert.property(create.requestBody.content, "application/x-www-form-urlencoded")
      assert.property(create.responses, "201")
      assert.property(spec.paths["/organizations/{organization_id}/tags/{pk}/"].delete.responses, "204")
    })
  )
})
