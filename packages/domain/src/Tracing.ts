import { Effect, FiberRef, type Tracer } from "effect"

/**
 * `Effect.withSpan` that costs nothing when the fiber's tracer is disabled: Effect's own still builds a no-op span
 * and provides it (a copy of the fiber's context) on every call. A recorded span carries no call-site stack trace
 * (captured on every call otherwise); its name says where it comes from.
 */
export const withSpanWhenTraced =
  (name: string, options?: Tracer.SpanOptions) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime<A, E, R>((fiber) =>
      fiber.getFiberRef(FiberRef.currentTracerEnabled)
        ? Effect.withSpan(self, name, { ...options, captureStackTrace: false })
        : self
    )
