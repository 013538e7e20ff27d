import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { Timestamp } from "../Http/Representation.js"
import { CriteriaField, CriteriaSchema } from "./Criteria.js"

/**
 * Who sees a filter: `personal` only its creator; `organization` everyone in the organization, integration
 * tokens included. See docs/decisions/0600-preset-filter-visibility.md.
 */
export const VISIBILITIES = ["personal", "organization"] as const

/** Who sees a filter. */
export type Visibility = (typeof VISIBILITIES)[number]

/** Longest filter name, in characters (it labels a sidebar entry). */
export const MAX_NAME_LENGTH = 100

/** Largest `position`. */
export const MAX_POSITION = 1_000_000

/** The person who created a filter; `null` for filters an integration token created. */
export const PresetFilterCreator = Schema.Struct({
  id: Schema.Int,
  email: Schema.String,
  name: Schema.String
}).annotations({ identifier: "PresetFilterCreator" })

/** A custom preset filter as the API shows it. */
export const PresetFilter = Schema.Struct({
  id: Schema.String.annotations({ description: "UUID, lowercase." }),
  name: Schema.String,
  criteria: CriteriaSchema,
  created_by: Schema.NullOr(PresetFilterCreator).annotations({
    description: "The person who created the filter; null when an integration token created it."
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
  position: Schema.Int.annotations({ description: "Sort key of the list (ascending; ties by creation)." }),
  display_count: Schema.Boolean.annotations({ description: "Whether clients show the number of matching tickets." }),
  group_by_priority: Schema.Boolean.annotations({ description: "Whether clients group matching tickets by priority." }),
  visibility: Schema.Literal(...VISIBILITIES).annotations({
    description:
      "`personal`: only the creator sees it. `organization`: everyone in the organization, integration tokens included."
  })
}).annotations({ identifier: "PresetFilter" })

/** A custom preset filter as the API shows it. */
export type PresetFilter = typeof PresetFilter.Type

const writable = {
  criteria: Fields.optional(CriteriaField),
  position: Fields.optional(Fields.integer({ minimum: 0, maximum: MAX_POSITION })),
  display_count: Fields.optional(Fields.boolean),
  group_by_priority: Fields.optional(Fields.boolean),
  visibility: Fields.optional(Fields.choice(VISIBILITIES))
}

/** Body of `POST …/custom-preset-filters/`. */
export const PresetFilterCreate = Schema.Struct({
  name: Fields.text({ maxLength: MAX_NAME_LENGTH }),
  ...writable
}).annotations({
  identifier: "PresetFilterCreate",
  description:
    "`criteria` defaults to `{}` (matches every ticket); `position` to after the last filter; `visibility` to `personal` for people and `organization` for integration tokens."
})

/** Body of `POST …/custom-preset-filters/`. */
export type PresetFilterCreate = typeof PresetFilterCreate.Type

/** Body of `PATCH …/custom-preset-filters/{id}/`: any writable field; `criteria` replaces the whole object. */
export const PresetFilterUpdate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: MAX_NAME_LENGTH })),
  ...writable
}).annotations({
  identifier: "PresetFilterUpdate",
  description: "Any writable field. `criteria` replaces the stored criteria as a whole (omitted criteria become empty)."
})

/** Body of `PATCH …/custom-preset-filters/{id}/`. */
export type PresetFilterUpdate = typeof PresetFilterUpdate.Type
