import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Tracer } from "effect"
import { withSpan } from "../src/Observability/Spans.js"
import { WorkersLive } from "../src/Server.js"
import { ServicesLive } from "../src/Services.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, testAppLive } from "./support/TestApp.js"
import { testDatabaseLive } from "./support/TestDatabase.js"
import { organization, postMessage, ticket } from "./TicketsSupport.js"

/** A tracer that records the name of every span started under it, then delegates to Effect's own. */
const recordingTracer = (names: Array<string>, attributes?: Map<string, unknown>) =>
  Layer.unwrapEffect(
    Effect.map(Effect.tracer, (native) =>
      Layer.setTracer(
        Tracer.make({
          span: (name, parent, context, links, startTime, kind, options) => {
            names.push(name)
            attributes?.set(name, options?.attributes)
            return native.span(name, parent, context, links, startTime, kind, options)
          },
          context: native.context
        })
      )
    )
  )

const untraced: Array<string> = []
const traced: Array<string> = []
const tracedAttributes = new Map<string, unknown>()
const workerSpans: Array<string> = []

/** The test app under a {@link recordingTracer} writing to `names` (and `attributes`). */
const appRecordingSpans = (
  names: Array<string>,
  options?: Parameters<typeof testAppLive>[0],
  attributes?: Map<string, unknown>
) => testAppLive(options).pipe(Layer.provide(recordingTracer(names, attributes)))

/** Empties `names`, then has a new organization's owner read it (asserting the 200), so `names` holds that read's spans. */
const recordOrganizationRead = (names: Array<string>) =>
  Effect.gen(function* () {
    const org = yield* Fixtures.organization()
    names.length = 0
    assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).status, 200)
  })

/** Empties `names`, then posts a reply to a new ticket (asserting the 201), so `names` holds that write's spans. */
const recordReply = (names: Array<string>) =>
  Effect.gen(function* () {
    const org = yield* organization
    const created = yield* ticket(org)
    names.length = 0
    assert.strictEqual((yield* postMessage(org, created.id, { content: "On its way." })).status, 201)
  })

describe("tracing (docs/decisions/0780-tracing-off-without-exporter.md)", () => {
  layer(appRecordingSpans(untraced), { excludeTestServices: true })("by default", (it) => {
    it.effect("requests start no span, even under a tracer the embedding program provides", () =>
      Effect.gen(function* () {
        yield* recordOrganizationRead(untraced)
        assert.strictEqual((yield* get("/healthz")).status, 200)
        assert.deepStrictEqual(untraced, [])
      })
    )

    it.effect("neither does a ticket write, through every step of the command pipeline", () =>
      Effect.gen(function* () {
        yield* recordReply(untraced)
        assert.deepStrictEqual(untraced, [])
      })
    )
  })

  layer(appRecordingSpans(traced, { tracing: true }, tracedAttributes), { excludeTestServices: true })(
    "with tracing: true",
    (it) => {
      it.effect("each request has its HTTP server span and the spans of its queries", () =>
        Effect.gen(function* () {
          yield* recordOrganizationRead(traced)
          assert.include(traced, "http.server GET")
          assert.include(traced, "Tokens.authenticate")
        })
      )

      it.effect("a ticket write has the spans of its pipeline's steps, with their attributes", () =>
        Effect.gen(function* () {
          yield* recordReply(traced)
          for (const step of [
            "TicketCommands.addMessage",
            "Ticket.runCommands",
            "PostgresTicketStore.append",
            "PostgresEventStore.append"
          ])
            assert.include(traced, step)
          assert.deepStrictEqual(tracedAttributes.get("PostgresEventStore.append"), { streams: 1 })
        })
      )
    }
  )

  layer(
    // One connection, as the service keeps to PGlite: its single session would mix up concurrent rounds' exchanges.
    WorkersLive.pipe(
      Layer.provide(ServicesLive),
      Layer.provide(testDatabaseLive(1)),
      Layer.provide(recordingTracer(workerSpans))
    ),
    { excludeTestServices: true }
  )("the background workers", (it) => {
    it.effect("start no span in their rounds, even under a tracer the embedding program provides", () =>
      Effect.gen(function* () {
        workerSpans.length = 0 // the migrations' statements, run before the workers start
        // Every worker has run a round by then (the mail worker polls every second).
        yield* Effect.sleep("1500 millis")
        assert.deepStrictEqual(workerSpans, [])
      })
    )
  })
})

describe("withSpan (src/Observability/Spans.ts)", () => {
  const spans: Array<string> = []
  const attributes = new Map<string, unknown>()
  layer(recordingTracer(spans, attributes))((it) => {
    it.effect("records the span, with its attributes, when the tracer is enabled", () =>
      Effect.gen(function* () {
        spans.length = 0
        const answer = yield* Effect.succeed(42).pipe(withSpan("Step.traced", { attributes: { ticketId: 7 } }))
        assert.strictEqual(answer, 42)
        assert.deepStrictEqual(spans, ["Step.traced"])
        assert.deepStrictEqual(attributes.get("Step.traced"), { ticketId: 7 })
      })
    )

    it.effect("starts no span and changes nothing else when the tracer is disabled", () =>
      Effect.gen(function* () {
        spans.length = 0
        const failed = yield* Effect.fail("refused").pipe(withSpan("Step.untraced"), Effect.flip)
        assert.strictEqual(failed, "refused")
        assert.deepStrictEqual(spans, [])
      }).pipe(Effect.withTracerEnabled(false))
    )
  })
})
