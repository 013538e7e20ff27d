import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as Endpoint from "../Http/Endpoint.js"

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
  .add(Endpoint.get("healthz", "/healthz", { summary: "Liveness: the process is up" }).addSuccess(HealthStatus))
  .add(
    Endpoint.get("readyz", "/readyz", { summary: "Readiness: the database is reachable" })
      .addSuccess(HealthStatus)
      .addError(NotReady, { status: 503 })
  )
  .annotate(OpenApi.Title, "Health") {}
