import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { type RawResponse, rawRequest } from "./support/RawHttp.js"
import { get, post, TestApp, TestAppLive } from "./support/TestApp.js"

/** Writes `head` (and `body`) on a raw socket to the app under test. */
const raw = (head: string, body?: string) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    return yield* rawRequest({ port: Number(new URL(baseUrl).port), head, ...(body !== undefined && { body }) })
  })

/** A refusal in the documented shape: JSON `{"detail": …}`, nosniff, and the connection closed. */
const assertRefused = (response: RawResponse, status: number, detail: string) => {
  assert.strictEqual(response.status, status, response.body)
  assert.deepStrictEqual(response.json, { detail })
  assert.strictEqual(response.headers["content-type"], "application/json")
  assert.strictEqual(response.headers["x-content-type-options"], "nosniff")
  assert.strictEqual(response.headers.connection, "close")
}

layer(TestAppLive, { excludeTestServices: true })("what the HTTP parser refuses, in the wire shape", (it) => {
  it.effect("bad bytes in the path: 400 Bad request.", () =>
    Effect.gen(function* () {
      assertRefused(yield* raw("GET /organizations/\x01/ HTTP/1.1\r\nHost: svc"), 400, "Bad request.")
      assertRefused(yield* raw("GET /organizations/a b/ HTTP/1.1\r\nHost: svc"), 400, "Bad request.")
    })
  )

  it.effect("a NUL or a bare CR in a header value: 400 Bad request.", () =>
    Effect.gen(function* () {
      assertRefused(yield* raw("GET /healthz HTTP/1.1\r\nHost: svc\r\nX-Note: a\x00b"), 400, "Bad request.")
      assertRefused(yield* raw("GET /healthz HTTP/1.1\r\nHost: svc\r\nX-Note: a\rb"), 400, "Bad request.")
    })
  )

  it.effect("100 kB of header or of query string: 431 Request header fields too large.", () =>
    Effect.gen(function* () {
      const big = "x".repeat(100_000)
      assertRefused(
        yield* raw(`GET /healthz HTTP/1.1\r\nHost: svc\r\nX-Big: ${big}`),
        431,
        "Request header fields too large."
      )
      assertRefused(
        yield* raw(`GET /organizations/?q=${big} HTTP/1.1\r\nHost: svc`),
        431,
        "Request header fields too large."
      )
    })
  )

  it.effect("an invalid chunk size in a chunked body: 400 Bad request., nothing written", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const tags = `${org.path}tags/`
      const response = yield* raw(
        [
          `POST ${tags} HTTP/1.1`,
          "Host: svc",
          `X-Service-Token: ${org.ownerToken}`,
          "Content-Type: application/json",
          "Transfer-Encoding: chunked"
        ].join("\r\n"),
        'zz\r\n{"name":"x"}\r\n0\r\n\r\n'
      )
      assertRefused(response, 400, "Bad request.")
      // The refused request's handler was interrupted mid-statement, and the read after it answers all the same
      // (its cancel once landed on this read's statement: CancelSafePool.ts).
      const after = yield* get(tags, { token: org.ownerToken })
      assert.strictEqual(after.status, 200, after.text)
      assert.strictEqual(after.body.count, 0, after.text)
    })
  )

  it.effect("every answer carries X-Content-Type-Options: nosniff", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const answers = [
        yield* get(`${org.path}tags/`, { token: org.ownerToken }), // 200
        yield* post(`${org.path}tags/`, { token: org.ownerToken, json: { name: "urgent" } }), // 201
        yield* post(`${org.path}tags/`, { token: org.ownerToken, json: {} }), // 400 field errors
        yield* get(`${org.path}tags/`), // 401
        yield* get("/no-such-thing/"), // 404
        yield* post("/organizations/x/tags"), // 404 without the slash
        yield* get("/organizations/x/tags"), // 301 to the slash
        yield* get("/healthz") // probe
      ]
      assert.deepStrictEqual(
        answers.map((a) => a.status),
        [200, 201, 400, 401, 404, 404, 301, 200]
      )
      for (const answer of answers) assert.strictEqual(answer.headers.get("x-content-type-options"), "nosniff")
    })
  )
})
