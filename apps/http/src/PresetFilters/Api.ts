import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import { PresetFilter, PresetFilterCreate, PresetFilterUpdate } from "./PresetFilter.js"
import { PresetFilterOrdering } from "./PresetFilters.js"

const FilterPath = Schema.Struct({
  organization_id: OrganizationId,
  filter_id: Schema.String.annotations({ jsonSchema: { type: "string", format: "uuid" } })
})

const visibilityRules =
  "Visibility: `personal` filters are seen only by their creator (to anyone else they do not exist: 404); `organization` filters by everyone in the organization. Integration tokens see organization-shared filters only."

/** `/organizations/{organization_id}/custom-preset-filters/`: saved ticket filters. */
export class PresetFiltersApi extends HttpApiGroup.make("presetFilters")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/custom-preset-filters/")
      .setPath(OrganizationPath)
      .setUrlParams(Schema.Struct({ ...PresetFilterOrdering.params, ...Pagination.params }))
      .addSuccess(Pagination.Envelope(PresetFilter))
      .annotate(OpenApi.Summary, "List the preset filters the caller sees")
      .annotate(OpenApi.Description, `${visibilityRules} Ordered by \`position\`, then creation, by default.`)
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/custom-preset-filters/")
      .setPath(OrganizationPath)
      .setPayload(PresetFilterCreate)
      .addSuccess(PresetFilter, { status: 201 })
      .annotate(OpenApi.Summary, "Create a preset filter")
      .annotate(
        OpenApi.Description,
        'Any member may create `personal` filters (the default for people); `organization` filters need an owner, admin or integration token (the default for tokens, which cannot create personal ones: 400 on `visibility`). Invalid criteria are 400 with nested field errors, e.g. `{"criteria":{"statuses":["…"]}}`. Answers 201 with a `Location` header; `created_by` is null for integration tokens.'
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/custom-preset-filters/:filter_id/")
      .setPath(FilterPath)
      .addSuccess(PresetFilter)
      .annotate(OpenApi.Summary, "Read a preset filter")
      .annotate(OpenApi.Description, visibilityRules)
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/custom-preset-filters/:filter_id/")
      .setPath(FilterPath)
      .setPayload(PresetFilterUpdate)
      .addSuccess(PresetFilter)
      .annotate(OpenApi.Summary, "Change a preset filter")
      .annotate(
        OpenApi.Description,
        "Personal filters: only their creator. Organization filters: owners, admins and integration tokens (members get 403). Only the creator may switch a shared filter to `personal`; switching to `organization` needs an owner or admin."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/organizations/:organization_id/custom-preset-filters/:filter_id/")
      .setPath(FilterPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Delete a preset filter")
      .annotate(OpenApi.Description, "Same permissions as changing it. Answers 204.")
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Custom preset filters") {}
