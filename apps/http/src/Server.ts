import { HttpApi, HttpApiBuilder, HttpMiddleware, HttpServer } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { Api } from "./Api.js"
import { ExpiredUploadsReaperLive } from "./Attachments/ExpiredUploadsReaper.js"
import { AttachmentsLive, DownloadsLive } from "./Attachments/Http.js"
import { ServiceAuthLive } from "./Auth/ServiceAuth.js"
import { BusinessHoursLive } from "./BusinessHours/Http.js"
import { CompaniesLive } from "./Companies/Http.js"
import { CsatLive } from "./Csat/Http.js"
import { CustomersLive } from "./Customers/Http.js"
import { EventLogLive } from "./EventLog/Http.js"
import { HealthLive } from "./Health/Http.js"
import { MetricsLive } from "./Health/Metrics.js"
import { HelpCenterLive } from "./HelpCenter/Http.js"
import { corsOrigins } from "./Http/Cors.js"
import { edge } from "./Http/Edge.js"
import { servedGracefully } from "./Http/GracefulServer.js"
import { OpenApiDocsLive } from "./Http/OpenApiDocs.js"
import { createHttpServer } from "./Http/ParserErrors.js"
import { baseUrlPolicy } from "./Http/PublicBaseUrl.js"
import { QueryTextChecked } from "./Http/Query.js"
import { RedactingTracerLive } from "./Http/Redaction.js"
import { DecodeErrorsAsFieldErrors, routeMethods } from "./Http/WireMiddleware.js"
import { InboundMailHttpLive } from "./InboundMail/Http.js"
import { SmtpInboundLive } from "./InboundMail/SmtpListener.js"
import { InboxesLive } from "./Inboxes/Http.js"
import { MailTrackingLive } from "./Mail/Http.js"
import { MailWorkerLive } from "./Mail/MailWorker.js"
import { otlpTracing } from "./Observability/OtlpTracing.js"
import { OrganizationsLive } from "./Organizations/Http.js"
import { PresetFiltersLive } from "./PresetFilters/Http.js"
import { SlaPoliciesLive } from "./Sla/Http.js"
import { SlaBreachTimerLive } from "./Sla/SlaBreachTimer.js"
import { TagsLive } from "./Tags/Http.js"
import { TicketsLive } from "./Tickets/Http.js"
import { TicketServicesLive } from "./Tickets/TicketServices.js"
import { InactivityTimerLive } from "./Timers/InactivityTimer.js"
import { SnoozeTimerLive } from "./Timers/SnoozeTimer.js"
import { MembersLive, PersonalTokensLive } from "./Users/Http.js"
import { WebhooksLive } from "./Webhooks/Http.js"
import { WebhookWorkerLive } from "./Webhooks/WebhookWorker.js"

/** Every group's handlers. Register a new group's handlers here. */
export const GroupsLive = Layer.mergeAll(
  HealthLive,
  OrganizationsLive,
  PresetFiltersLive,
  HelpCenterLive,
  CustomersLive,
  CompaniesLive,
  InboxesLive,
  TagsLive,
  SlaPoliciesLive,
  TicketsLive,
  BusinessHoursLive,
  AttachmentsLive,
  DownloadsLive,
  MailTrackingLive,
  CsatLive,
  MembersLive,
  PersonalTokensLive,
  EventLogLive,
  InboundMailHttpLive,
  WebhooksLive
)

/** The API with its handlers and auth middleware, needing the `SqlClient`. */
export const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(GroupsLive), Layer.provide(ServiceAuthLive))

const apiRoutes: Array<{ method: string; path: string }> = []
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => {
    apiRoutes.push({ method: endpoint.method, path: endpoint.path })
  }
})
const allowedMethods = routeMethods(apiRoutes)

/**
 * The HTTP application on whichever `HttpServer` is provided: routes, `/openapi.json`, `/docs`, the wire
 * conventions. Needs the `SqlClient` (with migrations run) and an `HttpServer`; reads `PUBLIC_BASE_URL` and
 * `TRUST_PROXY` (how each request's base URL is decided, docs/decisions/0803-base-url-decided-once.md) and
 * `CORS_ORIGINS` (docs/decisions/0406-cors.md).
 *
 * Tracing is off unless `tracing: true` (docs/decisions/0780-tracing-off-without-exporter.md): the service ships
 * no span exporter, and spans nobody receives cost every request (the HTTP span alone parses the URL and copies
 * the headers). An embedding application that provides a tracer passes `tracing: true`.
 */
export const HttpAppLive = (options: { readonly logRequests?: boolean; readonly tracing?: boolean } = {}) => {
  const app = Layer.unwrapEffect(
    Effect.map(Effect.all([baseUrlPolicy, corsOrigins]), ([baseUrl, cors]) =>
      HttpApiBuilder.serve(edge({ allowedMethods, baseUrl, cors, logRequests: options.logRequests === true }))
    )
  ).pipe(
    // `/openapi.json` and `/docs`, rendered and gzipped once (decision 0405).
    Layer.provide(OpenApiDocsLive),
    // `/metrics` (decision 0411).
    Layer.provide(MetricsLive),
    Layer.provide(DecodeErrorsAsFieldErrors),
    Layer.provide(QueryTextChecked),
    Layer.provide(ApiLive)
  )
  return options.tracing === true
    ? app.pipe(Layer.provide(RedactingTracerLive))
    : app.pipe(
        HttpMiddleware.withTracerDisabledWhen(() => true),
        Layer.provide(Layer.setTracerEnabled(false))
      )
}

/**
 * Background work the service runs beside its HTTP endpoints (and `helpdesk worker` alone); safe on any number of
 * replicas. Register a worker's layer here. Not traced: a round every second would make a trace a second.
 */
export const WorkersLive = Layer.mergeAll(
  ExpiredUploadsReaperLive,
  MailWorkerLive,
  SnoozeTimerLive,
  InactivityTimerLive,
  SlaBreachTimerLive,
  WebhookWorkerLive
).pipe(Layer.provide(TicketServicesLive), Layer.provide(Layer.setTracerEnabled(false)))

/**
 * The service listening on `host:port` (port 0: any free port). On shutdown it stops accepting and answers what is
 * in flight before its services are released (`SHUTDOWN_TIMEOUT`, decision 0407). Traced, and its spans sent over
 * OTLP, only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (decisions 0780, 0411).
 */
export const ServerLive = (options: {
  readonly host: string
  readonly port: number
  /** Run the background workers in this process too (default); off when `helpdesk worker` runs them apart. */
  readonly workers?: boolean
}) =>
  Layer.unwrapEffect(
    Effect.map(otlpTracing, (exporter) =>
      servedGracefully(
        HttpAppLive({ logRequests: true, tracing: Option.isSome(exporter) }).pipe(
          // Requests only (the workers' rounds would make a trace a second); released after the drain, so the
          // spans of the requests answered while stopping are still flushed.
          Layer.provide(Option.getOrElse(exporter, () => Layer.empty)),
          Layer.merge(options.workers === false ? Layer.empty : WorkersLive),
          // Inbound mail over SMTP when `SMTP_INBOUND_PORT` is set (decision 0751): with the HTTP listener.
          Layer.merge(SmtpInboundLive.pipe(Layer.provide(TicketServicesLive))),
          HttpServer.withLogAddress
        ),
        createHttpServer,
        { host: options.host, port: options.port }
      )
    )
  )
