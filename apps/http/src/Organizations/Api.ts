import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { OrganizationPath } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { Organization, OrganizationCreate, OrganizationUpdate } from "./Organization.js"
import { OrganizationOrdering } from "./Organizations.js"

/** `/organizations/`: the caller's organizations and their settings. */
export class OrganizationsApi extends HttpApiGroup.make("organizations")
  .add(
    HttpApiEndpoint.get("list", "/organizations/")
      .setUrlParams(
        Schema.Struct({
          search: Query.param("Keyword filter on name: case- and accent-insensitive; every word must match."),
          ...OrganizationOrdering.params,
          ...Pagination.params
        })
      )
      .addSuccess(Pagination.Envelope(Organization))
      .annotate(OpenApi.Summary, "List the caller's organizations")
      .annotate(
        OpenApi.Description,
        "Organizations the caller belongs to (an integration token sees its one organization)."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/")
      .setPayload(OrganizationCreate)
      .addSuccess(Organization, { status: 201 })
      .annotate(OpenApi.Summary, "Create an organization")
      .annotate(
        OpenApi.Description,
        "Personal tokens only: the caller becomes the owner. Integration tokens get 403. Answers 201 with a `Location` header."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/")
      .setPath(OrganizationPath)
      .addSuccess(Organization)
      .annotate(OpenApi.Summary, "Read an organization")
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/")
      .setPath(OrganizationPath)
      .setPayload(OrganizationUpdate)
      .addSuccess(Organization)
      .annotate(OpenApi.Summary, "Change an organization's name or settings")
      .annotate(
        OpenApi.Description,
        "Owners, admins and integration tokens; members get 403. `subscription` and `deletion_plan` are read-only."
      )
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Organizations") {}
