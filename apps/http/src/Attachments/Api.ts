import { type HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import * as Endpoint from "../Http/Endpoint.js"
import { Wire } from "../Http/Errors.js"
import { IntegerId, OrganizationPath } from "../Http/PathParams.js"
import * as Resource from "../Http/Resource.js"
import { AttachmentView } from "./Attachment.js"

const Upload = HttpApiSchema.Multipart(
  Schema.Struct({
    file_upload: Multipart.SingleFileSchema.annotations({
      description: "The file. At most 50 MB (52,428,800 bytes); HTML and SVG are refused, declared or sniffed."
    })
  })
)

/**
 * An upload: the multipart field `file_upload` streamed to storage, answered 201 with the attachment object;
 * `then` says what the returned `id` is for.
 */
const upload = <const Name extends string>(
  name: Name,
  path: HttpApiEndpoint.PathSegment,
  summary: string,
  then: string
) =>
  Endpoint.post(name, path, {
    summary,
    description: `Streams the multipart field \`file_upload\` to storage. Larger than 50 MB (52,428,800 bytes) → 413 naming the limit; \`text/html*\` or \`image/svg+xml\`, declared or recognised from the content → 400 on \`file_upload\`. The original file name is kept without any directory part. ${then}`
  })
    .setPayload(Upload)
    .addSuccess(AttachmentView, { status: 201 })

/** Uploads, the first phase of the two-phase attachment flow. */
export class AttachmentsApi extends Resource.guarded(
  HttpApiGroup.make("attachments")
    .add(
      upload(
        "uploadPending",
        "/organizations/:organization_id/pending-attachments/",
        "Upload a file for a new ticket",
        "Pass the returned `id` in `attachment_ids` when creating a ticket. Only the same caller may claim it; unclaimed uploads are deleted after `PENDING_ATTACHMENT_TTL` (default 24 hours)."
      ).setPath(OrganizationPath)
    )
    .add(
      upload(
        "uploadToTicket",
        "/organizations/:organization_id/tickets/:ticket_id/attachments/",
        "Upload a file for a reply on a ticket",
        "Pass the returned `id` in `attachment_ids` when creating a message on this ticket (it cannot be claimed by another ticket)."
      ).setPath(Schema.Struct({ organization_id: OrganizationPath.fields.organization_id, ticket_id: IntegerId }))
    )
    .add(
      Endpoint.get("getPending", "/organizations/:organization_id/pending-attachments/:attachment_id/", {
        summary: "Read an uploaded file's attachment object",
        description:
          "The `Location` of an upload: the attachment object with a fresh `download_url`, for anyone who reads the organization's tickets (only its uploader may claim it). Expired and unknown → 404."
      })
        .setPath(
          Schema.Struct({ organization_id: OrganizationPath.fields.organization_id, attachment_id: Schema.String })
        )
        .addSuccess(AttachmentView)
    )
    .add(
      Endpoint.get("getForTicket", "/organizations/:organization_id/tickets/:ticket_id/attachments/:attachment_id/", {
        summary: "Read a file uploaded to or attached to a ticket",
        description:
          "The `Location` of an upload to a ticket: the attachment object with a fresh `download_url`, for anyone who reads the ticket."
      })
        .setPath(
          Schema.Struct({
            organization_id: OrganizationPath.fields.organization_id,
            ticket_id: IntegerId,
            attachment_id: Schema.String
          })
        )
        .addSuccess(AttachmentView)
    ),
  "Attachments"
) {}

/** Signed download links: the link itself is the credential, so no token header is needed. */
export class DownloadsApi extends HttpApiGroup.make("downloads")
  .add(
    Endpoint.get("download", "/attachments/:attachment_id/download/", {
      summary: "Download an attachment",
      description:
        "The `download_url` of an attachment: signed and valid for `ATTACHMENT_URL_TTL` (default 1 hour). Served as a download (`Content-Disposition: attachment`, `X-Content-Type-Options: nosniff`). A tampered, foreign or expired link → 403; a genuine link whose file no longer exists → 404."
    })
      .setPath(Schema.Struct({ attachment_id: Schema.String }))
      .setUrlParams(
        Schema.Struct({ expires: Schema.optional(Schema.String), signature: Schema.optional(Schema.String) })
      )
      .addSuccess(HttpApiSchema.withEncoding(Schema.Uint8ArrayFromSelf, { kind: "Uint8Array" }))
      .addError(Wire.PermissionDenied)
      .addError(Wire.NotFound)
  )
  .annotate(OpenApi.Title, "Downloads") {}
