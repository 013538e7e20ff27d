import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { IntegerId, OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import { SlaPolicyOrdering } from "./SlaPolicies.js"
import { SlaPolicy, SlaPolicyCreate, SlaPolicyUpdate } from "./SlaPolicy.js"

const PolicyPath = Schema.Struct({ organization_id: OrganizationId, pk: IntegerId })

const CHANGES =
  "Every change recomputes the due times of the organization's tickets before it answers. Owners, admins and integration tokens."

/** `/organizations/{organization_id}/sla-policies/`: SLA policies of an organization (decision 0503). */
export class SlaPoliciesApi extends HttpApiGroup.make("slaPolicies")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/sla-policies/")
      .setPath(OrganizationPath)
      .setUrlParams(Schema.Struct({ ...SlaPolicyOrdering.params, ...Pagination.params }))
      .addSuccess(Pagination.Envelope(SlaPolicy))
      .annotate(OpenApi.Summary, "List SLA policies")
      .annotate(OpenApi.Description, "By default in the order they are tried: `position`, then `id`.")
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/sla-policies/")
      .setPath(OrganizationPath)
      .setPayload(SlaPolicyCreate)
      .addSuccess(SlaPolicy, { status: 201 })
      .annotate(OpenApi.Summary, "Create an SLA policy")
      .annotate(
        OpenApi.Description,
        `\`name\` is required. Conditions \`priorities\`, \`inbox_ids\`, \`tag_ids\` (empty: any; all given ones must match, a list matches any of its values); targets \`first_reply_minutes\`, \`next_reply_minutes\`, \`resolution_minutes\` (1–5,256,000 or null for none), counted in business minutes of the organization's business hours unless \`business_hours\` is false; \`pause_when_waiting_on_customer\` and \`pause_when_snoozed\` (default true) stop the clocks. \`position\` defaults to after the last policy. ${CHANGES} Answers 201 with a \`Location\` header.`
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/sla-policies/:pk/")
      .setPath(PolicyPath)
      .addSuccess(SlaPolicy)
      .annotate(OpenApi.Summary, "Read an SLA policy")
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/sla-policies/:pk/")
      .setPath(PolicyPath)
      .setPayload(SlaPolicyUpdate)
      .addSuccess(SlaPolicy)
      .annotate(OpenApi.Summary, "Change an SLA policy")
      .annotate(OpenApi.Description, CHANGES)
  )
  .add(
    HttpApiEndpoint.del("delete", "/organizations/:organization_id/sla-policies/:pk/")
      .setPath(PolicyPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Delete an SLA policy")
      .annotate(OpenApi.Description, `Answers 204. Its tickets fall to the next policy that matches them. ${CHANGES}`)
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "SLA policies") {}
