import { HttpApp, HttpMiddleware, type HttpServerRequest } from "@effect/platform"
import { assert, describe, it, layer } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Either, Layer, Logger, LogLevel } from "effect"
import { lineLogger, logLevel } from "../src/Cli/Logging.js"
import { edge } from "../src/Http/Edge.js"
import { decideRequestId } from "../src/Http/RequestId.js"
import { logResponse } from "../src/Http/RequestLog.js"
import { get, testAppLive } from "./support/TestApp.js"

// Request logs: one JSON line per request, with its id, and secrets redacted (docs/decisions/0410-request-logs.md).

/** The JSON lines the logger wrote, parsed (each one must be a single line of JSON). */
const written: Array<string> = []
const jsonLogs = Logger.replace(
  Logger.defaultLogger,
  lineLogger("json", (line) => void written.push(line))
)
// biome-ignore lint/suspicious/noExplicitAny: log lines are read field by field
const parsed = (): Array<any> =>
  written.map((line) => {
    assert.isTrue(line.endsWith("\n") && line.indexOf("\n") === line.length - 1, `one line: ${line}`)
    return JSON.parse(line)
  })
const linesOf = (requestId: string) => parsed().filter((line) => line.request_id === requestId)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const SURVEY_TOKEN = `hd_csat_${"q".repeat(43)}`

layer(testAppLive({ logRequests: true }).pipe(Layer.provide(jsonLogs)), {
  excludeTestServices: true,
  timeout: "120 seconds"
})("request logs of the service", (it) => {
  it.effect("a request is one JSON line: time, level, request id, method, path, status, duration", () =>
    Effect.gen(function* () {
      written.length = 0
      const response = yield* get("/organizations/", { token: "hd_pat_nope" })
      assert.strictEqual(response.status, 401)
      const id = response.headers.get("x-request-id")!
      assert.match(id, UUID)
      const [line, ...more] = linesOf(id)
      assert.deepStrictEqual(more, [])
      assert.deepInclude(line, {
        level: "info",
        message: "Sent HTTP response",
        request_id: id,
        method: "GET",
        path: "/organizations/",
        status: 401
      })
      assert.strictEqual(new Date(line.time).toISOString(), line.time)
      assert.isAtLeast(line.duration_ms, 0)
      assert.lengthOf(written, 1)
    })
  )

  it.effect("a sane X-Request-Id is kept, anything else replaced; every answer carries it", () =>
    Effect.gen(function* () {
      written.length = 0
      const kept = yield* get("/healthz", { headers: { "x-request-id": "trace.01_AB-cd" } })
      assert.strictEqual(kept.headers.get("x-request-id"), "trace.01_AB-cd")
      assert.lengthOf(linesOf("trace.01_AB-cd"), 1)
      for (const hostile of ["a b", "x".repeat(129), "a/b", "<script>", "id=1; evil"]) {
        const replaced = yield* get("/healthz", { headers: { "x-request-id": hostile } })
        assert.match(replaced.headers.get("x-request-id")!, UUID, hostile)
      }
      // Answers the wire middleware makes or rewrites itself: a redirect, no route, a wrong method.
      for (const [path, status] of [
        ["/organizations", 301],
        ["/nothing-here/", 404],
        ["/healthz-not/", 404]
      ] as const) {
        const response = yield* get(path)
        assert.strictEqual(response.status, status, path)
        const id = response.headers.get("x-request-id")
        assert.match(id ?? "", UUID, path)
        assert.deepInclude(linesOf(id!)[0], { status, path })
      }
    })
  )

  it.effect("secrets in URLs stay out of the JSON lines", () =>
    Effect.gen(function* () {
      written.length = 0
      yield* get(`/csat/${SURVEY_TOKEN}/`)
      yield* get(`/mail/opened/7.${"Z".repeat(43)}/`)
      yield* get("/attachments/x/download/?expires=1&signature=s3cr3t-sig&page=2")
      const text = written.join("")
      assert.include(text, '"path":"/csat/[redacted]/"')
      assert.include(text, '"path":"/mail/opened/[redacted]/"')
      assert.include(text, "signature=[redacted]&page=2")
      for (const secret of [SURVEY_TOKEN, "Z".repeat(43), "s3cr3t-sig"]) assert.notInclude(text, secret)
    })
  )
})

describe("an unexpected failure", () => {
  // The service's own edge, on a handler that throws.
  const failing = (logRequests: boolean) =>
    edge({ allowedMethods: () => [], logRequests })(
      Effect.sync(() => {
        throw new Error(`boom while serving /csat/${SURVEY_TOKEN}/`)
      }) as unknown as HttpApp.Default
    ).pipe(Effect.provide(jsonLogs))

  const send = (logRequests: boolean, headers: Record<string, string> = {}) =>
    HttpApp.toWebHandler(failing(logRequests))(
      new Request(`http://service/csat/${SURVEY_TOKEN}/?access_token=t0k`, {
        headers: { host: "service", ...headers }
      })
    )

  it("is logged once, as an error line carrying the request id of the 500's body and header", async () => {
    for (const logRequests of [true, false]) {
      written.length = 0
      const response = await send(logRequests)
      assert.strictEqual(response.status, 500)
      const body = await response.json()
      assert.match(body.request_id, UUID)
      assert.strictEqual(response.headers.get("x-request-id"), body.request_id)
      const lines = parsed()
      assert.lengthOf(lines, 1, written.join(""))
      assert.deepInclude(lines[0], {
        level: "error",
        message: "Unexpected failure",
        request_id: body.request_id,
        method: "GET",
        status: 500
      })
      assert.isAtLeast(lines[0].duration_ms, 0)
      assert.include(lines[0].cause, "boom while serving /csat/[redacted]/")
      assert.strictEqual(lines[0].path, "/csat/[redacted]/?access_token=[redacted]")
      assert.notInclude(written.join(""), SURVEY_TOKEN)
      assert.notInclude(written.join(""), "t0k")
    }
  })

  it("keeps the client's own request id in the body, the header and the line", async () => {
    written.length = 0
    const response = await send(true, { "x-request-id": "client-42" })
    assert.strictEqual((await response.json()).request_id, "client-42")
    assert.strictEqual(response.headers.get("x-request-id"), "client-42")
    assert.deepStrictEqual(
      parsed().map((line) => line.request_id),
      ["client-42"]
    )
  })
})

describe("a request's line (logResponse)", () => {
  const request = { method: "GET", url: "/csat/x1/?page=2" } as HttpServerRequest.HttpServerRequest
  const lines = (effect: Effect.Effect<void>) => {
    written.length = 0
    Effect.runSync(effect.pipe(Effect.annotateLogs("request_id", "r0"), Effect.provide(jsonLogs)))
    return parsed()
  }

  it("carries the request's fields on its own line only; the fiber's annotations are as they were after it", () => {
    const [before, line, after] = lines(
      Effect.log("before").pipe(
        Effect.zipRight(logResponse(request, 204, Date.now(), "r1")),
        Effect.zipRight(Effect.log("after"))
      )
    )
    assert.deepInclude(line, { request_id: "r1", method: "GET", path: "/csat/[redacted]/?page=2", status: 204 })
    assert.isAtLeast(line.duration_ms, 0)
    for (const other of [before, after]) {
      assert.strictEqual(other.request_id, "r0")
      assert.doesNotHaveAnyKeys(other, ["method", "path", "status", "duration_ms"])
    }
  })

  it("is not written under HttpMiddleware.withLoggerDisabled", () => {
    assert.deepStrictEqual(lines(HttpMiddleware.withLoggerDisabled(logResponse(request, 200, Date.now(), "r1"))), [])
  })
})

describe("decideRequestId", () => {
  it("keeps 1 to 128 of [A-Za-z0-9._-], and makes a UUID for anything else", () => {
    assert.strictEqual(decideRequestId("abc.DEF_1-2"), "abc.DEF_1-2")
    assert.strictEqual(decideRequestId("x".repeat(128)), "x".repeat(128))
    for (const hostile of [undefined, "", "x".repeat(129), "a b", "a\nb", "a/b", '"', "ü"])
      assert.match(decideRequestId(hostile), UUID, String(hostile))
  })
})

describe("the pretty format (LOG_FORMAT=pretty, a terminal's default)", () => {
  const logged = (colors: boolean, effect: Effect.Effect<void>) => {
    const lines: Array<string> = []
    Effect.runSync(
      effect.pipe(
        Effect.provide(
          Logger.replace(
            Logger.defaultLogger,
            lineLogger("pretty", (l) => void lines.push(l), colors)
          )
        )
      )
    )
    return lines
  }
  const request = Effect.log("Sent HTTP response").pipe(
    Effect.annotateLogs({ duration_ms: 3, status: 200, path: "/x/?signature=s", method: "GET", request_id: "r1" })
  )

  it("is one line per request, its fields in reading order; coloured only when asked", () => {
    const [line, ...more] = logged(false, request)
    assert.deepStrictEqual(more, [])
    assert.match(
      line!,
      /^\d\d:\d\d:\d\d\.\d{3} INFO Sent HTTP response request_id=r1 method=GET path=\/x\/\?signature=s status=200 duration_ms=3\n$/
    )
    assert.include(logged(true, request)[0], "\x1b[")
  })

  it("puts a failure's cause, redacted, on the lines after it", () => {
    const [line] = logged(
      false,
      Effect.logError("Unexpected failure", Cause.die(new Error(`at /csat/${SURVEY_TOKEN}/`)))
    )
    assert.match(line!, /ERROR Unexpected failure\n {2}Error: at \/csat\/\[redacted\]\//)
    assert.notInclude(line!, SURVEY_TOKEN)
  })
})

describe("LOG_LEVEL", () => {
  const levelOf = (value: string | undefined) =>
    Effect.runSync(
      Effect.either(
        logLevel.pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(value === undefined ? [] : [["LOG_LEVEL", value]])))
        )
      )
    )

  it("takes every level docs/operations.md names, in any case, and Effect's own labels for them", () => {
    const expected: ReadonlyArray<readonly [string, LogLevel.LogLevel]> = [
      ["all", LogLevel.All],
      ["trace", LogLevel.Trace],
      ["debug", LogLevel.Debug],
      ["info", LogLevel.Info],
      ["warning", LogLevel.Warning],
      ["WARN", LogLevel.Warning],
      ["Error", LogLevel.Error],
      ["fatal", LogLevel.Fatal],
      ["none", LogLevel.None],
      ["OFF", LogLevel.None]
    ]
    for (const [value, level] of expected) assert.deepStrictEqual(levelOf(value), Either.right(level), value)
    assert.deepStrictEqual(levelOf(undefined), Either.right(LogLevel.Info))
  })

  it("refuses anything else, naming the levels it takes", () => {
    for (const value of ["verbose", "", "__proto__", "constructor"]) {
      const result = levelOf(value)
      assert.isTrue(Either.isLeft(result), value)
      if (Either.isLeft(result)) assert.include(String(result.left), "Expected one of all, trace, debug")
    }
  })
})
