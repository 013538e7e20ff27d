import { uuidIdParam } from "../Http/PathParams.js"
import { fromModel } from "../Http/Representation.js"
import * as Resource from "../Http/Resource.js"
import { FILTER_WRITES } from "./Permissions.js"
import { PresetFilter, PresetFilterCreate, PresetFilterUpdate } from "./PresetFilter.js"
import { PresetFilterOrdering, parseFilterId, type StoredPresetFilter } from "./PresetFilters.js"

const visibilityRules =
  "Visibility: `personal` filters are seen only by their creator (to anyone else they do not exist: 404); `organization` filters by everyone in the organization. Integration tokens see organization-shared filters only."

/** The wire form of a stored filter. */
export const toPresetFilter: (filter: StoredPresetFilter) => PresetFilter = fromModel(PresetFilter)

/**
 * Custom preset filters as a directory resource: `/organizations/{organization_id}/custom-preset-filters/{filter_id}/`,
 * each caller seeing only the filters visible to them (decision 0600).
 */
export const PresetFilterResource = Resource.make({
  path: { segment: "custom-preset-filters", id: uuidIdParam("filter_id", parseFilterId) },
  permissions: { read: "preset_filters.read", write: FILTER_WRITES },
  noun: { one: "a preset filter", many: "the preset filters the caller sees" },
  wire: { item: PresetFilter, toWire: toPresetFilter, create: PresetFilterCreate, update: PresetFilterUpdate },
  ordering: PresetFilterOrdering,
  docs: {
    list: `${visibilityRules} Ordered by \`position\`, then creation, by default.`,
    create:
      'Any member may create `personal` filters (the default for people); `organization` filters need an owner, admin or integration token (the default for tokens, which cannot create personal ones: 400 on `visibility`). Invalid criteria are 400 with nested field errors, e.g. `{"criteria":{"statuses":["…"]}}`. Answers 201 with a `Location` header; `created_by` is null for integration tokens.',
    get: visibilityRules,
    update:
      "Personal filters: only their creator. Organization filters: owners, admins and integration tokens (members get 403). Only the creator may switch a shared filter to `personal`; switching to `organization` needs an owner or admin.",
    delete: "Same permissions as changing it. Answers 204."
  }
})

/** `/organizations/{organization_id}/custom-preset-filters/`: saved ticket filters. */
export class PresetFiltersApi extends Resource.group(
  "presetFilters",
  Resource.endpoints(PresetFilterResource),
  "Custom preset filters"
) {}
