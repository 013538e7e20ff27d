import { OpenApi } from "@effect/platform"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import { Wire } from "../Http/Errors.js"
import { IntegerId } from "../Http/PathParams.js"
import * as Resource from "../Http/Resource.js"
import { Inbox, InboxCreate, InboxUpdate } from "./Inbox.js"
import { InboxOrdering } from "./Inboxes.js"

/** Inboxes as a directory resource: `/organizations/{organization_id}/inboxes/{pk}/` (never deleted). */
export const InboxResource = Resource.make({
  segment: "inboxes",
  idParam: "pk",
  idSchema: IntegerId,
  item: Inbox,
  create: InboxCreate,
  update: InboxUpdate,
  filters: {},
  ordering: InboxOrdering,
  docs: {
    list: {
      summary: "List inboxes",
      description: "All inboxes of the organization; by default the default inbox first, then by name."
    },
    create: {
      summary: "Create an inbox",
      description:
        "Owners, admins and integration tokens. `name` and `email_prefix` (unique in the organization) are required. The organization's first inbox becomes its default; `is_default: true` on a later one moves the flag to it. Inactivity periods left out or null fall back to the organization's. Answers 201 with a `Location` header."
    },
    get: { summary: "Read an inbox" },
    update: {
      summary: "Change an inbox",
      description:
        "`is_default: true` makes this inbox the default (the previous default stops being one, atomically); `is_default: false` on the default inbox is refused with 400 — make another inbox the default instead. An inactivity period set to null falls back to the organization's."
    }
  }
})

/** `/organizations/{organization_id}/inboxes/`: the organization's mailboxes for routing tickets. */
export class InboxesApi extends Resource.group("inboxes", InboxResource)
  .addError(Wire.PermissionDenied)
  .middleware(ServiceAuth)
  .annotate(OpenApi.Title, "Inboxes") {}
