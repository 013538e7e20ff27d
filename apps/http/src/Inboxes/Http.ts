import { HttpApiBuilder } from "@effect/platform"
import { Layer } from "effect"
import { Api } from "../Api.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import { NotFound, ValidationError, writeRefusals } from "../Http/Errors.js"
import * as Resource from "../Http/Resource.js"
import { InboxResource } from "./Api.js"
import type { DefaultInboxRequired, EmailPrefixTaken, InboxNotFound } from "./InboxErrors.js"
import { Inboxes } from "./Inboxes.js"

/** The wire error of a refused inbox write. */
export const inboxWriteError = writeRefusals<InboxNotFound | EmailPrefixTaken | DefaultInboxRequired>()({
  InboxNotFound: () => new NotFound(),
  EmailPrefixTaken: () => ValidationError.field("email_prefix", "An inbox with this email prefix already exists."),
  DefaultInboxRequired: () =>
    ValidationError.field(
      "is_default",
      "An organization always has a default inbox: make another inbox the default instead."
    )
})

/** Handlers of the `inboxes` group. */
export const InboxesLive = HttpApiBuilder.group(Api, "inboxes", (handlers) =>
  Resource.serve(
    handlers,
    Resource.handlers(InboxResource, { filters: Resource.noFilters, writeError: inboxWriteError, repository: Inboxes })
  )
).pipe(Layer.provide([OrganizationAccess.Default, Inboxes.Default]))
