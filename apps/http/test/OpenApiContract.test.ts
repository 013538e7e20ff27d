import { request as httpRequest } from "node:http"
import { gunzipSync } from "node:zlib"
import { OpenApi } from "@effect/platform"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Api } from "../src/Api.js"
import { acceptsGzip, servedApi } from "../src/Http/OpenApiDocs.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, post, TestApp, TestAppLive } from "./support/TestApp.js"

// biome-ignore lint/suspicious/noExplicitAny: the document is untyped JSON
type Json = any

/** A GET answered with its raw bytes (no decompression), for the encodings and validators. */
const fetchBytes = (path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    return yield* Effect.async<{ status: number; headers: Record<string, string | undefined>; body: Buffer }>(
      (resume) => {
        const req = httpRequest(new URL(path, baseUrl), { method: "GET", headers }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () =>
            resume(
              Effect.succeed({
                status: res.statusCode ?? 0,
                headers: res.headers as Record<string, string | undefined>,
                body: Buffer.concat(chunks)
              })
            )
          )
        })
        req.on("error", (error) => resume(Effect.die(error)))
        req.end()
      }
    )
  })

/** Every schema object in the document, with where it is. */
const schemasIn = (node: Json, at = "#", found: Array<{ at: string; schema: Json }> = []) => {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) schemasIn(item, `${at}/${i}`, found)
  } else if (node !== null && typeof node === "object") {
    if ("type" in node || "items" in node) found.push({ at, schema: node })
    for (const [key, value] of Object.entries(node)) schemasIn(value, `${at}/${key}`, found)
  }
  return found
}

const isArraySchema = (schema: Json) =>
  schema.type === "array" || (Array.isArray(schema.type) && schema.type.includes("array"))

/** The operations of the document: path, method, operation. */
const operations = (spec: Json) =>
  Object.entries(spec.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation }))
  )

describe("the OpenAPI document", () => {
  const spec: Json = OpenApi.fromApi(Api)

  it("describes version 2.1.0 of the API, under the MIT licence", () => {
    assert.strictEqual(spec.info.version, "2.1.0")
    assert.strictEqual(spec.info.license.name, "MIT")
  })

  it("types the items of every array, request bodies included (tags, attachment_ids, recipient lists)", () => {
    const arrays = schemasIn(spec).filter(({ schema }) => isArraySchema(schema))
    assert.isAbove(arrays.length, 0)
    const untyped = arrays.filter(({ schema }) => typeof schema.items !== "object" || schema.items === null)
    assert.deepStrictEqual(
      untyped.map(({ at }) => at),
      []
    )
    const ticket = spec.components.schemas.TicketCreate.properties
    assert.deepInclude(ticket.tags.items, { type: "integer" })
    assert.deepInclude(ticket.attachment_ids.items, { type: "string" })
    assert.deepInclude(ticket.bcc_recipient_emails.items, { type: "string", format: "email" })
  })

  it("declares Location on 201s, WWW-Authenticate on 401s and X-Request-Id on every answer", () => {
    const all = operations(spec)
    const created = all.filter(({ operation }) => operation.responses["201"] !== undefined)
    assert.isAbove(created.length, 10)
    for (const { path, method, operation } of created) {
      if (operation.operationId === "csat.answer") continue // the survey page, not a new resource
      assert.property(operation.responses["201"].headers ?? {}, "Location", `${method} ${path}`)
    }
    for (const { path, method, operation } of all) {
      const unauthorized = operation.responses["401"]
      if (unauthorized !== undefined)
        assert.property(unauthorized.headers ?? {}, "WWW-Authenticate", `${method} ${path}`)
      assert.property(operation.responses["500"]?.headers ?? {}, "X-Request-Id", `${method} ${path}`)
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>))
        assert.property(response.headers ?? {}, "X-Request-Id", `${method} ${path} ${status}`)
    }
  })

  it("describes every tag, and every tag an operation uses is listed", () => {
    const listed = new Map<string, Json>(spec.tags.map((tag: Json) => [tag.name, tag]))
    for (const tag of listed.values()) assert.isNotEmpty(tag.description ?? "", tag.name)
    for (const { operation } of operations(spec)) for (const name of operation.tags) assert.isTrue(listed.has(name))
  })

  it("keeps no component schema that nothing refers to", () => {
    const text = JSON.stringify({ ...spec, components: { ...spec.components, schemas: {} } })
    const nested = JSON.stringify(spec.components.schemas)
    for (const name of Object.keys(spec.components.schemas)) {
      const ref = `"#/components/schemas/${name}"`
      assert.isTrue(text.includes(ref) || nested.includes(ref), name)
    }
  })

  it("names the served address: PUBLIC_BASE_URL when set, else the relative /", () => {
    assert.deepStrictEqual(
      OpenApi.fromApi(servedApi(Api, Option.none())).servers?.map((server) => server.url),
      ["/"]
    )
    assert.deepStrictEqual(
      OpenApi.fromApi(servedApi(Api, Option.some("https://help.example.com/desk"))).servers?.map((s) => s.url),
      ["https://help.example.com/desk"]
    )
  })

  it("gzip is used when Accept-Encoding admits it", () => {
    assert.isTrue(acceptsGzip("gzip, deflate, br"))
    assert.isTrue(acceptsGzip("br;q=1.0, gzip;q=0.8"))
    assert.isTrue(acceptsGzip("*"))
    assert.isFalse(acceptsGzip(undefined))
    assert.isFalse(acceptsGzip("identity"))
    assert.isFalse(acceptsGzip("gzip;q=0"))
    assert.isFalse(acceptsGzip("*;q=0.5, gzip;q=0"))
  })
})

layer(TestAppLive, { excludeTestServices: true })("serving /openapi.json and /docs", (it) => {
  it.effect("the served document is the contract, its servers relative without PUBLIC_BASE_URL", () =>
    Effect.gen(function* () {
      const response = yield* get("/openapi.json")
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.body.info.version, "2.1.0")
      assert.deepStrictEqual(
        response.body.servers.map((server: Json) => server.url),
        ["/"]
      )
    })
  )

  it.effect("the declared headers are the ones answers carry", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const created = yield* post(`${org.path}tags/`, { token: org.ownerToken, json: { name: "vip" } })
      assert.strictEqual(created.status, 201)
      assert.match(created.headers.get("location") ?? "", /^http:\/\/.+\/tags\/\d+\/$/)
      const unauthorized = yield* get(`${org.path}tags/`)
      assert.strictEqual(unauthorized.status, 401)
      assert.strictEqual(unauthorized.headers.get("www-authenticate"), "X-Service-Token")
    })
  )

  for (const path of ["/openapi.json", "/docs"]) {
    it.effect(`${path}: gzip when accepted, the same bytes as without, a strong ETag and no-cache`, () =>
      Effect.gen(function* () {
        const plain = yield* fetchBytes(path)
        assert.strictEqual(plain.status, 200)
        assert.isUndefined(plain.headers["content-encoding"])
        assert.strictEqual(plain.headers["cache-control"], "no-cache")
        assert.include(plain.headers.vary ?? "", "Accept-Encoding")
        assert.match(plain.headers.etag ?? "", /^"[^"]+"$/) // strong: no W/
        const zipped = yield* fetchBytes(path, { "accept-encoding": "gzip, br" })
        assert.strictEqual(zipped.status, 200)
        assert.strictEqual(zipped.headers["content-encoding"], "gzip")
        assert.isBelow(zipped.body.length, plain.body.length / 3)
        assert.isTrue(gunzipSync(zipped.body).equals(plain.body))
        assert.match(zipped.headers.etag ?? "", /^"[^"]+"$/)
        assert.notStrictEqual(zipped.headers.etag, plain.headers.etag) // another byte sequence, another tag
        const refused = yield* fetchBytes(path, { "accept-encoding": "gzip;q=0" })
        assert.isUndefined(refused.headers["content-encoding"])
      })
    )

    it.effect(`${path}: If-None-Match with its ETag → 304 without a body`, () =>
      Effect.gen(function* () {
        const first = yield* fetchBytes(path, { "accept-encoding": "gzip" })
        const again = yield* fetchBytes(path, { "accept-encoding": "gzip", "if-none-match": first.headers.etag ?? "" })
        assert.strictEqual(again.status, 304)
        assert.strictEqual(again.body.length, 0)
        assert.strictEqual(again.headers.etag, first.headers.etag)
        assert.strictEqual(again.headers["cache-control"], "no-cache")
        const other = yield* fetchBytes(path, { "if-none-match": '"something-else"' })
        assert.strictEqual(other.status, 200)
      })
    )
  }

  it.effect("/docs is the Swagger UI page with the document inside", () =>
    Effect.gen(function* () {
      const page = yield* fetchBytes("/docs")
      assert.include(page.headers["content-type"] ?? "", "text/html")
      const html = page.body.toString("utf8")
      assert.include(html, "swagger-ui")
      assert.include(html, '"version":"2.1.0"')
    })
  )
})
