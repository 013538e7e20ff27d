import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Config, Duration, Effect, Schema, type Stream } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { replicaSecret } from "../Database/ReplicaSecret.js"
import * as Repository from "../Database/Repository.js"
import { absoluteUrl } from "../Http/Links.js"
import { withSpan } from "../Observability/Spans.js"
import { AttachmentClaimRefused, type ClaimedAttachment, type ClaimProblem, safeFileName } from "./Attachment.js"
import { BlobStore, BlobStoreLive, type BlobTooLarge } from "./BlobStore.js"
import { isRefusedContentType, sniffMarkup } from "./ContentSniffing.js"
import { signDownload, verifyDownload } from "./SignedUrl.js"

/** The most an upload may hold: the spec's 50 MB, counted as 50 MiB. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024

/** The upload is HTML or SVG (declared or sniffed): a browser would render it as a page of ours. */
export class ContentRefused extends Schema.TaggedError<ContentRefused>()("ContentRefused", {
  kind: Schema.Literal("declared", "sniffed"),
  contentType: Schema.String
}) {
  override get message() {
    return this.kind === "declared"
      ? `Files of type "${this.contentType}" are not accepted (HTML and SVG uploads are refused).`
      : `The file's content is ${this.contentType}, which is not accepted (HTML and SVG uploads are refused).`
  }
}

/** A download link that was tampered with, belongs to another file or has expired. */
export class DownloadLinkInvalid extends Schema.TaggedError<DownloadLinkInvalid>()("DownloadLinkInvalid", {}) {}

/** A genuine download link whose file is gone (reaped, or missing from the blob store). */
export class AttachmentGone extends Schema.TaggedError<AttachmentGone>()("AttachmentGone", {}) {}

/** A stored attachment row. */
export interface AttachmentRecord extends ClaimedAttachment {
  readonly organizationId: OrganizationId
  readonly ticketId: number | null
}

interface AttachmentRow {
  readonly id: string
  readonly organizationId: string
  readonly callerKey: string
  readonly name: string
  readonly size: string
  readonly contentType: string
  readonly uploadTicketId: string | null
  readonly ticketId: string | null
  readonly claimedAt: Date | null
  readonly expired: boolean
}

const toRecord = (row: AttachmentRow): AttachmentRecord => ({
  id: row.id,
  organizationId: OrganizationId.make(row.organizationId),
  name: row.name,
  size: Number(row.size),
  contentType: row.contentType,
  ticketId: row.ticketId === null ? null : Number(row.ticketId)
})

/** Who may claim an upload: the person (any of their tokens) or the integration token that uploaded it. */
export const callerKey = (caller: Caller): string =>
  caller._tag === "Person" ? `user:${caller.userId}` : `token:${caller.tokenId}`

/**
 * The two-phase attachment flow: uploads are stored as pending, then claimed by a ticket or message
 * creation of the same organization and caller, atomically with its events. Unclaimed uploads expire.
 */
export class PendingAttachments extends Effect.Service<PendingAttachments>()(
  "@helpdesk/http/Attachments/PendingAttachments",
  {
    effect: Effect.gen(function* () {
      const blobs = yield* BlobStore
      const sql = yield* SqlClient.SqlClient
      const pendingTtl = yield* Config.duration("PENDING_ATTACHMENT_TTL").pipe(Config.withDefault(Duration.hours(24)))
      const linkTtl = yield* Config.duration("ATTACHMENT_URL_TTL").pipe(Config.withDefault(Duration.hours(1)))
      const configuredSecret = yield* Config.option(Config.redacted("ATTACHMENT_URL_SECRET"))

      const secret = yield* replicaSecret(configuredSecret, "download_links")
      // Read now: a download link built after a write committed must not be the first to query it.
      yield* secret

      const upload = <E>(input: {
        readonly organizationId: OrganizationId
        readonly caller: Caller
        readonly uploadTicketId?: number
        readonly fileName: string
        readonly contentType: string
        readonly content: Stream.Stream<Uint8Array, E>
      }): Effect.Effect<AttachmentRecord, ContentRefused | BlobTooLarge | E> =>
        Effect.gen(function* () {
          const declared = input.contentType.trim() === "" ? "application/octet-stream" : input.contentType.trim()
          if (isRefusedContentType(declared))
            return yield* new ContentRefused({ kind: "declared", contentType: declared })
          const id = randomUUID()
          const stored = yield* blobs.put(id, input.content, { maxBytes: MAX_UPLOAD_BYTES })
          const sniffed = sniffMarkup(stored.head)
          if (sniffed !== null) {
            yield* blobs.remove(id)
            return yield* new ContentRefused({
              kind: "sniffed",
              contentType: sniffed === "html" ? "text/html" : "image/svg+xml"
            })
          }
          const name = safeFileName(input.fileName)
          const expiresAt = new Date(Date.now() + Duration.toMillis(pendingTtl))
          yield* sql`
          INSERT INTO attachments (id, organization_id, caller_key, name, size, content_type, upload_ticket_id, expires_at)
          VALUES (${id}, ${input.organizationId}, ${callerKey(input.caller)}, ${name}, ${stored.size}, ${declared},
                  ${input.uploadTicketId ?? null}, ${expiresAt})`.pipe(
            Effect.tapError(() => blobs.remove(id)),
            Effect.orDie
          )
          return {
            id,
            organizationId: input.organizationId,
            name,
            size: stored.size,
            contentType: declared,
            ticketId: null
          }
        }).pipe(withSpan("PendingAttachments.upload"))

      /**
       * Claims pending uploads for a ticket. Run it inside the transaction that appends the ticket's events:
       * any bad id fails the whole claim with every problem named, and the transaction's rollback undoes it.
       */
      const claim = (input: {
        readonly organizationId: OrganizationId
        readonly caller: Caller
        readonly ids: ReadonlyArray<string>
        readonly ticketId: number
      }): Effect.Effect<ReadonlyArray<ClaimedAttachment>, AttachmentClaimRefused> =>
        Effect.gen(function* () {
          const ids = [...new Set(input.ids.map((id) => id.toLowerCase()))]
          if (ids.length === 0) return []
          const wellFormed = ids.filter((id) => Schema.is(Schema.UUID)(id))
          const claimed =
            wellFormed.length === 0
              ? []
              : yield* sql<AttachmentRow>`
                UPDATE attachments SET ticket_id = ${input.ticketId}, claimed_at = now()
                WHERE id IN ${sql.in(wellFormed)} AND organization_id = ${input.organizationId}
                  AND caller_key = ${callerKey(input.caller)} AND claimed_at IS NULL AND expires_at > now()
                  AND (upload_ticket_id IS NULL OR upload_ticket_id = ${input.ticketId})
                RETURNING id, organization_id, caller_key, name, size, content_type, upload_ticket_id, ticket_id,
                          claimed_at, false AS expired`.pipe(Effect.orDie)
          if (claimed.length === ids.length) {
            const byId = new Map(claimed.map((row) => [row.id, toRecord(row)]))
            return ids.map((id) => byId.get(id)!)
          }
          const claimedIds = new Set(claimed.map((row) => row.id))
          const others =
            wellFormed.length === 0
              ? []
              : yield* sql<AttachmentRow>`
                SELECT id, organization_id, caller_key, name, size, content_type, upload_ticket_id, ticket_id,
                       claimed_at, expires_at <= now() AS expired
                FROM attachments WHERE id IN ${sql.in(wellFormed)} AND organization_id = ${input.organizationId}`.pipe(
                  Effect.orDie
                )
          const rows = new Map(others.map((row) => [row.id, row]))
          const problems = ids
            .filter((id) => !claimedIds.has(id))
            .map((id): { id: string; problem: ClaimProblem } => {
              const row = rows.get(id)
              if (row === undefined) return { id, problem: "unknown" }
              if (row.callerKey !== callerKey(input.caller)) return { id, problem: "other_caller" }
              if (row.claimedAt !== null) return { id, problem: "claimed" }
              if (row.expired) return { id, problem: "expired" }
              return { id, problem: "other_ticket" }
            })
          return yield* new AttachmentClaimRefused({ problems })
        }).pipe(
          // A savepoint inside the caller's transaction: a refused claim undoes its own partial update.
          Repository.write("PendingAttachments.claim", { transaction: sql })
        )

      /** The attachments of a ticket, in upload order. */
      const forTicket = (organizationId: OrganizationId, ticketId: number) =>
        sql<AttachmentRow>`
        SELECT id, organization_id, caller_key, name, size, content_type, upload_ticket_id, ticket_id, claimed_at,
               false AS expired
        FROM attachments WHERE organization_id = ${organizationId} AND ticket_id = ${ticketId}
        ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(toRecord)),
          Effect.orDie
        )

      /**
       * An attachment of the organization that has not expired, with the ticket it was uploaded to (if any); undefined
       * when there is none (an id that is no UUID included).
       */
      const find = (organizationId: OrganizationId, attachmentId: string) =>
        Schema.is(Schema.UUID)(attachmentId)
          ? sql<AttachmentRow>`
            SELECT id, organization_id, caller_key, name, size, content_type, upload_ticket_id, ticket_id, claimed_at,
                   (claimed_at IS NULL AND expires_at <= now()) AS expired
            FROM attachments WHERE id = ${attachmentId} AND organization_id = ${organizationId}`.pipe(
              Effect.map((rows) => {
                const row = rows[0]
                if (row === undefined || row.expired) return undefined
                return {
                  record: toRecord(row),
                  uploadTicketId: row.uploadTicketId === null ? null : Number(row.uploadTicketId)
                }
              }),
              Effect.orDie
            )
          : Effect.succeed(undefined)

      /** The path of a signed download link, valid for `ATTACHMENT_URL_TTL`. */
      const signedDownloadPath = (attachmentId: string) =>
        Effect.map(secret, (key) => {
          const link = signDownload(key, attachmentId, new Date(Date.now() + Duration.toMillis(linkTtl)))
          return `/attachments/${attachmentId}/download/?expires=${link.expires}&signature=${link.signature}`
        })

      /** The absolute signed download link of an attachment, under the request's decided base URL. */
      const downloadUrl = (attachmentId: string): Effect.Effect<string> =>
        Effect.flatMap(signedDownloadPath(attachmentId), absoluteUrl)

      /** Opens a download after checking its link; tampered, foreign and expired links are refused alike. */
      const download = (attachmentId: string, expires: number, signature: string) =>
        Effect.gen(function* () {
          if (!Schema.is(Schema.UUID)(attachmentId)) return yield* new DownloadLinkInvalid()
          if (!verifyDownload(yield* secret, attachmentId, expires, signature, new Date())) {
            return yield* new DownloadLinkInvalid()
          }
          const rows = yield* sql<AttachmentRow>`
          SELECT id, organization_id, caller_key, name, size, content_type, upload_ticket_id, ticket_id, claimed_at,
                 false AS expired
          FROM attachments WHERE id = ${attachmentId}`.pipe(Effect.orDie)
          if (rows[0] === undefined) return yield* new AttachmentGone()
          const content = yield* blobs.get(attachmentId).pipe(Effect.mapError(() => new AttachmentGone()))
          return { attachment: toRecord(rows[0]), content }
        })

      /**
       * Deletes up to `limit` expired, unclaimed uploads, row and file. Replicas share the work with
       * `SKIP LOCKED`; a crash after a file is gone leaves its row for the next pass (removing is idempotent).
       */
      const reapExpired = (limit: number) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const rows = yield* sql<{ id: string }>`
              SELECT id FROM attachments WHERE claimed_at IS NULL AND expires_at <= now()
              ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`
              if (rows.length === 0) return 0
              const ids = rows.map((row) => row.id)
              yield* Effect.forEach(ids, (id) => blobs.remove(id), { discard: true, concurrency: 4 })
              yield* sql`DELETE FROM attachments WHERE id IN ${sql.in(ids)}`
              return ids.length
            })
          )
          .pipe(Effect.orDie, withSpan("PendingAttachments.reapExpired"))

      /** Removes what writes interrupted by a stopped process left in the blob store (after an hour untouched). */
      const sweepAbandonedWrites = blobs
        .sweepAbandoned(Duration.hours(1))
        .pipe(withSpan("PendingAttachments.sweepAbandonedWrites"))

      return {
        upload,
        claim,
        find,
        forTicket,
        signedDownloadPath,
        downloadUrl,
        download,
        reapExpired,
        sweepAbandonedWrites
      } as const
    }),
    dependencies: [BlobStoreLive]
  }
) {}

/** {@link PendingAttachments} over the service's {@link BlobStoreLive}; needs the `SqlClient`. */
export const PendingAttachmentsLive = PendingAttachments.Default
