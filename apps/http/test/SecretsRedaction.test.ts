import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, FastCheck, Layer, Logger, Tracer } from "effect"
import { redactUrl } from "../src/Http/Redaction.js"
import { smtpLayer, testSmtpServer, withOutbox } from "./MailSupport.js"
import type * as Fixtures from "./support/Fixtures.js"
import { get, patch, post, TestApp, testAppLive } from "./support/TestApp.js"
import { outbox, ticket, organization as ticketOrganization, updateTicket } from "./TicketsSupport.js"

process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "hd-redaction-"))

const SURVEY_TOKEN = /hd_csat_[A-Za-z0-9_-]{43}/g

describe("redactUrl (docs/decisions/0805-secrets-in-logs-and-at-rest.md)", () => {
  /** Asserts that each URL redacts to what it is paired with. */
  const redactsTo = (cases: ReadonlyArray<readonly [url: string, redacted: string]>) => {
    for (const [url, redacted] of cases) assert.strictEqual(redactUrl(url), redacted, url)
  }

  it("replaces the token segment of survey and read-receipt paths, keeping the rest", () => {
    const token = `hd_csat_${"a".repeat(43)}`
    redactsTo([
      [`/csat/${token}/`, "/csat/[redacted]/"],
      [`/csat/${token}`, "/csat/[redacted]"],
      [`/csat/${token}/?lang=en`, "/csat/[redacted]/?lang=en"],
      ["/mail/opened/42.abcDEF_-/", "/mail/opened/[redacted]/"],
      [`https://help.example.com/csat/${token}/`, "https://help.example.com/csat/[redacted]/"]
    ])
  })

  it("replaces the values of signature and credential-like query parameters only", () => {
    redactsTo([
      [
        "/attachments/0b6d/download/?expires=1700000000&signature=s3cr3t-_x",
        "/attachments/0b6d/download/?expires=1700000000&signature=[redacted]"
      ],
      [
        "/x/?access_token=abc&page=2&api_key=k&Token=t#frag",
        "/x/?access_token=[redacted]&page=2&api_key=[redacted]&Token=[redacted]#frag"
      ],
      ["/x/?signature=", "/x/?signature=[redacted]"]
    ])
  })

  it("leaves URLs without secrets alone and is idempotent", () => {
    for (const url of ["/organizations/acme/tickets/12/?page=2", "/healthz", "/csat/", "/attachments/1/download/"])
      assert.strictEqual(redactUrl(url), url)
    const once = redactUrl(`/csat/hd_csat_${"b".repeat(43)}/?signature=x`)
    assert.strictEqual(redactUrl(once), once)
  })

  it.prop(
    "answers for any text what its two expressions answer, the texts its shortcut returns untouched included",
    [
      FastCheck.array(
        FastCheck.oneof(
          FastCheck.constantFrom("/csat/", "/mail/opened/", "?", "&", "signature=", "api-key=", "Token=", "/", "#"),
          FastCheck.string({ maxLength: 6 })
        ),
        { maxLength: 8 }
      )
    ],
    ([parts]) => {
      const url = parts.join("")
      const byExpressions = url
        .replace(/(\/csat\/|\/mail\/opened\/)[^/?#\s"'<>]+/g, "$1[redacted]")
        .replace(
          /([?&](?:signature|sig|secret|password|[\w.-]*token|[\w.-]*api[_-]?key)=)[^&#\s"'<>]*/gi,
          "$1[redacted]"
        )
      assert.strictEqual(redactUrl(url), byExpressions, url)
    }
  )

  it("redacts URLs quoted in a message (an error naming the request)", () => {
    assert.strictEqual(
      redactUrl(`RouteNotFound: GET /csat/hd_csat_${"c".repeat(43)}/extra/ not found`),
      "RouteNotFound: GET /csat/[redacted]/extra/ not found"
    )
  })
})

/** An organization that asks for CSAT surveys. */
const csatOrganization = Effect.gen(function* () {
  const org = yield* ticketOrganization
  const enabled = yield* patch(org.path, { token: org.ownerToken, json: { enable_csat: true } })
  assert.strictEqual(enabled.status, 200, enabled.text)
  return org
})

/** A closed ticket of `org` and the survey link (its path) queued in the outbox. */
const closedTicketWithSurvey = (org: Effect.Effect.Success<typeof csatOrganization>) =>
  Effect.gen(function* () {
    const created = yield* ticket(org)
    const closed = yield* updateTicket(org, created.id, { status: "closed", classification: "resolved" })
    assert.strictEqual(closed.status, 200, closed.text)
    const survey = (yield* outbox(created.id)).find((row) => row.kind === "csat_survey")
    const token = String(survey?.payload.text).match(SURVEY_TOKEN)?.[0]
    assert.isDefined(token)
    return { ticketId: created.id as number, token: token! }
  })

/** Uploads a file and answers its signed download link. */
const signedDownloadUrl = (org: Fixtures.OrgFixture) =>
  Effect.gen(function* () {
    const { baseUrl } = yield* TestApp
    const form = new FormData()
    form.append("file_upload", new Blob(["secret plans"], { type: "text/plain" }), "plans.txt")
    const response = yield* Effect.promise(() =>
      fetch(new URL(`${org.path}pending-attachments/`, baseUrl), {
        method: "POST",
        headers: { "x-service-token": org.ownerToken },
        body: form
      }).then((r) => r.json() as Promise<{ download_url: string }>)
    )
    return new URL(response.download_url)
  })

/** What a request can carry that must not be written down: a survey token and a signed download link. */
const requestSecrets = Effect.gen(function* () {
  const org = yield* csatOrganization
  const { token } = yield* closedTicketWithSurvey(org)
  const download = yield* signedDownloadUrl(org)
  return { token, download }
})

/** The real app on the real clock, with room for the survey's mail round trip. */
const SLOW_APP = { excludeTestServices: true, timeout: "120 seconds" } as const

const logged: Array<string> = []
const capturingLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.map(Logger.logfmtLogger, (line) => {
    logged.push(line)
  })
)

layer(testAppLive({ logRequests: true }).pipe(Layer.provide(capturingLogger)), SLOW_APP)("request logs", (it) => {
  it.effect("survey links, download signatures and read-receipt tokens never reach the request log", () =>
    Effect.gen(function* () {
      const { token, download } = yield* requestSecrets
      const signature = download.searchParams.get("signature")!
      const pixelToken = `7.${"Z".repeat(43)}`
      logged.length = 0

      assert.strictEqual((yield* get(`/csat/${token}/`)).status, 200)
      assert.strictEqual((yield* get(`/csat/${token}/`, { headers: { accept: "text/html" } })).status, 200)
      assert.strictEqual((yield* post(`/csat/${token}/`, { json: { rating: 9 } })).status, 400)
      assert.strictEqual((yield* post(`/csat/${token}/`, { json: { rating: 5 } })).status, 201)
      assert.strictEqual((yield* post(`/csat/${token}/`, { json: { rating: 5 } })).status, 409)
      assert.strictEqual((yield* get(`/csat/${token}/unknown/`)).status, 404)
      assert.strictEqual((yield* get(`${download.pathname}${download.search}`)).status, 200)
      const tampered = download.search.replace(/signature=[^&]+/, `signature=${signature.slice(1)}x`)
      assert.strictEqual((yield* get(`${download.pathname}${tampered}`)).status, 403)
      assert.strictEqual((yield* get(`/mail/opened/${pixelToken}/`)).status, 200)

      const log = logged.join("\n")
      // The requests were logged, with what an operator needs.
      assert.include(log, "/csat/[redacted]/")
      assert.include(log, "signature=[redacted]")
      assert.include(log, "/mail/opened/[redacted]/")
      assert.match(log, /\bstatus=201\b/)
      // And none of their secrets.
      for (const secret of [token, token.slice("hd_csat_".length), signature, signature.slice(1), pixelToken])
        assert.notInclude(log, secret)
    })
  )
})

/** Every span started under the embedding program's tracer, to read their attributes afterwards. */
const spans: Array<Tracer.Span> = []
const recordingTracer = Layer.unwrapEffect(
  Effect.map(Effect.tracer, (native) =>
    Layer.setTracer(
      Tracer.make({
        span: (...args) => {
          const span = native.span(...args)
          spans.push(span)
          return span
        },
        context: native.context
      })
    )
  )
)

const tracedApp = testAppLive({ tracing: true }).pipe(Layer.provide(recordingTracer))

layer(tracedApp, SLOW_APP)("HTTP spans of an embedding program's tracer", (it) => {
  it.effect("record the request's URL with its secrets redacted", () =>
    Effect.gen(function* () {
      const { token, download } = yield* requestSecrets
      spans.length = 0
      assert.strictEqual((yield* get(`/csat/${token}/`)).status, 200)
      assert.strictEqual((yield* get(`${download.pathname}${download.search}`)).status, 200)
      const attributes = spans.flatMap((span) => [...span.attributes.entries()])
      const urls = attributes.filter(([key]) => key.startsWith("url.")).map(([, value]) => String(value))
      assert.include(urls, "/csat/[redacted]/")
      assert.isTrue(urls.some((url) => url.includes("signature=[redacted]")))
      const text = JSON.stringify(attributes)
      assert.notInclude(text, token)
      assert.notInclude(text, download.searchParams.get("signature")!)
    })
  )
})

layer(testAppLive(), SLOW_APP)("survey links at rest", (it) => {
  it.scoped("once the worker has sent a survey, its outbox row holds no token that opens the survey", () =>
    Effect.gen(function* () {
      const org = yield* csatOrganization
      const { ticketId, token } = yield* closedTicketWithSurvey(org)
      assert.strictEqual((yield* get(`/csat/${token}/`)).status, 200)

      const smtp = yield* testSmtpServer()
      yield* withOutbox(smtpLayer(smtp.url), (worker) => worker.drain())
      const survey = (yield* outbox(ticketId)).find((row) => row.kind === "csat_survey")!
      assert.strictEqual(survey.status, "sent")
      const stored = JSON.stringify(survey.payload)
      assert.notInclude(stored, token)
      assert.include(String(survey.payload.text), "/csat/[redacted]/")
      // Nothing left in the row opens a survey: not the token, not anything shaped like one.
      for (const candidate of stored.match(SURVEY_TOKEN) ?? [])
        assert.strictEqual((yield* get(`/csat/${candidate}/`)).status, 404)
      const sql = yield* SqlClient.SqlClient
      const everywhere = yield* sql<{ payload: unknown }>`SELECT payload FROM hd_outbox WHERE ticket_id = ${ticketId}`
      assert.notInclude(JSON.stringify(everywhere), token.slice("hd_csat_".length))

      // The customer's mail carries the link, and it still works.
      const mailed = smtp.received.map((m) => m.raw.replace(/=\r\n/g, "")).join("\n")
      assert.include(mailed, token)
      assert.strictEqual((yield* get(`/csat/${token}/`)).status, 200)
    })
  )
})
