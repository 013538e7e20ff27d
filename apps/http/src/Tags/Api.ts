import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { IntegerId, OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { Tag, TagCreate, TagUpdate } from "./Tag.js"
import { TagOrdering } from "./Tags.js"

const TagPath = Schema.Struct({ organization_id: OrganizationId, pk: IntegerId })

/** `/organizations/{organization_id}/tags/`: ticket tags of an organization. */
export class TagsApi extends HttpApiGroup.make("tags")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/tags/")
      .setPath(OrganizationPath)
      .setUrlParams(
        Schema.Struct({
          search: Query.param("Keyword filter on name, ignoring case; every word must match."),
          ...TagOrdering.params,
          ...Pagination.params
        })
      )
      .addSuccess(Pagination.Envelope(Tag))
      .annotate(OpenApi.Summary, "List tags")
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/tags/")
      .setPath(OrganizationPath)
      .setPayload(TagCreate)
      .addSuccess(Tag, { status: 201 })
      .annotate(OpenApi.Summary, "Create a tag")
      .annotate(
        OpenApi.Description,
        'Owners, admins and integration tokens. `name` is required (at most 100 characters) and unique in the organization ignoring case; `color` is optional, `#rrggbb` (stored lowercase) or `""`. Answers 201 with a `Location` header.'
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/tags/:pk/")
      .setPath(TagPath)
      .addSuccess(Tag)
      .annotate(OpenApi.Summary, "Read a tag")
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/tags/:pk/")
      .setPath(TagPath)
      .setPayload(TagUpdate)
      .addSuccess(Tag)
      .annotate(OpenApi.Summary, "Rename or recolor a tag")
  )
  .add(
    HttpApiEndpoint.del("delete", "/organizations/:organization_id/tags/:pk/")
      .setPath(TagPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Delete a tag")
      .annotate(OpenApi.Description, "Answers 204. Tickets no longer show the tag.")
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Tags") {}
