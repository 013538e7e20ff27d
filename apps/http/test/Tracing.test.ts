import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Tracer } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { get, testAppLive } from "./support/TestApp.js"

/** A tracer that records the name of every span started under it, then delegates to Effect's own. */
const recordingTracer = (names: Array<string>) =>
  Layer.unwrapEffect(
    Effect.map(Effect.tracer, (native) =>
      Layer.setTracer(
        Tracer.make({
          span: (name, ...rest) => {
            names.push(name)
            return native.span(name, ...rest)
          },
          context: native.context
        })
      )
    )
  )

const untraced: Array<string> = []
const traced: Array<string> = []

describe("tracing (docs/decisions/0780-tracing-off-without-exporter.md)", () => {
  layer(testAppLive().pipe(Layer.provide(recordingTracer(untraced))), { excludeTestServices: true })(
    "by default",
    (it) => {
      it.effect("requests start no span, even under a tracer the embedding program provides", () =>
        Effect.gen(function* () {
          const org = yield* Fixtures.organization()
          untraced.length = 0
          assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).status, 200)
          assert.strictEqual((yield* get("/healthz")).status, 200)
          assert.deepStrictEqual(untraced, [])
        })
      )
    }
  )

  layer(testAppLive({ tracing: true }).pipe(Layer.provide(recordingTracer(traced))), { excludeTestServices: true })(
    "with tracing: true",
    (it) => {
      it.effect("each request has its HTTP server span and the spans of its queries", () =>
        Effect.gen(function* () {
          const org = yield* Fixtures.organization()
          traced.length = 0
          assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).status, 200)
          assert.include(traced, "http.server GET")
          assert.include(traced, "Tokens.authenticate")
        })
      )
    }
  )
})
