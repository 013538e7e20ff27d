import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { get, patch, post, put, request, TestAppLive, type TestRequest, type TestResponse } from "./support/TestApp.js"
import { outbox, ticket, organization as ticketOrganization } from "./TicketsSupport.js"

/**
 * Untrusted keys never become properties of shared prototypes: `__proto__`, `constructor` and `prototype` as
 * keys of JSON, form and multipart bodies and of query strings, at the top level and nested, sent to every write
 * operation `/openapi.json` lists, answer 2xx or 4xx, and afterwards `Object.prototype` is untouched and other
 * organizations' customers and business hours are as they would be without the attack.
 */

const HOSTILE_JSON = [
  '{"__proto__":{"is_spam":true,"opens_at":"09:00"},"constructor":{"prototype":{"is_spam":true}},"prototype":{"is_spam":true}}',
  '{"weekly_hours":{"__proto__":{"opens_at":"09:00","closes_at":"17:00","is_spam":true},"constructor":{"prototype":{"is_spam":true}},"prototype":null},"timezone":"UTC"}',
  '{"criteria":{"__proto__":["x"],"constructor":["x"],"prototype":["x"]},"name":"x"}',
  '{"criteria":{"__proto__":{"is_spam":true},"constructor":{"prototype":{"is_spam":true}}},"name":"x"}',
  '{"name":"x","email":"p@example.com","__proto__":{"is_spam":true},"hasOwnProperty":1,"toString":"x","valueOf":{}}'
]

const HOSTILE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["__proto__[is_spam]", "true"],
  ["constructor[prototype][is_spam]", "true"],
  ["__proto__", "x"],
  ["__proto__", "y"],
  ["constructor", "x"],
  ["prototype", "x"],
  ["hasOwnProperty", "x"],
  ["toString", "x"],
  ["weekly_hours[__proto__][is_spam]", "true"],
  ["weekly_hours[__proto__][opens_at]", "09:00"],
  ["weekly_hours.__proto__.opens_at", "09:00"],
  ["weekly_hours.__proto__.closes_at", "17:00"],
  ["weekly_hours[constructor][prototype]", "true"],
  ["weekly_hours.constructor.opens_at", "09:00"],
  ["weekly_hours[prototype][is_spam]", "true"],
  ["weekly_hours.__proto__", ""],
  ["criteria", '{"__proto__":["x"],"constructor":["x"]}'],
  ["timezone", "UTC"],
  ["name", "x"]
]

const HOSTILE_QUERY =
  "__proto__=x&__proto__=y&constructor=x&prototype=x&__proto__[is_spam]=true&constructor[prototype][is_spam]=true" +
  "&weekly_hours[__proto__][is_spam]=true&ordering=__proto__&search=__proto__&page=constructor&tags_include=__proto__"

const formBody = () => new URLSearchParams(HOSTILE_PAIRS.map(([k, v]) => [k, v])).toString()

const BOUNDARY = "----hostile-keys-boundary"

const multipartBody = () =>
  [
    ...HOSTILE_PAIRS.map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="__proto__"; filename="__proto__"\r\nContent-Type: text/plain\r\n\r\nx\r\n`,
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file_upload"; filename="constructor"\r\nContent-Type: text/plain\r\n\r\nx\r\n`,
    `--${BOUNDARY}--\r\n`
  ].join("")

/** The bodies sent to each write operation (and one without a body, for those that take none). */
const BODIES: ReadonlyArray<TestRequest> = [
  ...HOSTILE_JSON.map((body) => ({ body, contentType: "application/json" })),
  { body: formBody(), contentType: "application/x-www-form-urlencoded" },
  { body: multipartBody(), contentType: `multipart/form-data; boundary=${BOUNDARY}` },
  {}
]

const prototypeKeys = () => Object.getOwnPropertyNames(Object.prototype).sort()

const WRITE_METHODS = ["post", "put", "patch", "delete"]

/** An organization with one of each resource, so every path parameter names something real. */
const attackerOrganization = Effect.gen(function* () {
  const org = yield* ticketOrganization
  const token = org.ownerToken
  const created = (response: TestResponse) => {
    assert.strictEqual(response.status, 201, response.text)
    return response.body
  }
  yield* Effect.tap(patch(org.path, { token, json: { enable_csat: true } }), (r) => assert.strictEqual(r.status, 200))
  yield* Effect.tap(put(`${org.path}business-hours/`, { token, json: { timezone: "UTC", weekly_hours: {} } }), (r) =>
    assert.strictEqual(r.status, 200, r.text)
  )
  const exception = created(
    yield* post(`${org.path}business-hours/exceptions/`, { token, json: { date: "2099-01-01" } })
  )
  const filter = created(yield* post(`${org.path}custom-preset-filters/`, { token, json: { name: "f" } }))
  const collection = created(yield* post(`${org.path}portal/collections/`, { token, json: { name: "c" } }))
  const article = created(
    yield* post(`${org.path}portal/articles/`, {
      token,
      json: { title: "a", body: "b", collection: collection.id }
    })
  )
  const customer = created(yield* post(`${org.path}customers/`, { token, json: { email: Fixtures.uniqueEmail() } }))
  const company = created(yield* post(`${org.path}companies/`, { token, json: { name: "co" } }))
  const inbox = created(yield* post(`${org.path}inboxes/`, { token, json: { name: "i", email_prefix: "pp" } }))
  const tag = created(yield* post(`${org.path}tags/`, { token, json: { name: "t" } }))
  const member = created(yield* post(`${org.path}members/`, { token, json: { email: Fixtures.uniqueEmail() } }))
  const spareToken = created(yield* post(`${org.path}personal-tokens/`, { token, json: { name: "spare" } }))
  const slaPolicy = created(yield* post(`${org.path}sla-policies/`, { token, json: { name: "s" } }))
  const webhook = created(yield* post(`${org.path}webhooks/`, { token, json: { url: "https://hooks.example.com/p" } }))
  const first = yield* ticket(org)
  const closed = yield* ticket(org)
  yield* Effect.tap(
    patch(`${org.tickets}${closed.id}/`, { token, json: { status: "closed", classification: "resolved" } }),
    (r) => assert.strictEqual(r.status, 200, r.text)
  )
  const survey = (yield* outbox(closed.id)).find((row) => row.kind === "csat_survey")
  const csat = /\/csat\/(hd_csat_[\w-]{43})\//.exec(String(survey?.payload.text))?.[1]
  assert.isDefined(csat)
  // Path parameters by the collection segment before them (`pk` is shared by several resources).
  const ids: Record<string, string> = {
    "custom-preset-filters": filter.id,
    collections: String(collection.id),
    articles: String(article.id),
    customers: String(customer.id),
    companies: company.id,
    inboxes: String(inbox.id),
    tags: String(tag.id),
    members: String(member.id),
    "personal-tokens": String(spareToken.id),
    "sla-policies": String(slaPolicy.id),
    webhooks: String(webhook.id),
    tickets: String(first.id),
    exceptions: String(exception.id),
    csat: csat!
  }
  const fill = (template: string) =>
    template.replace(/\/([^/{}]+)\/\{[^}]+\}/g, (_, segment: string) =>
      segment === "organizations" ? `/${segment}/${org.organization.public_id}` : `/${segment}/${ids[segment]}`
    )
  return { org, fill }
})

layer(TestAppLive, { excludeTestServices: true })("untrusted keys", (it) => {
  it.effect(
    "__proto__, constructor and prototype keys in every write operation's bodies and query answer 2xx/4xx and pollute nothing",
    () =>
      Effect.gen(function* () {
        const before = prototypeKeys()
        const { org, fill } = yield* attackerOrganization
        const spec = (yield* get("/openapi.json")).body
        const operations: Array<{ method: string; path: string }> = []
        for (const [template, methods] of Object.entries(spec.paths as Record<string, Record<string, unknown>>))
          for (const method of Object.keys(methods))
            if (WRITE_METHODS.includes(method)) operations.push({ method: method.toUpperCase(), path: fill(template) })
        // Deletions last, so the other operations reach real resources.
        operations.sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"))
        assert.isAtLeast(operations.length, 30)
        const serverErrors: Array<string> = []
        for (const operation of operations) {
          assert.notInclude(operation.path, "undefined", operation.path)
          for (const body of BODIES) {
            for (const query of ["", `?${HOSTILE_QUERY}`]) {
              const response = yield* request(operation.method, `${operation.path}${query}`, {
                token: org.ownerToken,
                ...body
              })
              if (response.status >= 500)
                serverErrors.push(
                  `${operation.method} ${operation.path}${query} ${body.contentType ?? ""}: ${response.text}`
                )
            }
          }
        }
        assert.isUndefined(({} as Record<string, unknown>).is_spam)
        assert.isUndefined(({} as Record<string, unknown>).opens_at)
        assert.deepStrictEqual(prototypeKeys(), before)
        assert.deepStrictEqual(serverErrors, [])

        // Another organization, afterwards: a new customer is not spam, new business hours are what was sent.
        const other = yield* Fixtures.organization()
        const customer = yield* post(`${other.path}customers/`, {
          token: other.ownerToken,
          json: { email: Fixtures.uniqueEmail() }
        })
        assert.strictEqual(customer.status, 201, customer.text)
        assert.strictEqual(customer.body.is_spam, false)
        const hours = yield* put(`${other.path}business-hours/`, {
          token: other.ownerToken,
          json: { timezone: "UTC", weekly_hours: { mon: { opens_at: "09:00", closes_at: "17:00" } } }
        })
        assert.strictEqual(hours.status, 200, hours.text)
        assert.deepStrictEqual(
          Object.values(hours.body.weekly_hours).filter((day) => day !== null),
          [{ opens_at: "09:00", closes_at: "17:00" }]
        )
        const exception = yield* post(`${other.path}business-hours/exceptions/`, {
          token: other.ownerToken,
          json: { date: "2099-02-02" }
        })
        assert.strictEqual(exception.status, 201, exception.text)
        assert.strictEqual(exception.body.opens_at, null)
      }),
    { timeout: 120_000 }
  )

  it.effect("a weekday key __proto__ or constructor in JSON is a 400 naming the unknown weekday", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      for (const key of ["__proto__", "constructor", "prototype"]) {
        const response = yield* request("PUT", `${org.path}business-hours/`, {
          token: org.ownerToken,
          contentType: "application/json",
          body: `{"timezone":"UTC","weekly_hours":{"${key}":{"opens_at":"09:00","closes_at":"17:00"}}}`
        })
        assert.strictEqual(response.status, 400, response.text)
        assert.strictEqual(
          response.text,
          JSON.stringify({
            weekly_hours: { [key]: [`Unknown weekday "${key}". Use one of mon, tue, wed, thu, fri, sat, sun.`] }
          })
        )
      }
    })
  )

  it.effect("a form weekday __proto__ is a 400 naming the unknown weekday, and fills in nothing", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const response = yield* request("PUT", `${org.path}business-hours/`, {
        token: org.ownerToken,
        contentType: "application/x-www-form-urlencoded",
        body: "timezone=UTC&weekly_hours[__proto__][opens_at]=09:00&weekly_hours[__proto__][closes_at]=17:00"
      })
      assert.strictEqual(response.status, 400, response.text)
      assert.include(response.text, '"__proto__":["Unknown weekday \\"__proto__\\".')
      assert.isUndefined(({} as Record<string, unknown>).opens_at)
    })
  )
})
