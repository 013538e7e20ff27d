import { Priority } from "@helpdesk/domain"
import { Schema } from "effect"
import { BigInt8, Jsonb, Timestamptz } from "../Database/Columns.js"
import * as Fields from "../Http/Fields.js"
import { Timestamp } from "../Http/Representation.js"

/** Longest policy name. */
export const MAX_POLICY_NAME_LENGTH = 100

/** Most values one condition list may hold. */
export const MAX_CONDITION_VALUES = 100

/** Longest target: ten years of minutes. */
export const MAX_TARGET_MINUTES = 5_256_000

/** Highest position. */
export const MAX_POSITION = 1_000_000

const PRIORITIES = Priority.literals

/** An SLA policy as stored: a `hd_sla_policies` row, decoded. */
export const StoredSlaPolicy = Schema.Struct({
  id: BigInt8,
  name: Schema.String,
  position: Schema.Int,
  priorities: Jsonb(Schema.Array(Priority)),
  inboxIds: Jsonb(Schema.Array(Schema.Int)),
  tagIds: Jsonb(Schema.Array(Schema.Int)),
  firstReplyMinutes: Schema.NullOr(Schema.Int),
  nextReplyMinutes: Schema.NullOr(Schema.Int),
  resolutionMinutes: Schema.NullOr(Schema.Int),
  businessHours: Schema.Boolean,
  pauseWhenWaitingOnCustomer: Schema.Boolean,
  pauseWhenSnoozed: Schema.Boolean,
  createdAt: Timestamptz,
  updatedAt: Timestamptz
})

/** An SLA policy as stored. */
export type StoredSlaPolicy = typeof StoredSlaPolicy.Type

/** An SLA policy as the API shows it. */
export const SlaPolicy = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  position: Schema.Int.annotations({
    description: "Policies are tried in ascending position (then id); the first whose conditions match applies."
  }),
  priorities: Schema.Array(Priority).annotations({
    description: "Matches tickets of any of these priorities; empty: any."
  }),
  inbox_ids: Schema.Array(Schema.Int).annotations({
    description: "Matches tickets of any of these inboxes; empty: any."
  }),
  tag_ids: Schema.Array(Schema.Int).annotations({ description: "Matches tickets with any of these tags; empty: any." }),
  first_reply_minutes: Schema.NullOr(Schema.Int),
  next_reply_minutes: Schema.NullOr(Schema.Int),
  resolution_minutes: Schema.NullOr(Schema.Int),
  business_hours: Schema.Boolean.annotations({
    description: "Targets count the organization's business minutes (true) or calendar minutes (false)."
  }),
  pause_when_waiting_on_customer: Schema.Boolean,
  pause_when_snoozed: Schema.Boolean,
  created_at: Timestamp,
  updated_at: Timestamp
}).annotations({ identifier: "SlaPolicy" })

/** An SLA policy as the API shows it. */
export type SlaPolicy = typeof SlaPolicy.Type

const minutes = Fields.optional(Fields.nullable(Fields.integer({ minimum: 1, maximum: MAX_TARGET_MINUTES })))

const fields = {
  position: Fields.optional(Fields.integer({ minimum: 0, maximum: MAX_POSITION })),
  priorities: Fields.optional(Fields.list(Fields.choice(PRIORITIES), { maxItems: MAX_CONDITION_VALUES })),
  inbox_ids: Fields.optional(Fields.list(Fields.id, { maxItems: MAX_CONDITION_VALUES })),
  tag_ids: Fields.optional(Fields.list(Fields.id, { maxItems: MAX_CONDITION_VALUES })),
  first_reply_minutes: minutes,
  next_reply_minutes: minutes,
  resolution_minutes: minutes,
  business_hours: Fields.optional(Fields.boolean),
  pause_when_waiting_on_customer: Fields.optional(Fields.boolean),
  pause_when_snoozed: Fields.optional(Fields.boolean)
}

/** Body of `POST /organizations/{organization_id}/sla-policies/`. */
export const SlaPolicyCreate = Schema.Struct({
  name: Fields.text({ maxLength: MAX_POLICY_NAME_LENGTH }),
  ...fields
}).annotations({ identifier: "SlaPolicyCreate" })

/** A decoded create body. */
export type SlaPolicyCreate = typeof SlaPolicyCreate.Type

/** Body of `PATCH /organizations/{organization_id}/sla-policies/{pk}/`. */
export const SlaPolicyUpdate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: MAX_POLICY_NAME_LENGTH })),
  ...fields
}).annotations({ identifier: "SlaPolicyUpdate" })

/** A decoded update body. */
export type SlaPolicyUpdate = typeof SlaPolicyUpdate.Type

/** No SLA policy with this id in the organization. */
export class SlaPolicyNotFound extends Schema.TaggedError<SlaPolicyNotFound>()("SlaPolicyNotFound", {
  id: Schema.Number
}) {}

/** Whether `policy` applies to a ticket of this priority, inbox and tags (every non-empty list must match). */
export const matches = (
  policy: {
    readonly priorities: ReadonlyArray<string>
    readonly inboxIds: ReadonlyArray<number>
    readonly tagIds: ReadonlyArray<number>
  },
  ticket: { readonly priority: string; readonly inboxId: number; readonly tagIds: ReadonlyArray<number> }
): boolean =>
  (policy.priorities.length === 0 || policy.priorities.includes(ticket.priority)) &&
  (policy.inboxIds.length === 0 || policy.inboxIds.includes(ticket.inboxId)) &&
  (policy.tagIds.length === 0 || policy.tagIds.some((id) => ticket.tagIds.includes(id)))
