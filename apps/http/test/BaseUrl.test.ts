import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Either, Option, Stream } from "effect"
import { PendingAttachments } from "../src/Attachments/PendingAttachments.js"
import { decideBaseUrl, parseAuthority } from "../src/Http/Links.js"
import { HOST_HEADER_POLICY, parseBaseUrl } from "../src/Http/PublicBaseUrl.js"
import { uniqueEmail } from "./support/Fixtures.js"
import { rawRequest } from "./support/RawHttp.js"
import { get, post, TestApp, testAppWith } from "./support/TestApp.js"
import { ENGLISH, organization, type TicketOrg } from "./TicketsSupport.js"

/** A request written byte for byte, with the `Host` (and other headers) given. */
const raw = (
  method: string,
  path: string,
  options: {
    readonly host?: string
    readonly token?: string
    readonly json?: unknown
    readonly headers?: Record<string, string>
  }
) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    const body = options.json === undefined ? undefined : Buffer.from(JSON.stringify(options.json))
    const lines = [`${method} ${path} HTTP/1.1`, "Connection: close"]
    if (options.host !== undefined) lines.push(`Host: ${options.host}`)
    if (options.token !== undefined) lines.push(`X-Service-Token: ${options.token}`)
    for (const [name, value] of Object.entries(options.headers ?? {})) lines.push(`${name}: ${value}`)
    if (body !== undefined) lines.push("Content-Type: application/json", `Content-Length: ${body.length}`)
    return yield* rawRequest({ port: Number(new URL(baseUrl).port), head: lines.join("\r\n"), ...(body && { body }) })
  })

/** The creates checked: each with its list, whose `count` must not move when the create is refused. */
const creates = (org: TicketOrg) => [
  {
    name: "ticket",
    path: org.tickets,
    json: () => ({ subject: "Parcel missing", description: ENGLISH, customer_email: "jane@example.com" })
  },
  { name: "customer", path: `${org.path}customers/`, json: () => ({ name: "Ann Lee", email: uniqueEmail("ann") }) },
  { name: "tag", path: `${org.path}tags/`, json: () => ({ name: `tag-${Math.random().toString(36).slice(2)}` }) },
  { name: "company", path: `${org.path}companies/`, json: () => ({ name: `Acme ${Math.random()}` }) }
]

const count = (org: TicketOrg, path: string) =>
  Effect.map(get(path, { token: org.ownerToken }), (response) => response.body.count as number)

/** A pending upload of the organization's owner, for `download_url`. */
const upload = (org: TicketOrg) =>
  Effect.flatMap(PendingAttachments, (attachments) =>
    attachments.upload({
      organizationId: org.organizationId,
      caller: { _tag: "Person", userId: org.ownerId, tokenId: 0 },
      fileName: "invoice.txt",
      contentType: "text/plain",
      content: Stream.make(new TextEncoder().encode("invoice"))
    })
  ).pipe(Effect.orDie)

const BAD_HOSTS = ["a b", "", "[::1", "host:70000", "host:0", "user@host", "host/path", "host:"]

describe("base URL rules", () => {
  it("a Host is a hostname or IP literal with an optional port 1–65535, nothing else", () => {
    for (const bad of BAD_HOSTS) assert.isUndefined(parseAuthority("http", bad), bad)
    assert.strictEqual(parseAuthority("http", "Example.ORG:80"), "example.org")
    assert.strictEqual(parseAuthority("https", "example.org:8443"), "example.org:8443")
    assert.strictEqual(parseAuthority("http", "[::1]:3000"), "[::1]:3000")
    assert.strictEqual(parseAuthority("http", "10.0.0.7:65535"), "10.0.0.7:65535")
    assert.isUndefined(parseAuthority("http", "999.1.1.1"))
  })

  it("forwarded headers count only behind a trusted proxy; PUBLIC_BASE_URL overrides every header", () => {
    const headers = {
      host: "svc:3000",
      "x-forwarded-host": "proxy.example, evil.example",
      "x-forwarded-proto": "https"
    }
    assert.strictEqual(Either.getOrThrow(decideBaseUrl(HOST_HEADER_POLICY, headers)), "http://svc:3000")
    const trusted = { ...HOST_HEADER_POLICY, trustProxy: true }
    assert.strictEqual(Either.getOrThrow(decideBaseUrl(trusted, headers)), "https://proxy.example")
    const fixed = { publicBaseUrl: Option.some("https://help.example.com/desk"), trustProxy: true }
    assert.strictEqual(Either.getOrThrow(decideBaseUrl(fixed, { host: "a b" })), "https://help.example.com/desk")
    assert.deepStrictEqual(
      Either.flip(decideBaseUrl(HOST_HEADER_POLICY, {})).pipe(Either.getOrThrow),
      "Invalid Host header."
    )
  })

  it("PUBLIC_BASE_URL is an absolute http(s) URL, kept with its path prefix", () => {
    assert.strictEqual(
      Either.getOrThrow(parseBaseUrl("https://help.example.com/desk/")),
      "https://help.example.com/desk"
    )
    for (const bad of ["help.example.com", "ftp://x/", "https://u:p@x/", "https://x/?a=1", "https://x/#f"])
      assert.isTrue(Either.isLeft(parseBaseUrl(bad)), bad)
  })
})

layer(testAppWith({ PUBLIC_BASE_URL: "", TRUST_PROXY: "false" }), { excludeTestServices: true })(
  "base URL from the Host header",
  (it) => {
    it.effect("a malformed Host refuses every create with 400 JSON before anything is written", () =>
      Effect.gen(function* () {
        const org = yield* organization
        for (const create of creates(org)) {
          const before = yield* count(org, create.path)
          for (const host of BAD_HOSTS) {
            const response = yield* raw("POST", create.path, { host, token: org.ownerToken, json: create.json() })
            assert.strictEqual(
              response.status,
              400,
              `${create.name} with Host ${JSON.stringify(host)}: ${response.body}`
            )
            assert.deepStrictEqual(response.json, { detail: "Invalid Host header." })
            assert.strictEqual(response.headers["content-type"], "application/json")
            assert.strictEqual(response.headers["x-content-type-options"], "nosniff")
          }
          assert.strictEqual(yield* count(org, create.path), before, `${create.name}: nothing committed`)
          // The same create with a good Host goes through.
          const good = yield* raw("POST", create.path, {
            host: "svc.internal:8080",
            token: org.ownerToken,
            json: create.json()
          })
          assert.strictEqual(good.status, 201, good.body)
          assert.match(good.headers.location!, /^http:\/\/svc\.internal:8080\/organizations\//)
        }
      })
    )

    it.effect("two Host headers refuse the request with 400 JSON before anything is written (RFC 9112)", () =>
      Effect.gen(function* () {
        const org = yield* organization
        for (const create of creates(org)) {
          const before = yield* count(org, create.path)
          const response = yield* raw("POST", create.path, {
            host: "127.0.0.1",
            token: org.ownerToken,
            json: create.json(),
            headers: { Host: "evil.example" }
          })
          assert.strictEqual(response.status, 400, `${create.name}: ${response.body}`)
          assert.deepStrictEqual(response.json, { detail: "Invalid Host header." })
          assert.strictEqual(yield* count(org, create.path), before, `${create.name}: nothing committed`)
        }
      })
    )

    it.effect("GET ticket with a malformed Host: 400 JSON, not an empty 500", () =>
      Effect.gen(function* () {
        const org = yield* organization
        const created = yield* post(org.tickets, {
          token: org.ownerToken,
          json: { subject: "Parcel missing", description: ENGLISH, customer_email: "jane@example.com" }
        })
        const path = `${org.tickets}${created.body.id}/`
        for (const host of BAD_HOSTS) {
          const response = yield* raw("GET", path, { host, token: org.ownerToken })
          assert.strictEqual(response.status, 400, host)
          assert.deepStrictEqual(response.json, { detail: "Invalid Host header." })
          assert.strictEqual(response.headers["x-content-type-options"], "nosniff")
        }
        const ok = yield* raw("GET", path, { host: "svc.internal", token: org.ownerToken })
        assert.strictEqual(ok.status, 200)
        assert.strictEqual(ok.headers["x-content-type-options"], "nosniff")
      })
    )

    it.effect("X-Forwarded-Host and X-Forwarded-Proto are ignored without TRUST_PROXY", () =>
      Effect.gen(function* () {
        const org = yield* organization
        const forwarded = { "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https" }
        const tag = yield* raw("POST", `${org.path}tags/`, {
          host: "Svc.Internal:80",
          token: org.ownerToken,
          json: { name: "urgent" },
          headers: forwarded
        })
        assert.strictEqual(tag.status, 201)
        assert.match(tag.headers.location!, /^http:\/\/svc\.internal\/organizations\/[^/]+\/tags\/\d+\/$/)
        yield* post(`${org.path}tags/`, { token: org.ownerToken, json: { name: "later" } })
        const page = yield* raw("GET", `${org.path}tags/?page_size=1`, {
          host: "svc.internal:8080",
          token: org.ownerToken,
          headers: forwarded
        })
        assert.strictEqual(
          (page.json as { next: string }).next,
          `http://svc.internal:8080${org.path}tags/?page_size=1&page=2`
        )
      })
    )

    it.effect("probes and documentation, which make no links, answer whatever the Host", () =>
      Effect.gen(function* () {
        assert.strictEqual((yield* raw("GET", "/healthz", { host: "a b" })).status, 200)
        assert.strictEqual((yield* raw("GET", "/openapi.json", { host: "" })).status, 200)
      })
    )
  }
)

layer(testAppWith({ PUBLIC_BASE_URL: "https://help.example.com/desk/", TRUST_PROXY: "false" }), {
  excludeTestServices: true
})("base URL from PUBLIC_BASE_URL", (it) => {
  it.effect("every absolute link uses PUBLIC_BASE_URL (path prefix kept), whatever the Host says", () =>
    Effect.gen(function* () {
      const org = yield* organization
      for (const host of ["evil.example", "a b", ""]) {
        const tag = yield* raw("POST", `${org.path}tags/`, {
          host,
          token: org.ownerToken,
          json: { name: `t${Math.random()}` },
          headers: { "X-Forwarded-Host": "proxy.example" }
        })
        assert.strictEqual(tag.status, 201, host)
        assert.match(tag.headers.location!, /^https:\/\/help\.example\.com\/desk\/organizations\/[^/]+\/tags\/\d+\/$/)
      }
      const page = yield* raw("GET", `${org.path}tags/?page_size=1&page=2`, {
        host: "evil.example",
        token: org.ownerToken
      })
      assert.strictEqual(page.status, 200)
      assert.strictEqual(
        (page.json as { previous: string }).previous,
        `https://help.example.com/desk${org.path}tags/?page_size=1`
      )
      assert.strictEqual(
        (page.json as { next: string }).next,
        `https://help.example.com/desk${org.path}tags/?page_size=1&page=3`
      )

      // download_url, on the create and on the GET ticket.
      const file = yield* upload(org)
      const ticket = yield* raw("POST", org.tickets, {
        host: "evil.example",
        token: org.ownerToken,
        json: {
          subject: "Invoice",
          description: ENGLISH,
          customer_email: "jane@example.com",
          attachment_ids: [file.id]
        }
      })
      assert.strictEqual(ticket.status, 201, ticket.body)
      const created = ticket.json as { id: number; attachments: ReadonlyArray<{ download_url: string }> }
      assert.match(created.attachments[0]!.download_url, /^https:\/\/help\.example\.com\/desk\/attachments\//)
      const read = yield* raw("GET", `${org.tickets}${created.id}/`, { host: "evil.example", token: org.ownerToken })
      assert.strictEqual(read.status, 200)
      const readBody = read.json as { attachments: ReadonlyArray<{ download_url: string }> }
      assert.match(readBody.attachments[0]!.download_url, /^https:\/\/help\.example\.com\/desk\/attachments\//)
    })
  )
})

layer(testAppWith({ PUBLIC_BASE_URL: "", TRUST_PROXY: "true" }), { excludeTestServices: true })(
  "base URL behind a trusted proxy (TRUST_PROXY=true)",
  (it) => {
    it.effect("the first X-Forwarded-Proto and X-Forwarded-Host make the links; Host when there are none", () =>
      Effect.gen(function* () {
        const org = yield* organization
        const forwarded = yield* raw("POST", `${org.path}tags/`, {
          host: "svc.internal:3000",
          token: org.ownerToken,
          json: { name: "one" },
          headers: { "X-Forwarded-Host": "help.example.com, evil.example", "X-Forwarded-Proto": "https, http" }
        })
        assert.strictEqual(forwarded.status, 201)
        assert.match(forwarded.headers.location!, /^https:\/\/help\.example\.com\/organizations\//)
        const direct = yield* raw("POST", `${org.path}tags/`, {
          host: "svc.internal:3000",
          token: org.ownerToken,
          json: { name: "two" }
        })
        assert.match(direct.headers.location!, /^http:\/\/svc\.internal:3000\/organizations\//)
      })
    )

    it.effect("a malformed forwarded host or scheme refuses the request like a malformed Host", () =>
      Effect.gen(function* () {
        const org = yield* organization
        const before = yield* count(org, `${org.path}tags/`)
        for (const [header, value, detail] of [
          ["X-Forwarded-Host", "a b", "Invalid X-Forwarded-Host header."],
          ["X-Forwarded-Proto", "gopher", "Invalid X-Forwarded-Proto header."]
        ] as const) {
          const refused = yield* raw("POST", `${org.path}tags/`, {
            host: "svc.internal",
            token: org.ownerToken,
            json: { name: value },
            headers: { [header]: value }
          })
          assert.strictEqual(refused.status, 400, header)
          assert.deepStrictEqual(refused.json, { detail })
        }
        assert.strictEqual(yield* count(org, `${org.path}tags/`), before)
      })
    )
  }
)
