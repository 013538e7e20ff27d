import { OpenApi } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Api } from "../src/Api.js"
import { UNSLASHED_PATHS } from "../src/Http/WireMiddleware.js"
import * as Fixtures from "./support/Fixtures.js"
import { rawRequest } from "./support/RawHttp.js"
import { get, patch, post, put, TestApp, TestAppLive } from "./support/TestApp.js"
import { usesRealPostgres } from "./support/TestDatabase.js"
import { outbox } from "./TicketsSupport.js"

/**
 * Every operation `/openapi.json` lists, under hostile input (docs/decisions/0808-openapi-driven-fuzzing.md).
 *
 * The cases are generated, deterministically, from each operation's documented path parameters, query parameters
 * and request body schema: wrong types for every property, missing required fields, NUL and lone surrogates,
 * invalid UTF-8 bytes, 1 MB strings and bodies just over 1 MB, 10,000-deep nesting, odd ids, SQL and
 * path-traversal text, wrong content types, malformed multipart, bad tokens and a bad `Host`. The rules:
 * never a 5xx; every error body is JSON in the documented shape; a refused request commits nothing (every
 * table's rows are fingerprinted before and after each operation's refused cases); the prototype of every
 * object is never polluted; and the service is still healthy at the end.
 */

// ---------------------------------------------------------------------------------------------------------------
// The OpenAPI document, as far as the fuzzing reads it

interface JsonSchema {
  readonly $ref?: string
  readonly type?: string | ReadonlyArray<string>
  readonly format?: string
  readonly pattern?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly examples?: ReadonlyArray<unknown>
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly properties?: Record<string, JsonSchema>
  readonly required?: ReadonlyArray<string>
  readonly minimum?: number
  readonly maximum?: number
  readonly maxLength?: number
  readonly maxItems?: number
}

interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header"
  readonly schema?: JsonSchema
}

interface Operation {
  readonly parameters?: ReadonlyArray<Parameter>
  readonly security?: ReadonlyArray<Record<string, unknown>>
  readonly requestBody?: { readonly content: Record<string, { readonly schema: JsonSchema }> }
}

interface Document {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const

/** The operations of the API, from the same description the service serves (so each gets a test of its own). */
const operations: ReadonlyArray<{ readonly method: string; readonly path: string }> = Object.entries(
  (OpenApi.fromApi(Api) as unknown as Document).paths
).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method] !== undefined).map((method) => ({ method: method.toUpperCase(), path }))
)

const resolve = (doc: Document, schema: JsonSchema): JsonSchema =>
  schema.$ref === undefined ? schema : resolve(doc, doc.components.schemas[schema.$ref.split("/").pop()!]!)

/** The schema itself, or the first non-null branch of an `anyOf` (what a nullable field takes besides null). */
const concrete = (doc: Document, schema: JsonSchema): JsonSchema => {
  const resolved = resolve(doc, schema)
  if (resolved.anyOf === undefined) return resolved
  const branch = resolved.anyOf.find((s) => resolve(doc, s).type !== "null") ?? resolved.anyOf[0]!
  return concrete(doc, branch)
}

const typeOf = (schema: JsonSchema): string | undefined =>
  Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : (schema.type as string | undefined)

/** A plausible value for a schema: the example, the first choice, or something of the right type and format. */
const sample = (doc: Document, schema: JsonSchema): unknown => {
  const s = concrete(doc, schema)
  if (s.examples !== undefined && s.examples.length > 0) return s.examples[0]
  if (s.enum !== undefined) return s.enum[0]
  switch (typeOf(s)) {
    case "integer":
    case "number":
      return s.minimum ?? 1
    case "boolean":
      return false
    case "array":
      return []
    case "object":
      return Object.fromEntries((s.required ?? []).map((name) => [name, sample(doc, s.properties![name]!)]))
    default:
      if (s.format === "email") return "fuzz.sample@example.com"
      if (s.format === "uuid") return "00000000-0000-4000-8000-000000000000"
      if (s.format === "date") return "2026-12-25"
      if (s.format === "date-time") return "2030-01-01T00:00:00.000Z"
      if (s.format === "uri") return "https://example.com/"
      if (s.pattern === "^\\d{2}:\\d{2}$") return "09:00"
      return "fuzz"
  }
}

/** Values of the wrong type (or out of range) for a schema: each must be refused. */
const wrongValues = (doc: Document, schema: JsonSchema, nested: boolean): ReadonlyArray<unknown> => {
  const resolved = resolve(doc, schema)
  const s = concrete(doc, schema)
  const nullable = resolved.anyOf !== undefined || (Array.isArray(s.type) && s.type.includes("null"))
  // Inside nested objects null may stand for "not given" (preset filter criteria), so only top-level ones get it.
  const common = nullable || nested ? [] : [null]
  if (s.enum !== undefined) return [...common, "no-such-choice", 7, [], { toString: 1 }]
  switch (typeOf(s)) {
    case "integer":
    case "number":
      return [
        ...common,
        "abc",
        1.5,
        true,
        {},
        1e20,
        ...(s.minimum !== undefined ? [s.minimum - 1] : []),
        ...(s.maximum !== undefined ? [s.maximum + 1] : [])
      ]
    case "boolean":
      return [...common, "maybe", 2, {}, []]
    case "array":
      return [...common, { 0: "x" }, "x", 42, ...(s.maxItems !== undefined ? [Array(s.maxItems + 1).fill(1)] : [])]
    case "object":
      return [...common, 42, [1], "x"]
    default:
      return [...common, {}, [], true, { toString: 1, valueOf: 1 }]
  }
}

/** Every property of a body schema, nested objects included (two levels deep), with its path. */
const properties = (
  doc: Document,
  schema: JsonSchema,
  at: ReadonlyArray<string> = []
): ReadonlyArray<{ readonly path: ReadonlyArray<string>; readonly schema: JsonSchema }> => {
  const s = concrete(doc, schema)
  if (typeOf(s) !== "object" || s.properties === undefined || at.length > 2) return []
  return Object.entries(s.properties).flatMap(([name, property]) => [
    { path: [...at, name], schema: property },
    ...properties(doc, property, [...at, name])
  ])
}

const isText = (doc: Document, schema: JsonSchema) => {
  const s = concrete(doc, schema)
  return typeOf(s) === "string" && s.enum === undefined
}

// ---------------------------------------------------------------------------------------------------------------
// Cases

/** What a case must get: `refused` a 4xx and no write; `safe` anything but a 5xx, and no write; `any` no 5xx. */
type Expect = "refused" | "safe" | "any"

interface Case {
  readonly label: string
  readonly method: string
  /** Path and query, already percent-encoded, sent byte for byte. */
  readonly target: string
  readonly headers: Record<string, string>
  readonly body?: Uint8Array
  /** `Host` header lines that replace the usual one (sent over a raw socket). */
  readonly hostLines?: ReadonlyArray<string>
  readonly expect: Expect
}

const SQL = "'; DROP TABLE tickets;--"
const TRAVERSAL = "../../../../etc/passwd"
const MB = 1024 * 1024
const encoder = new TextEncoder()
const bytes = (text: string) => encoder.encode(text)
const concat = (...parts: ReadonlyArray<Uint8Array>) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** Odd values for a path segment, percent-encoded as sent. */
const ODD_SEGMENTS = [
  "0",
  "-1",
  "1.5",
  "99999999999999999999",
  "abc",
  "%00",
  "..%2F..%2Fetc%2Fpasswd",
  encodeURIComponent(SQL),
  "%ED%A0%80",
  "%FF",
  "1e3",
  "0x10",
  "NaN",
  "%20",
  "null",
  "true",
  "%E2%80%AE1"
]

/** Hostile values for a query parameter, percent-encoded as sent. */
const QUERY_VALUES = [
  encodeURIComponent(SQL),
  encodeURIComponent(TRAVERSAL),
  "%00",
  "%ED%A0%80",
  "%FF%FE",
  "-1",
  "1.5",
  "99999999999999999999",
  ""
]

/** Hostile query strings whatever the operation's parameters. */
const QUERY_JUNK = [
  "__proto__=1",
  "__proto__%5Bpolluted%5D=yes",
  "constructor%5Bprototype%5D%5Bpolluted%5D=yes",
  "page=1&page=2",
  "%00=1",
  "a",
  "=",
  "&&&",
  `x=${"y".repeat(8192)}`,
  "page=0x10&page_size=1e3"
]

const BAD_JSON = ["{", '{"a":}', "null", "[]", '"text"', "123", "{}{}", "\u0000"]

const MULTIPART_BROKEN: ReadonlyArray<{
  readonly label: string
  readonly type: string
  readonly body: string
  /** Parsers may accept it (the 70-character limit of RFC 2046 is not enforced by the WHATWG parser). */
  readonly lenient?: boolean
}> = [
  { label: "multipart without a boundary", type: "multipart/form-data", body: "--x\r\n\r\n--x--\r\n" },
  {
    label: "multipart with another boundary",
    type: "multipart/form-data; boundary=abc",
    body: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--\r\n'
  },
  {
    label: "truncated multipart",
    type: "multipart/form-data; boundary=abc",
    body: '--abc\r\nContent-Disposition: form-data; name="a"\r\n\r\n1'
  },
  {
    label: "multipart with a 200-character boundary",
    type: `multipart/form-data; boundary=${"b".repeat(200)}`,
    body: `--${"b".repeat(200)}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${"b".repeat(200)}--\r\n`,
    lenient: true
  },
  {
    label: "multipart part without headers",
    type: "multipart/form-data; boundary=abc",
    body: "--abc\r\n\r\n1\r\n--abc--\r\n"
  }
]

/** The resources each path parameter is filled with, where it is not under test. */
interface Resources {
  /** The owner's token, or where the operation wants an integration (`enrichment`), the organization's. */
  readonly token: string
  readonly integrationToken: string
  readonly byParameter: Record<string, string>
}

/** The value of a path parameter: by its name, or for `pk`/`token` by the collection segment before it. */
const resourceFor = (resources: Resources, template: string, name: string): string => {
  const segments = template.split("/")
  const key = name === "pk" || name === "token" ? segments[segments.indexOf(`{${name}}`) - 1]! : name
  const value = resources.byParameter[key]
  if (value === undefined) throw new Error(`no resource for {${name}} in ${template}: add one to the fixtures`)
  return value
}

const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!)

const setIn = (value: unknown, path: ReadonlyArray<string>, leaf: unknown): unknown => {
  if (path.length === 0) return leaf
  const record = value !== null && typeof value === "object" && !Array.isArray(value) ? value : {}
  return { ...record, [path[0]!]: setIn((record as Record<string, unknown>)[path[0]!], path.slice(1), leaf) }
}

const RAW = "@@fuzz-raw@@"
/** JSON text of `base` with `fragment` (raw JSON text, or bytes) at `path`. */
const withRaw = (base: unknown, path: ReadonlyArray<string>, fragment: string | Uint8Array): Uint8Array => {
  const [before, after] = JSON.stringify(setIn(base, path, RAW)).split(`"${RAW}"`) as [string, string]
  return concat(bytes(before), typeof fragment === "string" ? bytes(fragment) : fragment, bytes(after))
}

const formOf = (value: unknown) => {
  const params = new URLSearchParams()
  for (const [key, v] of Object.entries(value as Record<string, unknown>))
    params.append(key, typeof v === "string" ? v : JSON.stringify(v))
  return params.toString()
}

/** Bodies for operations whose required fields alone are not valid (a cross-field rule). */
const VALID_BODIES: Record<string, unknown> = {
  "POST /organizations/{organization_id}/tickets/": {
    subject: "Fuzz",
    description: "Hello there.",
    customer_email: "fuzz.sample@example.com"
  }
}

/** Every case for one operation. */
const casesFor = (doc: Document, method: string, template: string, resources: Resources): ReadonlyArray<Case> => {
  const operation = doc.paths[template]![method.toLowerCase()]!
  const parameters = operation.parameters ?? []
  const pathParameters = parameters.filter((p) => p.in === "path").map((p) => p.name)
  const queryParameters = parameters.filter((p) => p.in === "query").map((p) => p.name)
  const secured = (operation.security ?? []).length > 0
  const content = operation.requestBody?.content ?? {}
  const jsonSchema = content["application/json"]?.schema
  const multipartOnly = jsonSchema === undefined && content["multipart/form-data"] !== undefined
  const isRead = method === "GET"
  const real = Object.fromEntries(pathParameters.map((name) => [name, resourceFor(resources, template, name)]))
  const path = fill(template, real)
  const auth: Record<string, string> = secured ? { "x-service-token": resources.token } : {}
  const json = { ...auth, "content-type": "application/json" }
  const cases: Array<Case> = []
  const add = (label: string, c: Omit<Case, "label" | "method">) => cases.push({ label, method, ...c })
  // A write that fails only for the reason under test must still be refused; a read may answer.
  const refusedUnlessRead: Expect = isRead ? "safe" : "refused"

  // A well-formed body (the required fields, sampled), for the cases that break something else.
  const base = VALID_BODIES[`${method} ${template}`] ?? (jsonSchema === undefined ? undefined : sample(doc, jsonSchema))
  const smallFile = () => {
    const boundary = "fuzzboundary"
    const text = `--${boundary}\r\nContent-Disposition: form-data; name="file_upload"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`
    return { type: `multipart/form-data; boundary=${boundary}`, body: bytes(text) }
  }
  const wellFormed = (): { readonly headers: Record<string, string>; readonly body?: Uint8Array } => {
    if (base !== undefined) return { headers: json, body: bytes(JSON.stringify(base)) }
    if (multipartOnly) {
      const file = smallFile()
      return { headers: { ...auth, "content-type": file.type }, body: file.body }
    }
    return { headers: auth }
  }

  // Odd ids in each path parameter: never found, never written.
  for (const name of pathParameters)
    for (const odd of ODD_SEGMENTS)
      add(`path ${name}=${odd}`, {
        target: fill(template, { ...real, [name]: odd }),
        ...wellFormed(),
        expect: refusedUnlessRead
      })

  // Bad or missing tokens.
  if (secured)
    for (const token of [
      undefined,
      "",
      SQL,
      `hd_pat_${"A".repeat(43)}`,
      `hd_int_${TRAVERSAL}`,
      `hd_pat_${"A".repeat(8192)}`,
      `${resources.token}x`
    ]) {
      const { headers, body } = wellFormed()
      const { "x-service-token": _, ...rest } = headers
      add(`token ${String(token).slice(0, 20)}`, {
        target: path,
        headers: token === undefined ? rest : { ...rest, "x-service-token": token },
        ...(body === undefined ? {} : { body }),
        expect: "refused"
      })
    }

  // A bad Host, refused before any handler.
  for (const hostLines of [["Host: a b"], ["Host: 127.0.0.1", "Host: evil.example"], ["Host: [::1"]])
    add(`host ${hostLines.join(" / ")}`, {
      target: path,
      ...wellFormed(),
      hostLines,
      // Probes and the API description answer whatever the Host (docs/api-conventions.md).
      expect: UNSLASHED_PATHS.has(template) ? "safe" : "refused"
    })

  // Hostile query parameters, declared or not.
  if (isRead) {
    for (const name of queryParameters)
      for (const value of QUERY_VALUES)
        add(`query ${name}=${value.slice(0, 30)}`, {
          target: `${path}?${name}=${value}`,
          headers: auth,
          expect: "safe"
        })
    for (const name of queryParameters.slice(0, 1))
      add(`query ${name}=<8 KB>`, { target: `${path}?${name}=${"q".repeat(8192)}`, headers: auth, expect: "safe" })
    for (const query of QUERY_JUNK)
      add(`query ${query.slice(0, 40)}`, { target: `${path}?${query}`, headers: auth, expect: "safe" })
    for (const [header, value] of [
      ["x-forwarded-proto", "javascript"],
      ["x-forwarded-host", encodeURIComponent(SQL)],
      ["accept", "application/xml"]
    ] as const)
      add(`header ${header}`, { target: path, headers: { ...auth, [header]: value }, expect: "safe" })
  }

  // Bodies of other media types, and broken JSON and multipart: refused where a body is read; a read without
  // one may answer; a write without one (DELETE, unsnooze) is sent to an unknown id, so what it does anyway is
  // not counted.
  const writeWithoutBody = operation.requestBody === undefined && !isRead && pathParameters.length > 0
  const bodyTarget = writeWithoutBody ? fill(template, { ...real, [pathParameters.at(-1)!]: "0" }) : path
  const bodyOnlyExpect: Expect = operation.requestBody === undefined && isRead ? "safe" : "refused"
  for (const type of [undefined, "text/plain", "application/xml", "application/octet-stream", "multipart/mixed"])
    add(`content-type ${type}`, {
      target: bodyTarget,
      headers: type === undefined ? auth : { ...auth, "content-type": type },
      body: bytes(type === "application/xml" ? "<a>1</a>" : JSON.stringify(base ?? { a: 1 })),
      expect: bodyOnlyExpect
    })
  for (const text of BAD_JSON)
    add(`JSON ${JSON.stringify(text)}`, {
      target: bodyTarget,
      headers: json,
      body: bytes(text),
      expect: bodyOnlyExpect
    })
  for (const broken of MULTIPART_BROKEN)
    add(broken.label, {
      target: bodyTarget,
      headers: { ...auth, "content-type": broken.type },
      body: bytes(broken.body),
      expect: broken.lenient && bodyOnlyExpect === "refused" && bodyTarget === path ? "any" : bodyOnlyExpect
    })
  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`
  add("JSON 10,000 nested arrays", {
    target: bodyTarget,
    headers: json,
    body: bytes(nested(10_000)),
    expect: bodyOnlyExpect
  })
  add("body just over 1 MB", {
    target: bodyTarget,
    headers: json,
    body: bytes(JSON.stringify({ pad: "x".repeat(MB) }).slice(0, MB + 1)),
    expect: bodyOnlyExpect
  })

  if (jsonSchema !== undefined) {
    const schema = concrete(doc, jsonSchema)
    const all = properties(doc, schema)
    const top = all.filter((p) => p.path.length === 1)
    const texts = all.filter((p) => isText(doc, p.schema))
    const firstText = texts[0]?.path ?? top[0]?.path ?? ["fuzz"]
    const sendJson = (label: string, body: Uint8Array, expect: Expect = "refused") =>
      add(label, { target: path, headers: json, body, expect })

    // Missing required fields.
    if ((schema.required ?? []).length > 0) {
      sendJson("missing every required field", bytes("{}"))
      for (const name of schema.required!) {
        const { [name]: _, ...rest } = base as Record<string, unknown>
        sendJson(`missing ${name}`, bytes(JSON.stringify(rest)))
      }
    }
    // Wrong types, each property in turn (the others as sampled; nested objects sampled around them).
    for (const property of all) {
      const around = property.path
        .slice(0, -1)
        .reduce<unknown>(
          (body, _, i) =>
            setIn(
              body,
              property.path.slice(0, i + 1),
              sample(doc, propertyAt(doc, schema, property.path.slice(0, i + 1)))
            ),
          base
        )
      for (const wrong of wrongValues(doc, property.schema, property.path.length > 1))
        sendJson(
          `${property.path.join(".")}=${JSON.stringify(wrong)?.slice(0, 30)}`,
          bytes(JSON.stringify(setIn(around, property.path, wrong)))
        )
    }
    // Text that cannot be stored as text: NUL, lone surrogates (escaped and as bytes), invalid UTF-8.
    for (const property of texts) {
      sendJson(`${property.path.join(".")} with NUL`, bytes(JSON.stringify(setIn(base, property.path, "fu\u0000zz"))))
      sendJson(
        `${property.path.join(".")} with a lone surrogate`,
        bytes(JSON.stringify(setIn(base, property.path, "fu\ud800zz")))
      )
    }
    for (const [label, invalid] of [
      ["bytes FF FE", [0xff, 0xfe]],
      ["an encoded surrogate ED A0 80", [0xed, 0xa0, 0x80]],
      ["an overlong C0 AF", [0xc0, 0xaf]]
    ] as const)
      sendJson(
        `${firstText.join(".")} with ${label}`,
        withRaw(base, firstText, concat(bytes('"fu'), new Uint8Array(invalid), bytes('zz"')))
      )
    // Size and depth.
    sendJson(`${firstText.join(".")} of 1 MB`, bytes(JSON.stringify(setIn(base, firstText, "x".repeat(MB)))))
    const firstTextSchema = texts[0] === undefined ? undefined : concrete(doc, texts[0].schema)
    sendJson(
      `${firstText.join(".")} of 1,000,000 characters`,
      bytes(JSON.stringify(setIn(base, firstText, "x".repeat(1_000_000)))),
      (firstTextSchema?.maxLength ?? Number.POSITIVE_INFINITY) < 1_000_000 ? "refused" : "any"
    )
    sendJson(`${firstText.join(".")} as 10,000 nested arrays`, withRaw(base, firstText, nested(10_000)))
    sendJson(
      `${firstText.join(".")} as 10,000 nested objects`,
      withRaw(base, firstText, `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`)
    )
    sendJson(`${firstText.join(".")}=1e400`, withRaw(base, firstText, "1e400"))
    // Form and multipart bodies carrying NUL.
    if (content["application/x-www-form-urlencoded"] !== undefined && texts.some((p) => p.path.length === 1)) {
      const name = texts.find((p) => p.path.length === 1)!.path
      add(`form ${name[0]} with NUL`, {
        target: path,
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
        body: bytes(formOf(setIn(base, name, "fu\u0000zz"))),
        expect: "refused"
      })
      const boundary = "fuzzboundary"
      const parts = Object.entries(setIn(base, name, "fu\u0000zz") as Record<string, unknown>).map(
        ([key, v]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${typeof v === "string" ? v : JSON.stringify(v)}\r\n`
      )
      add(`multipart ${name[0]} with NUL`, {
        target: path,
        headers: { ...auth, "content-type": `multipart/form-data; boundary=${boundary}` },
        body: bytes(`${parts.join("")}--${boundary}--\r\n`),
        expect: "refused"
      })
    }

    // Inputs a service may well accept: SQL and path traversal as text, prototype keys. Never a 5xx.
    for (const property of texts.filter((p) => p.path.length === 1))
      for (const text of [SQL, TRAVERSAL])
        sendJson(
          `${property.path.join(".")}=${text.slice(0, 12)}`,
          bytes(JSON.stringify(setIn(base, property.path, text))),
          "any"
        )
    const baseText = JSON.stringify(base).slice(1)
    const comma = baseText === "}" ? "" : ","
    sendJson("__proto__ key", bytes(`{"__proto__":{"polluted":"yes"}${comma}${baseText}`), "any")
    sendJson(
      "constructor.prototype key",
      bytes(`{"constructor":{"prototype":{"polluted":"yes"}}${comma}${baseText}`),
      "any"
    )
    sendJson("duplicate keys", bytes(`{"${top[0]?.path[0] ?? "a"}":{}${comma}${baseText}`), "any")
    add("form __proto__ keys", {
      target: path,
      headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      body: bytes(
        `__proto__=x&__proto__%5Bpolluted%5D=yes&constructor%5Bprototype%5D%5Bpolluted%5D=yes&${formOf(base)}`
      ),
      expect: "any"
    })
  }

  if (multipartOnly) {
    const boundary = "fuzzboundary"
    const part = (headers: string, value: string) => `--${boundary}\r\n${headers}\r\n\r\n${value}\r\n`
    const multipart = (label: string, parts: ReadonlyArray<string>, expect: Expect) =>
      add(label, {
        target: path,
        headers: { ...auth, "content-type": `multipart/form-data; boundary=${boundary}` },
        body: bytes(`${parts.join("")}--${boundary}--\r\n`),
        expect
      })
    multipart(
      "file_upload as a text field",
      [part('Content-Disposition: form-data; name="file_upload"', "x")],
      "refused"
    )
    multipart("no file_upload", [part('Content-Disposition: form-data; name="other"', "x")], "refused")
    multipart("JSON as multipart", [part('Content-Disposition: form-data; name="file_upload"', "{}")], "refused")
    for (const filename of [TRAVERSAL, SQL, "fu\u0000zz.txt", "..\\..\\boot.ini", ""])
      multipart(
        `file named ${JSON.stringify(filename)}`,
        [
          part(
            `Content-Disposition: form-data; name="file_upload"; filename="${filename}"\r\nContent-Type: text/plain`,
            "hello"
          )
        ],
        "any"
      )
  }
  return cases
}

/** The schema of the property at a path inside a body schema. */
const propertyAt = (doc: Document, schema: JsonSchema, path: ReadonlyArray<string>): JsonSchema =>
  path.reduce((s, name) => concrete(doc, s).properties![name]!, schema)

// ---------------------------------------------------------------------------------------------------------------
// Sending and judging

interface Answer {
  readonly status: number
  readonly contentType: string | null
  readonly text: string
}

const send = (baseUrl: string, c: Case): Effect.Effect<Answer> => {
  // A GET with a body, and a bad Host, are not sent by fetch: the raw socket sends them as they are.
  if (c.hostLines !== undefined || (c.method === "GET" && c.body !== undefined)) {
    const { port } = new URL(baseUrl)
    const lines = [
      `${c.method} ${c.target} HTTP/1.1`,
      ...(c.hostLines ?? [`Host: 127.0.0.1:${port}`]),
      ...Object.entries(c.headers).map(([name, value]) => `${name}: ${value}`),
      `Content-Length: ${c.body?.length ?? 0}`,
      "Connection: close"
    ]
    return rawRequest({
      port: Number(port),
      head: lines.join("\r\n"),
      ...(c.body ? { body: c.body } : {}),
      timeoutMs: 20_000
    }).pipe(
      Effect.map((r) => ({ status: r.status, contentType: r.headers["content-type"] ?? null, text: r.body })),
      Effect.catchAllDefect((defect) => Effect.succeed({ status: 0, contentType: null, text: String(defect) }))
    )
  }
  return Effect.promise(async () => {
    try {
      const response = await fetch(`${baseUrl}${c.target}`, {
        method: c.method,
        headers: c.headers,
        body: c.body === undefined ? null : Buffer.from(c.body),
        redirect: "manual"
      })
      return { status: response.status, contentType: response.headers.get("content-type"), text: await response.text() }
    } catch (error) {
      return { status: 0, contentType: null, text: `no response: ${String((error as Error).cause ?? error)}` }
    }
  })
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const isMessages = (value: unknown) =>
  Array.isArray(value) && value.length > 0 && value.every((message) => typeof message === "string")

/** `{"field": ["message"]}`, nested objects for nested fields. */
const isFieldErrors = (value: unknown): boolean =>
  isRecord(value) &&
  Object.keys(value).length > 0 &&
  Object.values(value).every((leaf) => isMessages(leaf) || isFieldErrors(leaf))

/** `{"detail": "…"}`, with the `request_id` of a 500. */
const isDetail = (value: unknown) =>
  isRecord(value) &&
  typeof value.detail === "string" &&
  Object.keys(value).every((key) => key === "detail" || (key === "request_id" && typeof value.request_id === "string"))

/** What is wrong with an answer to a case, if anything. */
const verdict = (c: Case, answer: Answer): string | undefined => {
  if (answer.status === 0 || answer.status >= 500) return "no 5xx"
  if (c.expect === "refused" && answer.status < 400) return "refused (4xx)"
  if (answer.status >= 400) {
    if (!answer.contentType?.startsWith("application/json")) return "error body as JSON"
    let body: unknown
    try {
      body = JSON.parse(answer.text)
    } catch {
      return "error body as JSON"
    }
    if (!isDetail(body) && !isFieldErrors(body)) return "error body in the documented shape"
  }
  return undefined
}

const report = (c: Case, answer: Answer, expected: string) =>
  `[${c.label}] ${c.method} ${c.target.length > 140 ? `${c.target.slice(0, 140)}…` : c.target}${
    c.hostLines ? ` (${c.hostLines.join(", ")})` : ""
  } → ${answer.status} ${answer.text.slice(0, 160).replace(/\s+/g, " ")} (expected ${expected})`

/** A fingerprint of every row of every table, to see that refused requests wrote nothing. */
const fingerprint = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ readonly schema: string; readonly name: string }>`
    SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
    ORDER BY 1, 2`
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`
  const rows = yield* sql.unsafe<{ readonly name: string; readonly rows: number; readonly hash: string }>(
    tables
      .map(
        (t) =>
          `SELECT '${t.schema}.${t.name}' AS name, count(*)::int AS rows, ` +
          `md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')) AS hash FROM ${quoted(t.schema)}.${quoted(t.name)} r`
      )
      .join(" UNION ALL ")
  )
  return new Map(rows.map((row) => [row.name, `${row.rows} rows ${row.hash}`]))
}).pipe(Effect.orDie)

// ---------------------------------------------------------------------------------------------------------------
// The organization and one resource of every kind the paths name

class Fuzz extends Context.Tag("test/OpenApiFuzz")<Fuzz, { readonly doc: Document; readonly resources: Resources }>() {}

const created = (
  response: { readonly status: number; readonly text: string; readonly body: unknown },
  what: string
) => {
  assert.strictEqual(response.status, 201, `${what}: ${response.text}`)
  return String((response.body as { readonly id: unknown }).id)
}

const FuzzLive = Layer.effect(
  Fuzz,
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    const served = yield* get("/openapi.json")
    assert.strictEqual(served.status, 200)
    const doc = served.body as Document
    const org = yield* Fixtures.organization()
    const token = org.ownerToken
    const at = (rest: string) => `${org.path}${rest}`
    const hours = yield* put(at("business-hours/"), { token, json: { timezone: "Europe/Berlin", weekly_hours: {} } })
    assert.strictEqual(hours.status, 200, hours.text)
    const collection = created(yield* post(at("portal/collections/"), { token, json: { name: "Fuzz" } }), "collection")
    const upload = yield* Effect.promise(async () => {
      const form = new FormData()
      form.append("file_upload", new Blob(["hello"], { type: "text/plain" }), "a.txt")
      const response = await fetch(`${baseUrl}${at("pending-attachments/")}`, {
        method: "POST",
        headers: { "x-service-token": token },
        body: form
      })
      return { status: response.status, text: await response.clone().text(), body: await response.json() }
    })
    assert.strictEqual((yield* patch(org.path, { token, json: { enable_csat: true } })).status, 200)
    const surveyed = created(
      yield* post(at("tickets/"), {
        token,
        json: { subject: "Survey", description: "Please help.", customer_email: "jane@example.com" }
      }),
      "ticket"
    )
    const closed = yield* patch(at(`tickets/${surveyed}/`), {
      token,
      json: { status: "closed", classification: "resolved" }
    })
    assert.strictEqual(closed.status, 200, closed.text)
    const survey = (yield* outbox(Number(surveyed))).find((row) => row.kind === "csat_survey")
    const csat = /\/csat\/(hd_csat_[\w-]{43})\//.exec(String(survey?.payload.text))?.[1]
    assert.isDefined(csat, "a survey link")
    // The read-receipt pixel creates its signing secret on first use: not a write of the fuzzed requests.
    assert.strictEqual((yield* get(`/mail/opened/hd_open_${"A".repeat(43)}/`)).status, 200)
    const byParameter: Record<string, string> = {
      organization_id: org.organization.public_id,
      filter_id: created(yield* post(at("custom-preset-filters/"), { token, json: { name: "Fuzz" } }), "filter"),
      collection_id: collection,
      article_id: created(
        yield* post(at("portal/articles/"), { token, json: { collection: Number(collection), title: "Fuzz" } }),
        "article"
      ),
      company_id: created(yield* post(at("companies/"), { token, json: { name: "Fuzz" } }), "company"),
      ticket_id: created(
        yield* post(at("tickets/"), {
          token,
          json: { subject: "Fuzz", description: "Hello there.", customer_email: "fuzz@example.com" }
        }),
        "ticket"
      ),
      attachment_id: created(upload, "attachment"),
      customers: created(yield* post(at("customers/"), { token, json: { email: "c@example.com" } }), "customer"),
      inboxes: created(
        yield* post(at("inboxes/"), { token, json: { name: "Fuzz", email_prefix: "fuzz-inbox" } }),
        "inbox"
      ),
      tags: created(yield* post(at("tags/"), { token, json: { name: "fuzz" } }), "tag"),
      "sla-policies": created(yield* post(at("sla-policies/"), { token, json: { name: "Fuzz" } }), "SLA policy"),
      exceptions: created(
        yield* post(at("business-hours/exceptions/"), { token, json: { date: "2026-12-24" } }),
        "exception"
      ),
      csat: csat!,
      opened: `hd_open_${"A".repeat(43)}`,
      // A member and a personal token of the owner's to spare: the fuzzed token itself stays valid.
      user_id: created(yield* post(at("members/"), { token, json: { email: "agent@example.com" } }), "member"),
      token_id: created(yield* post(at("personal-tokens/"), { token, json: { name: "spare" } }), "personal token"),
      webhook_id: created(
        yield* post(at("webhooks/"), { token, json: { url: "https://hooks.example.com/fuzz" } }),
        "webhook"
      )
    }
    byParameter.message_id = created(
      yield* post(at(`tickets/${byParameter.ticket_id}/messages/`), {
        token,
        json: { content: "Fuzz note", is_visible_to_customer: false }
      }),
      "message"
    )
    return { doc, resources: { token, integrationToken: yield* Fixtures.integrationToken(org), byParameter } }
  })
).pipe(Layer.provideMerge(TestAppLive))

// ---------------------------------------------------------------------------------------------------------------

layer(FuzzLive, { excludeTestServices: true, timeout: "300 seconds" })("every operation under hostile input", (it) => {
  it.effect("the served /openapi.json lists the operations fuzzed here", () =>
    Effect.gen(function* () {
      const { doc } = yield* Fuzz
      const served = Object.entries(doc.paths).flatMap(([path, item]) =>
        METHODS.filter((method) => item[method] !== undefined).map((method) => `${method.toUpperCase()} ${path}`)
      )
      assert.deepStrictEqual(
        served,
        operations.map((o) => `${o.method} ${o.path}`)
      )
    })
  )

  for (const { method, path } of operations)
    it.effect(`${method} ${path}: no 5xx, documented error shapes, nothing written when refused`, () =>
      Effect.gen(function* () {
        const { doc, resources } = yield* Fuzz
        const { baseUrl } = yield* TestApp
        // Roles are checked before the body: an operation that refuses the owner (403) is fuzzed as the
        // integration, so that its body is read.
        const probe = doc.paths[path]![method.toLowerCase()]!.requestBody
          ? yield* send(baseUrl, {
              label: "role probe",
              method,
              target: fill(
                path,
                Object.fromEntries(
                  [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, resourceFor(resources, path, name!)])
                )
              ),
              headers: { "x-service-token": resources.token, "content-type": "application/json" },
              body: bytes("[]"),
              expect: "refused"
            })
          : undefined
        const cases = casesFor(
          doc,
          method,
          path,
          probe?.status === 403 ? { ...resources, token: resources.integrationToken } : resources
        )
        assert.isAtLeast(cases.length, 30, "cases per operation")
        const failures: Array<string> = []
        const run = (batch: ReadonlyArray<Case>) =>
          Effect.forEach(
            batch,
            (c) =>
              Effect.map(send(baseUrl, c), (answer) => {
                const wrong = verdict(c, answer)
                if (wrong !== undefined) failures.push(report(c, answer, wrong))
              }),
            // One at a time on PGlite: its socket server can mix up the exchanges of concurrent connections
            // (see Database.ts; the service itself uses one), which the test database's pool of four would hit.
            { concurrency: usesRealPostgres ? 6 : 1, discard: true }
          )
        // The bad-Host cases apart from the rest, so that a write is traced to its kind of request.
        for (const [kind, guarded] of [
          ["refused requests", cases.filter((c) => c.expect !== "any" && c.hostLines === undefined)],
          ["refused bad-Host requests", cases.filter((c) => c.expect !== "any" && c.hostLines !== undefined)]
        ] as const) {
          const before = yield* fingerprint
          yield* run(guarded)
          const after = yield* fingerprint
          for (const [table, print] of after)
            if (before.get(table) !== print)
              failures.push(`${kind} changed ${table}: ${before.get(table)} → ${print} (expected no write)`)
        }
        yield* run(cases.filter((c) => c.expect === "any"))
        if ((Object.prototype as Record<string, unknown>).polluted !== undefined)
          failures.push("Object.prototype was polluted")
        assert.strictEqual(failures.length, 0, `${failures.length} of ${cases.length} cases:\n${failures.join("\n")}`)
      })
    )

  it.effect("afterwards the service is healthy", () =>
    Effect.gen(function* () {
      const health = yield* get("/healthz")
      assert.strictEqual(health.status, 200, health.text)
      const ready = yield* get("/readyz")
      assert.strictEqual(ready.status, 200, ready.text)
    })
  )
})
