import { NodeSdk, type Resource } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, type ConfigError, Effect, type Layer, Option } from "effect"

/**
 * The span exporter of the service (docs/decisions/0411-metrics-and-traces.md): OpenTelemetry's SDK sending OTLP
 * over HTTP (JSON) to `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces` appended) or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * as service `OTEL_SERVICE_NAME` (default `helpdesk`), batched every `OTEL_BSP_SCHEDULE_DELAY` ms (default 5000).
 * The exporter reads the other standard variables itself (`OTEL_EXPORTER_OTLP_HEADERS`, `…_TIMEOUT`,
 * `…_COMPRESSION`, `OTEL_RESOURCE_ATTRIBUTES`). `None` when no endpoint is set or `OTEL_SDK_DISABLED=true`: then
 * nothing is traced at all (decision 0780). Pending spans are flushed when the layer is released.
 */
export const otlpTracing: Effect.Effect<
  Option.Option<Layer.Layer<Resource.Resource>>,
  ConfigError.ConfigError
> = Effect.gen(function* () {
  const endpoint = yield* Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT"))
  const tracesEndpoint = yield* Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
  const disabled = yield* Config.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false))
  if (disabled || (Option.isNone(endpoint) && Option.isNone(tracesEndpoint))) return Option.none()
  const serviceName = yield* Config.nonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("helpdesk"))
  const scheduledDelayMillis = yield* Config.integer("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5000))
  const url = Option.match(tracesEndpoint, {
    onSome: (url) => url,
    onNone: () => `${Option.getOrThrow(endpoint).replace(/\/+$/, "")}/v1/traces`
  })
  return Option.some(
    NodeSdk.layer(() => ({
      resource: { serviceName },
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis })
    }))
  )
})
