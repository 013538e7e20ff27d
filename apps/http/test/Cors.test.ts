import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import { parseCorsOrigins } from "../src/Http/Cors.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, post, request, testAppWith } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

const ALLOWED = "https://app.example.com"
const OTHER_ALLOWED = "http://localhost:5173"
const DISALLOWED = "https://evil.example.net"

/** A browser's preflight before a cross-origin PATCH with a token and a JSON body. */
const preflight = (path: string, origin: string) =>
  request("OPTIONS", path, {
    headers: {
      origin,
      "access-control-request-method": "PATCH",
      "access-control-request-headers": "x-service-token, content-type"
    }
  })

/** The CORS headers of an answer (names lower case). */
const corsHeaders = (headers: Headers) => {
  const found: Record<string, string> = {}
  headers.forEach((value, name) => {
    if (name.startsWith("access-control-")) found[name] = value
  })
  return found
}

describe("CORS_ORIGINS", () => {
  it("is empty (none), `*` (any), or a list of origins normalised as browsers send them", () => {
    assert.deepStrictEqual(parseCorsOrigins(""), Either.right({ _tag: "None" as const }))
    assert.deepStrictEqual(parseCorsOrigins(" , "), Either.right({ _tag: "None" as const }))
    assert.deepStrictEqual(parseCorsOrigins("*"), Either.right({ _tag: "Any" as const }))
    const list = parseCorsOrigins("https://App.Example.com:443, http://localhost:5173/")
    assert.isTrue(Either.isRight(list))
    if (Either.isRight(list) && list.right._tag === "List")
      assert.deepStrictEqual([...list.right.origins], ["https://app.example.com", "http://localhost:5173"])
  })

  it("refuses what is not an origin, and `*` among others", () => {
    for (const value of [
      "app.example.com",
      "ftp://app.example.com",
      "https://app.example.com/path",
      "https://user@app.example.com",
      "https://app.example.com?x=1",
      "*, https://app.example.com"
    ])
      assert.isTrue(Either.isLeft(parseCorsOrigins(value)), value)
  })
})

/** Reads a new organization and preflights its path from `origin`; asserts that neither answer has a CORS header. */
const withoutCorsFrom = (origin: string) =>
  Effect.gen(function* () {
    const org = yield* Fixtures.organization()
    const read = yield* get(org.path, { token: org.ownerToken, headers: { origin } })
    assert.strictEqual(read.status, 200)
    assert.deepStrictEqual(corsHeaders(read.headers), {})
    const options = yield* preflight(org.path, origin)
    assert.deepStrictEqual(corsHeaders(options.headers), {})
    return { org, read, options }
  })

layer(testAppWith({ CORS_ORIGINS: "" }), { excludeTestServices: true })("CORS off (the default)", (it) => {
  it.effect("no CORS header on any answer, and a preflight is not answered", () =>
    Effect.gen(function* () {
      const { read, options } = yield* withoutCorsFrom(ALLOWED)
      assert.notInclude(read.headers.get("vary") ?? "", "Origin")
      assert.strictEqual(options.status, 405)
    })
  )
})

layer(testAppWith({ CORS_ORIGINS: `${ALLOWED}, ${OTHER_ALLOWED}` }), { excludeTestServices: true })(
  "CORS for listed origins",
  (it) => {
    it.effect("a preflight from a listed origin → 204 with methods, headers and max-age, before any path rule", () =>
      Effect.gen(function* () {
        const org = yield* Fixtures.organization()
        for (const path of [`${org.path}tags/1/`, `${org.path}tags`, "/nowhere/"]) {
          const answer = yield* preflight(path, ALLOWED)
          assert.strictEqual(answer.status, 204, path)
          assert.strictEqual(answer.text, "")
          assert.strictEqual(answer.headers.get("access-control-allow-origin"), ALLOWED)
          assert.includeMembers((answer.headers.get("access-control-allow-methods") ?? "").split(", "), [
            "GET",
            "POST",
            "PUT",
            "PATCH",
            "DELETE"
          ])
          const allowedHeaders = (answer.headers.get("access-control-allow-headers") ?? "").toLowerCase()
          assert.include(allowedHeaders, "x-service-token")
          assert.include(allowedHeaders, "content-type")
          assert.isAbove(Number(answer.headers.get("access-control-max-age")), 0)
          assert.include(answer.headers.get("vary") ?? "", "Origin")
          assert.isNull(answer.headers.get("access-control-allow-credentials"))
        }
        const other = yield* preflight(org.path, OTHER_ALLOWED)
        assert.strictEqual(other.headers.get("access-control-allow-origin"), OTHER_ALLOWED)
      })
    )

    it.effect("real answers to a listed origin carry the origin and expose Location and X-Request-Id", () =>
      Effect.gen(function* () {
        const org = yield* Fixtures.organization()
        const created = yield* post(`${org.path}tags/`, {
          token: org.ownerToken,
          json: { name: "vip" },
          headers: { origin: ALLOWED }
        })
        assert.strictEqual(created.status, 201)
        assert.strictEqual(created.headers.get("access-control-allow-origin"), ALLOWED)
        const exposed = (created.headers.get("access-control-expose-headers") ?? "").toLowerCase()
        assert.include(exposed, "location")
        assert.include(exposed, "x-request-id")
        assert.include(created.headers.get("vary") ?? "", "Origin")
        // Errors too, so the caller's script can read them; and answers made before routing (a redirect).
        const unauthorized = yield* get(`${org.path}tags/`, { headers: { origin: ALLOWED } })
        assert.strictEqual(unauthorized.status, 401)
        assert.strictEqual(unauthorized.headers.get("access-control-allow-origin"), ALLOWED)
        const redirect = yield* get(`${org.path}tags`, { headers: { origin: ALLOWED } })
        assert.strictEqual(redirect.status, 301)
        assert.strictEqual(redirect.headers.get("access-control-allow-origin"), ALLOWED)
        // A routed read, too.
        const ticketOrg = yield* Tickets.organization
        const ticket = yield* Tickets.ticket(ticketOrg)
        const read = yield* get(Tickets.ticketPath(ticketOrg, ticket.id), {
          token: ticketOrg.ownerToken,
          headers: { origin: ALLOWED }
        })
        assert.strictEqual(read.status, 200)
        assert.strictEqual(read.headers.get("access-control-allow-origin"), ALLOWED)
        // Vary keeps what was there.
        const docs = yield* get("/openapi.json", { headers: { origin: ALLOWED } })
        assert.include(docs.headers.get("vary") ?? "", "Accept-Encoding")
        assert.include(docs.headers.get("vary") ?? "", "Origin")
      })
    )

    it.effect("another origin gets no CORS header, and its preflight is not answered", () =>
      Effect.gen(function* () {
        const { org, read, options } = yield* withoutCorsFrom(DISALLOWED)
        assert.include(read.headers.get("vary") ?? "", "Origin")
        assert.notStrictEqual(options.status, 204)
        // Without Origin (not a browser's cross-origin call) nothing changes either.
        const plain = yield* get(org.path, { token: org.ownerToken })
        assert.deepStrictEqual(corsHeaders(plain.headers), {})
      })
    )
  }
)

layer(testAppWith({ CORS_ORIGINS: "*" }), { excludeTestServices: true })("CORS for any origin", (it) => {
  it.effect("`*` answers every origin with `*` and never allows credentials", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const answer = yield* preflight(org.path, DISALLOWED)
      assert.strictEqual(answer.status, 204)
      assert.strictEqual(answer.headers.get("access-control-allow-origin"), "*")
      assert.isNull(answer.headers.get("access-control-allow-credentials"))
      const read = yield* get(org.path, { token: org.ownerToken, headers: { origin: DISALLOWED } })
      assert.strictEqual(read.headers.get("access-control-allow-origin"), "*")
      assert.isNull(read.headers.get("access-control-allow-credentials"))
    })
  )
})
