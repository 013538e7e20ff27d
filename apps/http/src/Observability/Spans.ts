import { Effect, FiberRef, type Tracer } from "effect"

/**
 * `Effect.withSpan` for the service's code, free when the tracer is disabled (the service's default, decision 0780):
 * Effect's own still builds a no-op span, captures a stack trace and provides the span (a copy of the fiber's
 * context) on every call. A recorded span carries no call-site stack trace; its name says where it comes from.
 */
export const withSpan =
  (name: string, options?: Tracer.SpanOptions) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime<A, E, R>((fiber) =>
      fiber.getFiberRef(FiberRef.currentTracerEnabled)
        ? Effect.withSpan(self, name, { ...options, captureStackTrace: false })
        : self
    )
