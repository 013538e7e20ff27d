import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Metric, MetricBoundaries } from "effect"
import { renderPrometheus } from "../src/Observability/Prometheus.js"
import { routeTemplates } from "../src/Observability/RouteTemplates.js"
import * as Fixtures from "./support/Fixtures.js"
import { rawRequest } from "./support/RawHttp.js"
import { del, get, TestApp, testAppLive } from "./support/TestApp.js"
import { createTicket, ENGLISH, organization } from "./TicketsSupport.js"

/** One sample line of the exposition format. */
interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"])

const parseValue = (text: string) => {
  if (text === "+Inf") return Number.POSITIVE_INFINITY
  if (text === "-Inf") return Number.NEGATIVE_INFINITY
  if (text === "NaN") return Number.NaN
  assert.match(text, /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/, `a sample value: ${text}`)
  return Number(text)
}

/**
 * Reads Prometheus text (format 0.0.4) line by line, failing on any line the format does not allow: `# HELP` and
 * `# TYPE` once per family and before its samples, a family's samples together, names and labels well formed.
 */
const parseExposition = (text: string) => {
  assert.isTrue(text.endsWith("\n"), "the text ends with a line feed")
  const types = new Map<string, string>()
  const samples: Array<Sample> = []
  const finished = new Set<string>()
  let current: string | undefined
  const familyOf = (name: string) => {
    for (const suffix of ["_bucket", "_sum", "_count"]) {
      const base = name.slice(0, -suffix.length)
      if (name.endsWith(suffix) && ["histogram", "summary"].includes(types.get(base) ?? "")) return base
    }
    return name
  }
  const enter = (family: string) => {
    if (current === family) return
    assert.isFalse(finished.has(family), `the samples of ${family} are together`)
    if (current !== undefined) finished.add(current)
    current = family
  }
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
      const [, keyword, name = "", rest = ""] = line.match(/^# (HELP|TYPE) (\S+) ?(.*)$/) ?? []
      assert.match(name, NAME, line)
      if (keyword === "TYPE") {
        assert.isTrue(TYPES.has(rest), `a known type: ${line}`)
        assert.isFalse(types.has(name), `one TYPE line for ${name}`)
        types.set(name, rest)
      }
      enter(name)
      continue
    }
    assert.isFalse(line.startsWith("#") || line === "", `no stray comment or blank line: ${JSON.stringify(line)}`)
    const match = line.match(SAMPLE)
    assert.isNotNull(match, `a sample line: ${line}`)
    const [, name = "", labelText = "", valueText = ""] = match!
    const labels: Record<string, string> = {}
    let rest = labelText
    while (rest !== "") {
      const label = rest.match(LABEL)
      assert.isNotNull(label, `well-formed labels: ${line}`)
      assert.notProperty(labels, label![1]!, `a label given once: ${line}`)
      labels[label![1]!] = label![2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c))
      rest = rest.slice(label![0].length)
    }
    enter(familyOf(name))
    samples.push({ name, labels, value: parseValue(valueText) })
  }
  return { types, samples }
}

const find = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))

/** The histogram's series named by `labels`: cumulative buckets up to `+Inf`, which equals `_count`. */
const assertHistogram = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string>) => {
  const buckets = find(samples, `${name}_bucket`, labels)
  assert.isAtLeast(buckets.length, 2, `${name} has buckets for ${JSON.stringify(labels)}`)
  for (let i = 1; i < buckets.length; i++) assert.isAtLeast(buckets[i]!.value, buckets[i - 1]!.value, "cumulative")
  assert.strictEqual(buckets[buckets.length - 1]!.labels.le, "+Inf")
  const [count] = find(samples, `${name}_count`, labels)
  assert.isDefined(find(samples, `${name}_sum`, labels)[0])
  assert.strictEqual(buckets[buckets.length - 1]!.value, count!.value)
  return count!.value
}

const scrape = (options: { readonly token?: string } = {}) =>
  Effect.gen(function* () {
    const response = yield* get("/metrics", {
      headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }
    })
    assert.strictEqual(response.status, 200, response.text)
    assert.strictEqual(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8")
    return { text: response.text, ...parseExposition(response.text) }
  })

describe("route templates", () => {
  const routeOf = routeTemplates([
    { method: "GET", path: "/organizations/:organization_id/tickets/:ticket_id/" },
    { method: "PATCH", path: "/organizations/:organization_id/tickets/:ticket_id/" },
    { method: "GET", path: "/organizations/:organization_id/tickets/search/" },
    { method: "GET", path: "/healthz" }
  ])
  it("name a request by its route's template, never by its ids", () => {
    assert.deepStrictEqual(routeOf("GET", "/organizations/acme-x1/tickets/42/?expand=all"), {
      route: "/organizations/{organization_id}/tickets/{ticket_id}/",
      methodServed: true
    })
    assert.strictEqual(
      routeOf("GET", "/organizations/acme/tickets/search/").route,
      "/organizations/{organization_id}/tickets/search/"
    )
    assert.deepStrictEqual(routeOf("DELETE", "/healthz"), { route: "/healthz", methodServed: false })
    assert.strictEqual(routeOf("HEAD", "/healthz").methodServed, true)
    assert.strictEqual(routeOf("GET", "/organizations/acme/tickets/42").route, "unmatched")
    assert.strictEqual(routeOf("GET", "/organizations//tickets/42/").route, "unmatched")
    assert.strictEqual(routeOf("GET", "/wp-admin/install.php").route, "unmatched")
  })
})

describe("the Prometheus rendering", () => {
  it.effect("escapes label values and help text, and writes every kind in the format", () =>
    Effect.gen(function* () {
      const counter = Metric.counter("render_test_total", { description: 'Says "hi"\\ on\ntwo lines' })
      yield* Metric.incrementBy(counter.pipe(Metric.tagged("path", 'a"b\\c\nd')), 2)
      yield* Metric.update(Metric.frequency("render-test.frequency"), "x")
      yield* Metric.update(Metric.histogram("render_test_seconds", MetricBoundaries.fromIterable([1, 2])), 1.5)
      yield* Metric.update(
        Metric.summary({ name: "render_test_summary", maxAge: "1 minute", maxSize: 10, error: 0.01, quantiles: [0.5] }),
        3
      )
      const text = renderPrometheus(yield* Metric.snapshot)
      const { types, samples } = parseExposition(text)
      assert.include(text, '# HELP render_test_total Says "hi"\\\\ on\\ntwo lines\n')
      assert.deepStrictEqual(find(samples, "render_test_total")[0], {
        name: "render_test_total",
        labels: { path: 'a"b\\c\nd' },
        value: 2
      })
      assert.strictEqual(types.get("render_test_frequency"), "counter")
      assert.strictEqual(find(samples, "render_test_frequency", { key: "x" })[0]?.value, 1)
      assert.deepStrictEqual(
        find(samples, "render_test_seconds_bucket").map((s) => [s.labels.le, s.value]),
        [
          ["1", 0],
          ["2", 1],
          ["+Inf", 1]
        ]
      )
      assert.strictEqual(types.get("render_test_summary"), "summary")
      assert.strictEqual(find(samples, "render_test_summary", { quantile: "0.5" })[0]?.value, 3)
    })
  )
})

describe("/metrics (docs/decisions/0411-metrics-and-traces.md)", () => {
  layer(testAppLive(), { excludeTestServices: true })("open", (it) => {
    it.effect(
      "counts requests by route template and status, with latency, append, outbox, timer and pool figures",
      () =>
        Effect.gen(function* () {
          const org = yield* organization
          assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).status, 200)
          assert.strictEqual((yield* get(`${org.tickets}987654/`, { token: org.ownerToken })).status, 404)
          assert.strictEqual((yield* get(`/nowhere/${org.organization.public_id}/`)).status, 404)
          assert.strictEqual((yield* del("/healthz")).status, 405)
          const created = yield* createTicket(org, {
            subject: "Parcel missing",
            description: ENGLISH,
            customer_email: "jane@example.com"
          })
          assert.strictEqual(created.status, 201, created.text)

          const { text, types, samples } = yield* scrape()
          // No concrete path (nor any id in one) ever becomes a label.
          assert.notInclude(text, org.organization.public_id)
          assert.notInclude(text, "987654")

          assert.strictEqual(types.get("helpdesk_http_requests_total"), "counter")
          const requests = (route: string, method: string, status: string) =>
            find(samples, "helpdesk_http_requests_total", { route, method, status })[0]?.value ?? 0
          assert.strictEqual(requests("/organizations/{organization_id}/", "GET", "200"), 1)
          assert.strictEqual(requests("/organizations/{organization_id}/tickets/{ticket_id}/", "GET", "404"), 1)
          assert.strictEqual(requests("/organizations/{organization_id}/tickets/", "POST", "201"), 1)
          assert.strictEqual(requests("unmatched", "GET", "404"), 1)
          assert.strictEqual(requests("/healthz", "DELETE", "405"), 1)

          assert.strictEqual(types.get("helpdesk_http_request_duration_seconds"), "histogram")
          const timed = assertHistogram(samples, "helpdesk_http_request_duration_seconds", {
            method: "POST",
            route: "/organizations/{organization_id}/tickets/",
            status: "201"
          })
          assert.strictEqual(timed, 1)

          assert.strictEqual(types.get("helpdesk_event_store_append_duration_seconds"), "histogram")
          assert.isAtLeast(assertHistogram(samples, "helpdesk_event_store_append_duration_seconds", {}), 1)

          // The new ticket's outbox row waits: no worker runs beside the app under test.
          assert.strictEqual(types.get("helpdesk_outbox_pending"), "gauge")
          assert.isAtLeast(find(samples, "helpdesk_outbox_pending")[0]!.value, 1)
          assert.isAtLeast(find(samples, "helpdesk_outbox_oldest_pending_age_seconds")[0]!.value, 0)
          assert.strictEqual(find(samples, "helpdesk_timers_due", { timer: "snooze" })[0]?.value, 0)
          assert.strictEqual(find(samples, "helpdesk_timers_oldest_due_age_seconds", { timer: "snooze" })[0]?.value, 0)

          const pool = (name: string) => find(samples, name)[0]?.value
          assert.isAtLeast(pool("helpdesk_db_pool_connections")!, 1)
          assert.isAtLeast(pool("helpdesk_db_pool_max_connections")!, pool("helpdesk_db_pool_connections")!)
          assert.isAtLeast(pool("helpdesk_db_pool_idle_connections")!, 0)
          assert.strictEqual(pool("helpdesk_db_pool_waiting_clients"), 0)
        })
    )

    it.effect("is served without a trailing slash, a token or a valid Host, and counts its own scrapes", () =>
      Effect.gen(function* () {
        const { baseUrl } = yield* TestApp
        const port = Number(new URL(baseUrl).port)
        const badHost = yield* rawRequest({
          port,
          head: "GET /metrics HTTP/1.1\r\nHost: bad host!\r\nConnection: close"
        })
        assert.strictEqual(badHost.status, 200, badHost.body)
        const { samples } = yield* scrape()
        assert.isAtLeast(
          find(samples, "helpdesk_http_requests_total", { route: "/metrics", status: "200" })[0]!.value,
          2
        )
      })
    )
  })

  const withToken = ConfigProvider.fromMap(new Map([["METRICS_TOKEN", "scrape-secret"]])).pipe(
    ConfigProvider.orElse(() => ConfigProvider.fromEnv())
  )
  layer(testAppLive().pipe(Layer.provide(Layer.setConfigProvider(withToken))), { excludeTestServices: true })(
    "with METRICS_TOKEN",
    (it) => {
      it.effect("asks for the bearer token, and answers with it", () =>
        Effect.gen(function* () {
          const refused = yield* get("/metrics")
          assert.strictEqual(refused.status, 401)
          assert.strictEqual(refused.headers.get("www-authenticate"), 'Bearer realm="metrics"')
          assert.deepStrictEqual(Object.keys(refused.body), ["detail"])
          const wrong = yield* get("/metrics", { headers: { authorization: "Bearer scrape-secreT" } })
          assert.strictEqual(wrong.status, 401)
          yield* scrape({ token: "scrape-secret" })
          // The API's own 401 keeps its challenge.
          const org = yield* Fixtures.organization()
          const api = yield* get(org.path)
          assert.strictEqual(api.status, 401)
          assert.strictEqual(api.headers.get("www-authenticate"), "X-Service-Token")
        })
      )
    }
  )
})
