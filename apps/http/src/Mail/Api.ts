import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"

/** The read-receipt pixel of outgoing mail: the token in the path is the credential, so no token header. */
export class MailTrackingApi extends HttpApiGroup.make("mailTracking")
  .add(
    HttpApiEndpoint.get("opened", "/mail/opened/:token/")
      .setPath(Schema.Struct({ token: Schema.String }))
      .addSuccess(
        HttpApiSchema.withEncoding(Schema.Uint8ArrayFromSelf, { kind: "Uint8Array", contentType: "image/gif" })
      )
      .annotate(OpenApi.Summary, "Read-receipt pixel")
      .annotate(
        OpenApi.Description,
        "The 1×1 image in the HTML part of a ticket's create-email and of e-mailed replies. The first fetch records `read` on the ticket's or message's `delivery_status` (`read_at`); later fetches change nothing. Always answers the same transparent GIF, whatever the token (no `X-Service-Token`). Best effort: mail clients that block remote images never report, and image proxies that prefetch report early."
      )
  )
  .annotate(OpenApi.Title, "Mail tracking") {}
