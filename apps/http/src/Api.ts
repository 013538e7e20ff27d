import { HttpApi, OpenApi } from "@effect/platform"
import { AttachmentsApi, DownloadsApi } from "./Attachments/Api.js"
import { BusinessHoursApi } from "./BusinessHours/Api.js"
import { CompaniesApi } from "./Companies/Api.js"
import { CsatApi } from "./Csat/Api.js"
import { CustomersApi } from "./Customers/Api.js"
import { EventLogApi } from "./EventLog/Api.js"
import { HealthApi } from "./Health/Api.js"
import { HelpCenterApi } from "./HelpCenter/Api.js"
import { Wire } from "./Http/Errors.js"
import { API_LICENSE, API_VERSION, documentContract } from "./Http/OpenApiContract.js"
import { InboundMailApi } from "./InboundMail/Api.js"
import { InboxesApi } from "./Inboxes/Api.js"
import { MailTrackingApi } from "./Mail/Api.js"
import { OrganizationsApi } from "./Organizations/Api.js"
import { PresetFiltersApi } from "./PresetFilters/Api.js"
import { SlaPoliciesApi } from "./Sla/Api.js"
import { TagsApi } from "./Tags/Api.js"
import { TicketsApi } from "./Tickets/Api.js"
import { MembersApi, PersonalTokensApi } from "./Users/Api.js"
import { WebhooksApi } from "./Webhooks/Api.js"

const conventions = `Helpdesk backend API. Wire conventions (see docs/api-conventions.md):

- **Paths** end with \`/\`. GET/HEAD without it → 301 to the slashed path; other methods → 404 naming it.
  \`{organization_id}\` is the organization's \`public_id\` (\`^[-a-zA-Z0-9_]+$\`); anything else → 404.
- **Authentication**: header \`X-Service-Token\` on every endpoint except the probes. Missing →
  401 \`{"detail":"Authentication credentials were not provided."}\`; unknown, revoked or malformed → 401
  \`{"detail":"Invalid token."}\`; a 401 carries \`WWW-Authenticate: X-Service-Token\`. An organization the caller does
  not belong to → 404 \`{"detail":"Not found."}\`; a role the roles table does not allow → 403
  (docs/api-conventions.md, "Roles").
- **Bodies**: \`application/json\`, \`application/x-www-form-urlencoded\` or \`multipart/form-data\` (at most 1 MB
  outside uploads). Form values are strings: booleans accept \`true/false/1/0/yes/no\` (any case), integers are
  parsed, lists repeat the key. Unknown and read-only fields are ignored. Other media types → 415; malformed
  JSON → 400 \`{"detail":"JSON parse error - <reason>"}\`.
- **Validation errors**: 400 with each offending field mapped to a list of messages (nested objects for nested
  fields, \`non_field_errors\` for cross-field rules).
- **Pagination**: \`page\` (1-based) and \`page_size\` (default 25, max 100, clamped); envelope
  \`count/next/previous/results\` with absolute links; a bad or past-the-end page → 404 \`{"detail":"Invalid page."}\`;
  a bad \`page_size\` → 400.
- **Ordering**: \`ordering=-created_at,id\` with the fields each list allows; unknown field → 400; ties broken by id.
- **Status codes**: create → 201 with \`Location\`; delete → 204; too large → 413; unexpected → 500
  \`{"detail":"Internal server error.","request_id":"…"}\`.
- **Representation**: timestamps ISO-8601 UTC with milliseconds and \`Z\`; integer ids are numbers; UUIDs lowercase.`

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"] as const

/**
 * Documents what the kernel does beyond HttpApi's own generator: every JSON request body is also accepted as a
 * form or multipart body, and HttpApi's own decode error never reaches the wire (it becomes a field-error 400).
 */
// biome-ignore-start lint/suspicious/noExplicitAny: the generated spec is untyped JSON
const completeSpec = (spec: Record<string, any>): Record<string, any> => {
  for (const methods of Object.values(spec.paths ?? {}) as Array<Record<string, any>>) {
    for (const operation of Object.values(methods)) {
      const content = operation?.requestBody?.content
      if (content?.["application/json"]) {
        for (const type of FORM_TYPES) content[type] ??= content["application/json"]
      }
      for (const response of Object.values(operation?.responses ?? {}) as Array<any>) {
        const schema = response?.content?.["application/json"]?.schema
        if (Array.isArray(schema?.anyOf)) {
          schema.anyOf = schema.anyOf.filter((s: any) => s?.$ref !== "#/components/schemas/HttpApiDecodeError")
          if (schema.anyOf.length === 1) response.content["application/json"].schema = schema.anyOf[0]
          if (schema.anyOf?.some((s: any) => s?.$ref === "#/components/schemas/ValidationError"))
            response.description = "Field errors (`ValidationError`) or a malformed body (`BadRequest`)."
        }
      }
    }
  }
  if (spec.components?.schemas) {
    delete spec.components.schemas.HttpApiDecodeError
    delete spec.components.schemas.Issue
  }
  return spec
}
// biome-ignore-end lint/suspicious/noExplicitAny: the generated spec is untyped JSON

/**
 * The whole HTTP API: one group per resource. Register a new group here with `.add(TheGroupApi)` and its
 * handlers in `Server.ts`. Errors every endpoint may answer with are registered once, here.
 */
export class Api extends HttpApi.make("helpdesk")
  .add(HealthApi)
  .add(OrganizationsApi)
  .add(PresetFiltersApi)
  .add(HelpCenterApi)
  .add(CustomersApi)
  .add(CompaniesApi)
  .add(InboxesApi)
  .add(TagsApi)
  .add(SlaPoliciesApi)
  .add(TicketsApi)
  .add(BusinessHoursApi)
  .add(AttachmentsApi)
  .add(DownloadsApi)
  .add(MailTrackingApi)
  .add(CsatApi)
  .add(MembersApi)
  .add(PersonalTokensApi)
  .add(EventLogApi)
  .add(InboundMailApi)
  .add(WebhooksApi)
  .addError(Wire.ValidationError)
  .addError(Wire.BadRequest)
  .addError(Wire.NotFound)
  .addError(Wire.PayloadTooLarge)
  .addError(Wire.UnsupportedMediaType)
  .addError(Wire.InternalServerError)
  .annotate(OpenApi.Title, "Helpdesk API")
  .annotate(OpenApi.Version, API_VERSION)
  .annotate(OpenApi.License, API_LICENSE)
  .annotate(OpenApi.Description, conventions)
  .annotate(OpenApi.Transform, (spec) => documentContract(completeSpec(spec))) {}
