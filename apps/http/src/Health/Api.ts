import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

/** Probe answer. */
export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") }).annotations({ identifier: "HealthStatus" })

/** The database could not be reached. */
export class NotReady extends Schema.TaggedError<NotReady>()(
  "NotReady",
  { status: Schema.Literal("unavailable"), detail: Schema.String },
  { description: "The database is not reachable." }
) {}

/** Liveness and readiness probes (no authentication, no trailing slash). */
export class HealthApi extends HttpApiGroup.make("health", { topLevel: true })
  .add(
    HttpApiEndpoint.get("healthz", "/healthz")
      .addSuccess(HealthStatus)
      .annotate(OpenApi.Summary, "Liveness: the process is up")
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(HealthStatus)
      .addError(NotReady, { status: 503 })
      .annotate(OpenApi.Summary, "Readiness: the database is reachable")
  )
  .annotate(OpenApi.Title, "Health") {}
