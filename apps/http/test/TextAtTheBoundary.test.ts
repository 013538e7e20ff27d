import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { rawRequest } from "./support/RawHttp.js"
import {
  assertRefused,
  get,
  patch,
  post,
  put,
  request,
  TestApp,
  TestAppLive,
  type TestResponse
} from "./support/TestApp.js"
import { ticket, organization as ticketOrganization } from "./TicketsSupport.js"

/**
 * Text the database cannot store, or would store as something else, is refused where it enters: U+0000, lone
 * UTF-16 surrogates and bytes that are not UTF-8, in any body field or key and in any query parameter, are a 400
 * naming the field, and nothing is stored. Valid text in any script goes through unchanged.
 */

const NUL = "Null characters are not allowed."
const SURROGATE = "Text must be valid Unicode (lone surrogate)."
const UTF8 = "Text must be valid UTF-8."

/** Strings that must be refused, with the message that refuses them. */
const BAD_TEXT: ReadonlyArray<readonly [string, string]> = [
  ["Before\u0000after", NUL],
  ["\u0000", NUL],
  ["Lone \ud800 high", SURROGATE],
  ["Lone \udc00 low", SURROGATE],
  ["Reversed \udc00\ud800 pair", SURROGATE]
]

/** Sends bytes as they are (fetch would re-encode a string). */
const sendBytes = (method: string, path: string, token: string, contentType: string, bytes: Uint8Array) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    const response = yield* Effect.promise(() =>
      fetch(new URL(path, baseUrl), {
        method,
        headers: { "content-type": contentType, "x-service-token": token },
        body: Buffer.from(bytes)
      })
    )
    const text = yield* Effect.promise(() => response.text())
    return { status: response.status, text, body: text === "" ? undefined : JSON.parse(text) }
  })

const bytesOf = (...parts: ReadonlyArray<string | ReadonlyArray<number>>) =>
  Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : Buffer.from(part))))

const countOf = (response: TestResponse) => {
  assert.strictEqual(response.status, 200, response.text)
  return Array.isArray(response.body) ? response.body.length : (response.body.count as number)
}

/** One free-text field of each resource, written over HTTP, and how to count what is stored. */
interface Case {
  readonly resource: string
  readonly method: "POST" | "PATCH" | "PUT"
  readonly path: string
  readonly field: string
  readonly body: (text: string) => Record<string, unknown>
  /** Who writes (the owner unless told). */
  readonly token?: string
  /** What must stay the same when the write is refused (a list's count, or the resource itself). */
  readonly stored: Effect.Effect<unknown, never, TestApp>
}

const cases = Effect.gen(function* () {
  const org = yield* ticketOrganization
  const token = org.ownerToken
  const first = yield* ticket(org)
  yield* Effect.tap(put(`${org.path}business-hours/`, { token, json: { timezone: "UTC", weekly_hours: {} } }), (r) =>
    assert.strictEqual(r.status, 200, r.text)
  )
  const collection = yield* post(`${org.path}portal/collections/`, { token, json: { name: "Start" } })
  assert.strictEqual(collection.status, 201, collection.text)
  const count = (path: string) => Effect.map(get(path, { token }), countOf)
  const whole = (path: string) => Effect.map(get(path, { token }), (r) => r.body)
  /** A POST creating a resource in the collection at `path`, which counts what is stored. */
  const created = (resource: string, path: string, field: string, body: Case["body"]): Case => ({
    resource,
    method: "POST",
    path,
    field,
    body,
    stored: count(path)
  })
  const list: ReadonlyArray<Case> = [
    created("organization", "/organizations/", "name", (name) => ({ name })),
    {
      resource: "organization settings",
      method: "PATCH",
      path: org.path,
      field: "name",
      body: (name) => ({ name }),
      stored: whole(org.path)
    },
    created("preset filter", `${org.path}custom-preset-filters/`, "name", (name) => ({ name })),
    created("collection", `${org.path}portal/collections/`, "name", (name) => ({ name })),
    created("article", `${org.path}portal/articles/`, "title", (title) => ({
      title,
      body: "Body",
      collection: collection.body.id
    })),
    created("customer", `${org.path}customers/`, "name", (name) => ({ name, email: Fixtures.uniqueEmail() })),
    created("company", `${org.path}companies/`, "name", (name) => ({ name })),
    created("tag", `${org.path}tags/`, "name", (name) => ({ name })),
    created("inbox", `${org.path}inboxes/`, "name", (name) => ({ name, email_prefix: "textcheck" })),
    created("ticket", org.tickets, "subject", (subject) => ({ subject, customer_email: "jane@example.com" })),
    created("message", `${org.tickets}${first.id}/messages/`, "content", (content) => ({ content })),
    {
      resource: "enrichment",
      method: "POST",
      path: `${org.tickets}${first.id}/enrichment/`,
      field: "summary",
      body: (summary) => ({ summary }),
      token: org.integration,
      stored: whole(`${org.tickets}${first.id}/`)
    },
    created("business-hours exception", `${org.path}business-hours/exceptions/`, "name", (name) => ({
      name,
      date: "2099-03-03"
    }))
  ]
  return { org, list }
})

layer(TestAppLive, { excludeTestServices: true })("text at the boundary", (it) => {
  it.effect(
    "U+0000 and lone surrogates in a free-text field of every resource: 400 naming the field, nothing stored",
    () =>
      Effect.gen(function* () {
        const { org, list } = yield* cases
        for (const c of list) {
          const before = yield* c.stored
          for (const [text, message] of BAD_TEXT) {
            const response = yield* request(c.method, c.path, { token: c.token ?? org.ownerToken, json: c.body(text) })
            assertRefused(response, { [c.field]: [message] }, `${c.resource} ${JSON.stringify(text)}`)
          }
          // The same through a form body (percent-encoded) and a multipart body.
          const form = yield* request(c.method, c.path, {
            token: c.token ?? org.ownerToken,
            form: Object.fromEntries(Object.entries(c.body("A\u0000B")).map(([k, v]) => [k, String(v)]))
          })
          assertRefused(form, { [c.field]: [NUL] }, `${c.resource} form`)
          const multipart = yield* request(c.method, c.path, {
            token: c.token ?? org.ownerToken,
            multipart: Object.fromEntries(Object.entries(c.body("A\u0000B")).map(([k, v]) => [k, String(v)]))
          })
          assertRefused(multipart, { [c.field]: [NUL] }, `${c.resource} multipart`)
          assert.deepStrictEqual(yield* c.stored, before, `${c.resource}: nothing stored`)
        }
      }),
    { timeout: 120_000 }
  )

  it.effect("keys are checked like values, nested fields are named by their path", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const key = yield* post(`${org.path}tags/`, { token: org.ownerToken, json: { name: "ok", "co\u0000lor": "" } })
      assertRefused(key, { "co\u0000lor": [NUL] })
      const nested = yield* post(`${org.path}custom-preset-filters/`, {
        token: org.ownerToken,
        json: { name: "f", criteria: { tags_include: ["fine", "bad\ud800"] } }
      })
      assertRefused(nested, { criteria: { tags_include: { "1": [SURROGATE] } } })
      const weekly = yield* put(`${org.path}business-hours/`, {
        token: org.ownerToken,
        json: { timezone: "UTC\u0000", weekly_hours: { mon: { opens_at: "09:00\ud800", closes_at: "17:00" } } }
      })
      assertRefused(weekly, {
        timezone: [NUL],
        weekly_hours: { mon: { opens_at: [SURROGATE] } }
      })
      // JSON text inside a form field is checked as a JSON body is.
      const criteria = yield* post(`${org.path}custom-preset-filters/`, {
        token: org.ownerToken,
        form: { name: "f", criteria: JSON.stringify({ tags_include: ["a\u0000"] }) }
      })
      assertRefused(criteria, { criteria: { tags_include: [NUL] } })
      const hours = yield* put(`${org.path}business-hours/`, {
        token: org.ownerToken,
        form: {
          timezone: "UTC",
          weekly_hours: JSON.stringify({ mon: { opens_at: "09:00\ud800", closes_at: "17:00" } })
        }
      })
      assertRefused(hours, { weekly_hours: { mon: { opens_at: [SURROGATE] } } })
    })
  )

  it.effect("bytes that are not UTF-8 in a JSON, form or multipart body: 400 naming the field, nothing stored", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const tags = `${org.path}tags/`
      const count = Effect.map(get(tags, { token: org.ownerToken }), countOf)
      const before = yield* count
      const send = (contentType: string, bytes: Uint8Array) =>
        sendBytes("POST", tags, org.ownerToken, contentType, bytes)

      const json = yield* send("application/json", bytesOf('{"name":"caf', [0xe9], '"}'))
      assertRefused(json, { name: [UTF8] })
      const broken = yield* send("application/json", bytesOf('{"name":', [0xff, 0xfe]))
      assertRefused(broken, { detail: "Request body is not valid UTF-8." })

      const raw = yield* send("application/x-www-form-urlencoded", bytesOf("name=caf", [0xe9]))
      assertRefused(raw, { name: [UTF8] })
      for (const encoded of ["caf%E9", "%FF", "%ED%A0%80", "%C0%80"]) {
        const form = yield* send("application/x-www-form-urlencoded", bytesOf(`color=&name=${encoded}`))
        assertRefused(form, { name: [UTF8] }, encoded)
      }
      const nul = yield* send("application/x-www-form-urlencoded", bytesOf("name=a%00b"))
      assert.deepStrictEqual(nul.body, { name: [NUL] })

      const boundary = "b0undary"
      const multipart = yield* send(
        `multipart/form-data; boundary=${boundary}`,
        bytesOf(
          `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\ncaf`,
          [0xe9],
          `\r\n--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="x.bin"\r\n`,
          "Content-Type: application/octet-stream\r\n\r\n",
          [0xff, 0x00, 0xfe],
          `\r\n--${boundary}--\r\n`
        )
      )
      assertRefused(multipart, { name: [UTF8] })
      // A binary file beside valid text is fine: only text parts must be UTF-8.
      const withFile = yield* send(
        `multipart/form-data; boundary=${boundary}`,
        bytesOf(
          `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nbinary beside`,
          `\r\n--${boundary}\r\nContent-Disposition: form-data; name="doc"; filename="x.bin"\r\n`,
          "Content-Type: application/octet-stream\r\n\r\n",
          [0xff, 0x00, 0xfe],
          `\r\n--${boundary}--\r\n`
        )
      )
      assert.strictEqual(withFile.status, 201, withFile.text)
      assert.strictEqual(yield* count, before + 1)
    })
  )

  it.effect("search, tags_include, tags_exclude and every other query parameter: 400 naming the parameter", () =>
    Effect.gen(function* () {
      const org = yield* ticketOrganization
      const token = org.ownerToken
      const lists = [
        "/organizations/",
        `${org.path}customers/`,
        `${org.path}companies/`,
        `${org.path}tags/`,
        `${org.tickets}`
      ]
      for (const [encoded, message] of [
        ["a%00b", NUL],
        ["%FF", UTF8],
        ["caf%E9", UTF8],
        ["%ED%A0%80", UTF8]
      ] as const) {
        for (const path of lists) {
          const param = path === org.tickets ? "q" : "search"
          const response = yield* get(`${path}?${param}=${encoded}`, { token })
          assertRefused(response, { [param]: [message] }, `${path} ${encoded}`)
        }
        for (const param of ["tags_include", "tags_exclude", "ordering", "page"]) {
          const response = yield* get(`${org.tickets}?${param}=ok&${param}=${encoded}`, { token })
          assertRefused(response, { [param]: [message] }, `${param} ${encoded}`)
        }
        const name = yield* get(`${org.path}tags/?x${encoded}=1`, { token })
        assert.strictEqual(name.status, 400, name.text)
      }
      // Raw bytes beyond ASCII in the request target, as a client that does not percent-encode sends them.
      const { baseUrl } = yield* TestApp
      const raw = yield* rawRequest({
        port: Number(new URL(baseUrl).port),
        head: `GET ${org.path}tags/?search=caf\xe9 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Service-Token: ${token}\r\nConnection: close`
      })
      assert.strictEqual(raw.status, 400, raw.body)
    })
  )

  it.effect("valid text in any script round-trips through JSON, form and multipart bodies and search", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const token = org.ownerToken
      const names = ["Café crème", "日本語のタグ", "Emoji 😀 👩‍💻", "Ünïcödé ẞ ﬁ", "Ελληνικά"]
      for (const [i, name] of names.entries()) {
        const options = i % 3 === 0 ? { json: { name } } : i % 3 === 1 ? { form: { name } } : { multipart: { name } }
        const created = yield* post(`${org.path}tags/`, { token, ...options })
        assert.strictEqual(created.status, 201, created.text)
        assert.strictEqual(created.body.name, name)
        const read = yield* get(`${org.path}tags/${created.body.id}/`, { token })
        assert.strictEqual(read.body.name, name)
      }
      const found = yield* get(`${org.path}tags/?search=${encodeURIComponent("日本語のタグ")}`, { token })
      assert.strictEqual(found.status, 200, found.text)
      assert.deepStrictEqual(
        found.body.results.map((t: { name: string }) => t.name),
        ["日本語のタグ"]
      )
      const renamed = yield* patch(`${org.path}`, { token, json: { name: "Société 株式会社 🚀" } })
      assert.strictEqual(renamed.status, 200, renamed.text)
      assert.strictEqual(renamed.body.name, "Société 株式会社 🚀")
    })
  )
})
