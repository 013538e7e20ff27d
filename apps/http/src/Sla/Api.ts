import { integerIdParam } from "../Http/PathParams.js"
import { fromModel } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import { SlaPolicyOrdering } from "./SlaPolicies.js"
import { SlaPolicy, SlaPolicyCreate, SlaPolicyUpdate, type StoredSlaPolicy } from "./SlaPolicy.js"

const CHANGES =
  "Every change recomputes the due times of the organization's tickets before it answers. Owners, admins and integration tokens."

/** The wire form of a stored policy. */
export const toSlaPolicy: (policy: StoredSlaPolicy) => SlaPolicy = fromModel(SlaPolicy)

/** SLA policies as a directory resource: `/organizations/{organization_id}/sla-policies/{pk}/` (decision 0503). */
export const SlaPolicyResource = Resource.make({
  path: { segment: "sla-policies", id: integerIdParam("pk") },
  noun: { one: "an SLA policy", many: "SLA policies" },
  wire: { item: SlaPolicy, toWire: toSlaPolicy, create: SlaPolicyCreate, update: SlaPolicyUpdate },
  ordering: SlaPolicyOrdering,
  docs: {
    list: "By default in the order they are tried: `position`, then `id`.",
    create: `\`name\` is required. Conditions \`priorities\`, \`inbox_ids\`, \`tag_ids\` (empty: any; all given ones must match, a list matches any of its values); targets \`first_reply_minutes\`, \`next_reply_minutes\`, \`resolution_minutes\` (1–5,256,000 or null for none), counted in business minutes of the organization's business hours unless \`business_hours\` is false; \`pause_when_waiting_on_customer\` and \`pause_when_snoozed\` (default true) stop the clocks. \`position\` defaults to after the last policy. ${CHANGES} Answers 201 with a \`Location\` header.`,
    update: CHANGES,
    delete: `Answers 204. Its tickets fall to the next policy that matches them. ${CHANGES}`
  }
})

/** `/organizations/{organization_id}/sla-policies/`: SLA policies of an organization (decision 0503). */
export class SlaPoliciesApi extends Resource.group(
  "slaPolicies",
  Resource.endpoints(SlaPolicyResource),
  "SLA policies"
) {}
