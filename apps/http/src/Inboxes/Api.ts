import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import * as Pagination from "../Http/Pagination.js"
import { IntegerId, OrganizationId, OrganizationPath } from "../Http/PathParams.js"
import { Inbox, InboxCreate, InboxUpdate } from "./Inbox.js"
import { InboxOrdering } from "./Inboxes.js"

const InboxPath = Schema.Struct({ organization_id: OrganizationId, pk: IntegerId })

/** `/organizations/{organization_id}/inboxes/`: the organization's mailboxes for routing tickets. */
export class InboxesApi extends HttpApiGroup.make("inboxes")
  .add(
    HttpApiEndpoint.get("list", "/organizations/:organization_id/inboxes/")
      .setPath(OrganizationPath)
      .setUrlParams(Schema.Struct({ ...InboxOrdering.params, ...Pagination.params }))
      .addSuccess(Pagination.Envelope(Inbox))
      .annotate(OpenApi.Summary, "List inboxes")
      .annotate(
        OpenApi.Description,
        "All inboxes of the organization; by default the default inbox first, then by name."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/:organization_id/inboxes/")
      .setPath(OrganizationPath)
      .setPayload(InboxCreate)
      .addSuccess(Inbox, { status: 201 })
      .annotate(OpenApi.Summary, "Create an inbox")
      .annotate(
        OpenApi.Description,
        "Owners, admins and integration tokens. `name` and `email_prefix` (unique in the organization) are required. The organization's first inbox becomes its default; `is_default: true` on a later one moves the flag to it. Inactivity periods left out or null fall back to the organization's. Answers 201 with a `Location` header."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/organizations/:organization_id/inboxes/:pk/")
      .setPath(InboxPath)
      .addSuccess(Inbox)
      .annotate(OpenApi.Summary, "Read an inbox")
  )
  .add(
    HttpApiEndpoint.patch("update", "/organizations/:organization_id/inboxes/:pk/")
      .setPath(InboxPath)
      .setPayload(InboxUpdate)
      .addSuccess(Inbox)
      .annotate(OpenApi.Summary, "Change an inbox")
      .annotate(
        OpenApi.Description,
        "`is_default: true` makes this inbox the default (the previous default stops being one, atomically); `is_default: false` on the default inbox is refused with 400 — make another inbox the default instead. An inactivity period set to null falls back to the organization's."
      )
  )
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Inboxes") {}
