import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Tokens } from "../src/Auth/Tokens.js"
import * as Fixtures from "./support/Fixtures.js"
import { assertRefused, del, get, patch, post, put, request, TestAppLive } from "./support/TestApp.js"

// The wire conventions every endpoint shares, seen from outside over HTTP (docs/api-conventions.md).
layer(TestAppLive, { excludeTestServices: true })("wire conventions", (it) => {
  it.effect("GET and HEAD without the trailing slash are redirected (301) to the slashed path, query kept", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const getResponse = yield* get("/organizations?search=x&page=1", { token: org.ownerToken })
      assert.strictEqual(getResponse.status, 301)
      assert.strictEqual(getResponse.headers.get("location"), "/organizations/?search=x&page=1")
      const head = yield* request("HEAD", `${org.path.slice(0, -1)}`, { token: org.ownerToken })
      assert.strictEqual(head.status, 301)
      assert.strictEqual(head.headers.get("location"), org.path)
    })
  )

  it.effect("other methods without the trailing slash get 404 naming the slashed path, and no redirect", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      for (const send of [post, patch, put, del]) {
        const response = yield* send("/organizations", { token: org.ownerToken, json: { name: "X" } })
        assert.strictEqual(response.status, 404)
        assert.strictEqual(response.headers.get("location"), null)
        assert.include(response.body.detail, "/organizations/")
        assert.strictEqual(response.headers.get("content-type"), "application/json")
      }
    })
  )

  it.effect("a missing token is 401 'not provided' with WWW-Authenticate", () =>
    Effect.gen(function* () {
      const variants: ReadonlyArray<Record<string, string>> = [
        {},
        { "x-service-token": "" },
        { "x-service-token": "   " }
      ]
      for (const headers of variants) {
        const response = yield* get("/organizations/", { headers })
        assert.strictEqual(response.status, 401)
        assert.deepStrictEqual(response.body, { detail: "Authentication credentials were not provided." })
        assert.strictEqual(response.headers.get("www-authenticate"), "X-Service-Token")
      }
    })
  )

  it.effect("unknown, malformed and revoked tokens are 401 'Invalid token.' with WWW-Authenticate", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const revoked = yield* Fixtures.member(org, "admin")
      yield* (yield* Tokens).revoke(revoked.token)
      const unknown = `hd_pat_${"A".repeat(43)}`
      for (const token of [unknown, "garbage", "hd_pat_short", `${org.ownerToken}x`, revoked.token]) {
        const response = yield* get("/organizations/", { token })
        assert.strictEqual(response.status, 401, token)
        assert.deepStrictEqual(response.body, { detail: "Invalid token." })
        assert.strictEqual(response.headers.get("www-authenticate"), "X-Service-Token")
      }
      // The owner's token still works: revocation is per token.
      assert.strictEqual((yield* get("/organizations/", { token: org.ownerToken })).status, 200)
    })
  )

  it.effect("HEAD works on GET paths; a method the path does not serve is 405 with Allow", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const head = yield* request("HEAD", "/organizations/", { token: org.ownerToken })
      assert.strictEqual(head.status, 200)
      const remove = yield* del(org.path, { token: org.ownerToken })
      assert.strictEqual(remove.status, 405)
      assert.deepStrictEqual(remove.body, { detail: 'Method "DELETE" not allowed.' })
      assert.sameMembers(remove.headers.get("allow")!.split(", "), ["GET", "HEAD", "PATCH"])
      const put = yield* request("PUT", "/organizations/", { token: org.ownerToken, json: {} })
      assert.strictEqual(put.status, 405)
      assert.sameMembers(put.headers.get("allow")!.split(", "), ["GET", "HEAD", "POST"])
    })
  )

  it.effect("an unknown path is 404 with a JSON detail", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* get("/no-such-thing/", { token: org.ownerToken })
      assert.strictEqual(response.status, 404)
      assert.deepStrictEqual(response.body, { detail: "Not found." })
    })
  )

  it.effect("malformed JSON is 400 'JSON parse error - <reason>'", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      for (const body of ["{bad", '{"name": "x",}', "[1, 2", '"unterminated']) {
        const response = yield* patch(org.path, { token: org.ownerToken, body, contentType: "application/json" })
        assert.strictEqual(response.status, 400, body)
        assert.match(response.body.detail, /^JSON parse error - .+/)
      }
    })
  )

  it.effect("a JSON body that is not an object is a non-field error", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* patch(org.path, { token: org.ownerToken, json: [1, 2] })
      assertRefused(response, {
        non_field_errors: ["Invalid data. Expected a JSON object, but got array."]
      })
    })
  )

  it.effect("other media types are 415 naming the type", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const text = yield* patch(org.path, { token: org.ownerToken, body: "name=x", contentType: "text/plain" })
      assert.strictEqual(text.status, 415)
      assert.deepStrictEqual(text.body, { detail: 'Unsupported media type "text/plain" in request.' })
      const xml = yield* post("/organizations/", {
        token: org.ownerToken,
        body: "<a/>",
        contentType: "application/xml; charset=utf-8"
      })
      assert.strictEqual(xml.status, 415)
      assert.deepStrictEqual(xml.body, { detail: 'Unsupported media type "application/xml" in request.' })
    })
  )

  it.effect("a body larger than 1 MB is 413 naming the limit", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* patch(org.path, {
        token: org.ownerToken,
        json: { description: "x".repeat(1024 * 1024 + 10) }
      })
      assert.strictEqual(response.status, 413)
      assert.include(response.body.detail, "1 MB")
    })
  )

  it.effect("form and multipart bodies: booleans in any accepted spelling, integers parsed", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const cases: ReadonlyArray<readonly [string, boolean]> = [
        ["TRUE", true],
        ["no", false],
        ["Yes", true],
        ["0", false],
        ["1", true],
        ["False", false]
      ]
      // Each encoding sets a boolean and an integer field of its own.
      const encodings = [
        ["form", "enable_csat", "customer_max_inactivity_period", 30],
        ["multipart", "enable_self_service", "customer_inactivity_reminder_period", 7]
      ] as const
      for (const [value, expected] of cases) {
        for (const [encoding, flag, period, days] of encodings) {
          const response = yield* patch(org.path, {
            token: org.ownerToken,
            [encoding]: { [flag]: value, [period]: String(days) }
          })
          assert.strictEqual(response.status, 200, `${encoding}: ${value}`)
          assert.strictEqual(response.body[flag], expected)
          assert.strictEqual(response.body[period], days)
        }
      }
      const bad = yield* patch(org.path, { token: org.ownerToken, form: { enable_csat: "maybe" } })
      assert.strictEqual(bad.status, 400)
      assert.deepStrictEqual(Object.keys(bad.body), ["enable_csat"])
    })
  )

  it.effect("a repeated form key for a single-valued field keeps the last value", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* patch(org.path, { token: org.ownerToken, form: { name: ["First", "Second"] } })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.name, "Second")
    })
  )

  it.effect("every field error is reported at once, each under its field", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* patch(org.path, {
        token: org.ownerToken,
        json: { name: "", support_email: "nope", enable_csat: "maybe", customer_max_inactivity_period: -1 }
      })
      assertRefused(response, {
        name: ["This field may not be blank."],
        support_email: ["Enter a valid email address."],
        enable_csat: ["Must be a valid boolean (true/false, 1/0 or yes/no)."],
        customer_max_inactivity_period: ["Ensure this value is greater than or equal to 0."]
      })
    })
  )

  it.effect("/healthz and /readyz answer without authentication", () =>
    Effect.gen(function* () {
      const live = yield* get("/healthz")
      assert.strictEqual(live.status, 200)
      assert.deepStrictEqual(live.body, { status: "ok" })
      const ready = yield* get("/readyz")
      assert.strictEqual(ready.status, 200)
      assert.deepStrictEqual(ready.body, { status: "ok" })
    })
  )

  it.effect("/openapi.json is OpenAPI 3.1 with the token scheme, the conventions and form bodies", () =>
    Effect.gen(function* () {
      const response = yield* get("/openapi.json")
      assert.strictEqual(response.status, 200)
      const spec = response.body
      assert.strictEqual(spec.openapi, "3.1.0")
      assert.deepInclude(spec.components.securitySchemes.serviceToken, {
        type: "apiKey",
        name: "X-Service-Token",
        in: "header"
      })
      assert.include(spec.info.description, "JSON parse error")
      const list = spec.paths["/organizations/"].get
      assert.deepStrictEqual(list.security, [{ serviceToken: [] }])
      assert.includeMembers(
        list.parameters.map((p: { name: string }) => p.name),
        ["page", "page_size", "ordering", "search"]
      )
      const create = spec.paths["/organizations/"].post
      assert.includeMembers(Object.keys(create.requestBody.content), [
        "application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data"
      ])
      assert.property(create.responses, "201")
      assert.property(create.responses, "401")
      assert.property(create.responses, "415")
      assert.notProperty(spec.components.schemas, "HttpApiDecodeError")
      const body = spec.components.schemas.OrganizationCreate
      assert.deepInclude(body.properties.name, { type: "string", maxLength: 255 })
      assert.deepInclude(body.properties.enable_csat, { type: "boolean" })
      assert.deepStrictEqual(body.required, ["name"])
    })
  )

  it.effect("/docs serves the interactive documentation", () =>
    Effect.gen(function* () {
      const response = yield* get("/docs")
      assert.strictEqual(response.status, 200)
      assert.include(response.text.toLowerCase(), "<html")
    })
  )

  it.effect("no input makes the service answer 500", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const bodies: ReadonlyArray<{ body: string; contentType?: string }> = [
        { body: "null", contentType: "application/json" },
        { body: "12", contentType: "application/json" },
        { body: '{"name": null}', contentType: "application/json" },
        { body: '{"name": {"nested": true}}', contentType: "application/json" },
        { body: '{"working_language": 12}', contentType: "application/json" },
        { body: '{"customer_max_inactivity_period": 1e400}', contentType: "application/json" },
        { body: "%%%=&&==", contentType: "application/x-www-form-urlencoded" },
        { body: "--x\r\nbroken", contentType: "multipart/form-data; boundary=x" },
        { body: "{}", contentType: "multipart/form-data" },
        { body: "stuff" },
        { body: "" }
      ]
      for (const { body, contentType } of bodies) {
        for (const path of [org.path, "/organizations/"]) {
          const send = path === org.path ? patch : post
          const response = yield* send(path, {
            token: org.ownerToken,
            body,
            ...(contentType ? { contentType } : {})
          })
          assert.isBelow(response.status, 500, `${path} ${contentType} ${body}`)
          assert.isAtLeast(response.status, 200)
          if (response.status >= 400) assert.isObject(response.body, `${path} ${contentType} ${body}`)
        }
      }
      for (const query of [
        "?page=0",
        "?page=-1",
        "?page=abc",
        "?page=1e3",
        "?page_size=0",
        "?ordering=,,,",
        "?ordering=-"
      ]) {
        const response = yield* get(`/organizations/${query}`, { token: org.ownerToken })
        assert.isBelow(response.status, 500, query)
      }
      for (const id of ["%20", "a.b", "ü", "x".repeat(300), "..", "%2F"]) {
        const response = yield* get(`/organizations/${id}/`, { token: org.ownerToken })
        assert.strictEqual(response.status, 404, id)
        assert.deepStrictEqual(response.body, { detail: "Not found." })
      }
    })
  )
})
