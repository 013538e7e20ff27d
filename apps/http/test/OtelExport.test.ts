import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import { otlpTracing } from "../src/Observability/OtlpTracing.js"
import { ServerLive } from "../src/Server.js"
import { ServicesLive } from "../src/Services.js"
import * as Fixtures from "./support/Fixtures.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

/** An OTLP/HTTP JSON attribute: `{ key, value: { stringValue | intValue | … } }`. */
interface OtlpAttribute {
  readonly key: string
  readonly value: Readonly<Record<string, unknown>>
}

interface OtlpSpan {
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<OtlpAttribute>
}

/** What a collector received: each request's content type, and every span with its resource's attributes. */
interface Received {
  readonly contentTypes: Array<string | undefined>
  readonly spans: Array<{ readonly span: OtlpSpan; readonly resource: ReadonlyArray<OtlpAttribute> }>
}

/** A tiny OTLP/HTTP collector on a free port, accepting JSON at `/v1/traces`; closed with the scope. */
const collector = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly received: Received; readonly close: () => void }>((resume) => {
    const received: Received = { contentTypes: [], spans: [] }
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        if (request.url === "/v1/traces") {
          received.contentTypes.push(request.headers["content-type"])
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          for (const resourceSpans of body.resourceSpans ?? [])
            for (const scopeSpans of resourceSpans.scopeSpans ?? [])
              for (const span of scopeSpans.spans ?? [])
                received.spans.push({ span, resource: resourceSpans.resource?.attributes ?? [] })
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, received, close: () => server.close() }))
    })
  }),
  ({ close }) => Effect.sync(close)
)

/** A port free a moment ago, for `ServerLive` (which listens where it is told). */
const freePort = Effect.async<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as AddressInfo
    probe.close(() => resume(Effect.succeed(port)))
  })
})

const attribute = (attributes: ReadonlyArray<OtlpAttribute>, key: string) => {
  const value = attributes.find((a) => a.key === key)?.value
  return value === undefined ? undefined : (value.stringValue ?? value.intValue)
}

const withConfig = (settings: Record<string, string>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))

describe("OpenTelemetry export (docs/decisions/0411-metrics-and-traces.md)", () => {
  it.effect("is off without an endpoint, and with OTEL_SDK_DISABLED", () =>
    Effect.gen(function* () {
      assert.isTrue(Option.isNone(yield* Effect.provide(otlpTracing, withConfig({}))))
      const disabled = withConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" })
      assert.isTrue(Option.isNone(yield* Effect.provide(otlpTracing, disabled)))
      const on = withConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })
      assert.isTrue(Option.isSome(yield* Effect.provide(otlpTracing, on)))
    })
  )

  it.live(
    "with OTEL_EXPORTER_OTLP_ENDPOINT, the service sends each request's server span with its route template, URL secrets redacted",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { url, received } = yield* collector
          const port = yield* freePort
          const settings = ConfigProvider.fromMap(
            new Map([
              ["OTEL_EXPORTER_OTLP_ENDPOINT", url],
              ["OTEL_BSP_SCHEDULE_DELAY", "50"],
              ["SHUTDOWN_TIMEOUT", "2 seconds"]
            ])
          ).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
          const context = yield* Layer.build(
            Layer.merge(ServerLive({ host: "127.0.0.1", port, workers: false }), ServicesLive).pipe(
              Layer.provideMerge(TestDatabaseLive),
              Layer.provide(Layer.setConfigProvider(settings))
            )
          )
          const org = yield* Effect.provide(Fixtures.organization(), context)
          const base = `http://127.0.0.1:${port}`
          const read = yield* Effect.promise(() =>
            fetch(`${base}${org.path}`, { headers: { "x-service-token": org.ownerToken } })
          )
          assert.strictEqual(read.status, 200)
          const survey = yield* Effect.promise(() => fetch(`${base}/csat/not-a-real-survey-token-0123456789/`))
          assert.oneOf(survey.status, [404, 410])

          const serverSpans = () => received.spans.filter(({ span }) => span.kind === 2)
          // Spans leave in batches every OTEL_BSP_SCHEDULE_DELAY ms.
          for (let waited = 0; serverSpans().length < 2 && waited < 10_000; waited += 50) yield* Effect.sleep(50)

          const traced = serverSpans().find(
            ({ span }) => attribute(span.attributes, "http.route") === "/organizations/{organization_id}/"
          )
          assert.isDefined(traced, JSON.stringify(received.spans.map(({ span }) => span.name)))
          assert.strictEqual(traced!.span.name, "http.server GET")
          assert.strictEqual(attribute(traced!.span.attributes, "url.path"), org.path)
          assert.strictEqual(String(attribute(traced!.span.attributes, "http.response.status_code")), "200")
          assert.strictEqual(attribute(traced!.resource, "service.name"), "helpdesk")
          assert.isTrue(received.contentTypes.every((type) => type === "application/json"))
          // The spans of the request's own work travel with it.
          assert.isTrue(received.spans.some(({ span }) => span.name === "Tokens.authenticate"))

          const csat = serverSpans().find(({ span }) =>
            attribute(span.attributes, "url.path")?.toString().startsWith("/csat/")
          )
          assert.isDefined(csat)
          assert.strictEqual(attribute(csat!.span.attributes, "url.path"), "/csat/[redacted]/")
          assert.notInclude(JSON.stringify(received.spans), "not-a-real-survey-token-0123456789")
        })
      ),
    { timeout: 60_000 }
  )
})
