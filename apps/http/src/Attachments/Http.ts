import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Layer, Stream } from "effect"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Auth/CurrentCaller.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import {
  BadRequest,
  NotFound,
  PayloadTooLarge,
  PermissionDenied,
  UnsupportedMediaType,
  ValidationError
} from "../Http/Errors.js"
import { parseIntegerId } from "../Http/PathParams.js"
import { created } from "../Http/Responses.js"
import { AttachmentView } from "./Attachment.js"
import { incomingFile } from "./MultipartUpload.js"
import { MAX_UPLOAD_BYTES, PendingAttachments, PendingAttachmentsLive } from "./PendingAttachments.js"
import { makeUploadCollector } from "./UploadMemory.js"

const FIELD = "file_upload"
// Room for the multipart framing around a file at the limit.
const ENVELOPE_ALLOWANCE = 64 * 1024

const tooLarge = () =>
  new PayloadTooLarge({
    detail: `File is too large. The limit is 50 MB (${MAX_UPLOAD_BYTES.toLocaleString("en")} bytes).`
  })

const noFile = () => ValidationError.field(FIELD, "No file was submitted. Send it as the multipart field file_upload.")

/** The attachment object with a fresh signed link. */
const viewOf = (
  attachments: PendingAttachments,
  record: { id: string; name: string; size: number; contentType: string }
) =>
  Effect.map(
    attachments.downloadUrl(record.id),
    (download_url) =>
      new AttachmentView({
        id: record.id,
        name: record.name,
        size: record.size,
        content_type: record.contentType,
        download_url
      })
  )

const contentDisposition = (name: string) => {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_")
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

/** Handlers of the `attachments` (uploads) and `downloads` groups. */
export const AttachmentsLive = HttpApiBuilder.group(Api, "attachments", (handlers) =>
  Effect.gen(function* () {
    const attachments = yield* PendingAttachments
    const access = yield* OrganizationAccess
    const sql = yield* SqlClient.SqlClient

    /** Streams the request's `file_upload` part into storage; other parts are read past and ignored. */
    const receive = (
      request: HttpServerRequest.HttpServerRequest,
      organizationId: OrganizationId,
      uploadTicketId?: number
    ) =>
      Effect.gen(function* () {
        const mediaType = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase()
        if (mediaType !== "multipart/form-data") return yield* UnsupportedMediaType.of(mediaType ?? "")
        const length = Number(request.headers["content-length"])
        if (Number.isFinite(length) && length > MAX_UPLOAD_BYTES + ENVELOPE_ALLOWANCE) return yield* tooLarge()
        const caller = yield* CurrentCaller
        const file = yield* incomingFile(NodeHttpServerRequest.toIncomingMessage(request), FIELD)
        if (file === null) return yield* noFile()
        const collect = makeUploadCollector()
        return yield* attachments.upload({
          organizationId,
          caller,
          uploadTicketId,
          ...file,
          content: Stream.map(file.content, collect)
        })
      }).pipe(
        Effect.catchTags({
          BlobTooLarge: () => Effect.fail(tooLarge()),
          ContentRefused: (refused) => Effect.fail(ValidationError.field(FIELD, refused.message)),
          MalformedMultipart: (error) =>
            Effect.fail(new BadRequest({ detail: `Multipart form parse error - ${error.reason}` }))
        })
      )

    return handlers
      .handle("getPending", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tickets.read")
          // Files are the organization's, like its tickets: only claiming is kept to the uploader (decision 0659).
          const found = yield* attachments.find(scope.organizationId, path.attachment_id)
          if (found === undefined) return yield* new NotFound()
          return yield* viewOf(attachments, found.record)
        })
      )
      .handle("getForTicket", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tickets.read")
          const ticketId = parseIntegerId(path.ticket_id)
          if (ticketId === undefined) return yield* new NotFound()
          const found = yield* attachments.find(scope.organizationId, path.attachment_id)
          if (found === undefined || (found.uploadTicketId !== ticketId && found.record.ticketId !== ticketId))
            return yield* new NotFound()
          return yield* viewOf(attachments, found.record)
        })
      )
      .handleRaw("uploadPending", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "attachments.upload")
          const record = yield* receive(request, scope.organizationId)
          return yield* created(
            request,
            AttachmentView,
            yield* viewOf(attachments, record),
            `/organizations/${scope.publicId}/pending-attachments/${record.id}/`
          )
        })
      )
      .handleRaw("uploadToTicket", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "attachments.upload")
          const ticketId = parseIntegerId(path.ticket_id)
          if (ticketId === undefined) return yield* new NotFound()
          const tickets = yield* sql<{ one: number }>`
            SELECT 1 AS one FROM hd_tickets WHERE ticket_id = ${ticketId} AND organization_id = ${scope.organizationId}`.pipe(
            Effect.orDie
          )
          if (tickets.length === 0) return yield* new NotFound()
          const record = yield* receive(request, scope.organizationId, ticketId)
          return yield* created(
            request,
            AttachmentView,
            yield* viewOf(attachments, record),
            `/organizations/${scope.publicId}/tickets/${ticketId}/attachments/${record.id}/`
          )
        })
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, PendingAttachmentsLive]))

/** Handlers of the `downloads` group. */
export const DownloadsLive = HttpApiBuilder.group(Api, "downloads", (handlers) =>
  Effect.gen(function* () {
    const attachments = yield* PendingAttachments
    return handlers.handleRaw("download", ({ path, urlParams }) =>
      attachments.download(path.attachment_id, Number(urlParams.expires), urlParams.signature ?? "").pipe(
        Effect.map(({ attachment, content }) =>
          // Read buffers pile up like an upload's until V8's external-memory trigger: collected the same way.
          HttpServerResponse.stream(Stream.map(content, makeUploadCollector()), {
            contentType: attachment.contentType,
            contentLength: attachment.size,
            headers: {
              "content-disposition": contentDisposition(attachment.name),
              "x-content-type-options": "nosniff",
              "cache-control": "private, max-age=300",
              "content-security-policy": "default-src 'none'; sandbox"
            }
          })
        ),
        Effect.catchTags({
          DownloadLinkInvalid: () =>
            Effect.fail(new PermissionDenied({ detail: "This download link is invalid or has expired." })),
          AttachmentGone: () => Effect.fail(new NotFound({ detail: "This file no longer exists." }))
        })
      )
    )
  })
).pipe(Layer.provide([PendingAttachmentsLive]))
