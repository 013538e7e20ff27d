import { NodeStream } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Either, ParseResult, Schema } from "effect"
import { BlobStore } from "../Attachments/BlobStore.js"
import { escapeHtml, sanitizeHtml } from "../Http/Html.js"
import { withSpan } from "../Observability/Spans.js"
import { TRACKED_KINDS } from "./DeliveryRecorder.js"
import { MailSendFailed, type OutgoingMail } from "./MailTransport.js"
import { OutboxPayload } from "./OutboxRows.js"
import { ReadReceipts } from "./ReadReceipts.js"

/** The parts of a claimed outbox row the composer reads. */
export interface ComposableRow {
  readonly id: number
  readonly organizationId: OrganizationId
  readonly ticketId: number
  readonly kind: string
  readonly payload: unknown
  readonly rfcMessageId: string
  readonly createdAt: Date
}

/** The thread root of a ticket's mails: the create-email's Message-ID, the same for tickets that sent none. */
export const threadRootId = (ticketId: number, organizationPublicId: string, domain: string) =>
  `<ticket-${ticketId}@${organizationDomain(organizationPublicId, domain)}>`

/** `{organization public id}.{INBOX_EMAIL_DOMAIN}`, as in inbox addresses (lower case, `_` → `-`). */
export const organizationDomain = (organizationPublicId: string, domain: string) =>
  `${organizationPublicId.toLowerCase().replace(/_/g, "-")}.${domain}`

/** A header value on one line (line breaks and other controls as spaces). */
export const oneLine = (value: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  value.replace(/[\u0000-\u001f\u007f]+/g, " ").trim()

/** The subject of a mail: `{email_subject_prefix} {subject} [#{public_id}]`, with `Re: ` before replies. */
export const mailSubject = (kind: string, prefix: string, subject: string, publicId: string) => {
  const base = [oneLine(prefix), oneLine(subject) === "" ? "(no subject)" : oneLine(subject), `[#${oneLine(publicId)}]`]
    .filter((part) => part !== "")
    .join(" ")
  return kind === "message" ? `Re: ${base}` : base
}

/** The HTML part with the read pixel: at the end of `<body>` when there is one, else appended. */
export const withPixel = (html: string, text: string, pixelUrl: string) => {
  const body = html.trim() === "" ? `<div style="white-space:pre-wrap">${escapeHtml(text)}</div>` : html
  const img = `<img src="${escapeHtml(pixelUrl)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`
  const close = body.search(/<\/body\s*>/i)
  return close === -1 ? `${body}${img}` : `${body.slice(0, close)}${img}${body.slice(close)}`
}

interface SenderRow {
  readonly publicId: string
  readonly name: string
  readonly organizationFromName: string
  readonly emailSubjectPrefix: string
  readonly inboxPrefix: string | null
  readonly inboxFromName: string | null
  readonly recordedPrefix: string | null
}

const permanent = (reason: string) => new MailSendFailed({ permanent: true, reason })

/**
 * Builds the mail of an outbox row at send time (docs/decisions/0750-mail-delivery.md): the sender is the ticket's
 * inbox as it is now (`{email_prefix}@{org public id}.{INBOX_EMAIL_DOMAIN}`, named by the inbox's `email_from_name`,
 * else the organization's, else the organization's name); recipients, CC and BCC exactly as the payload lists them
 * (BCC goes into the envelope only); threading headers; attachments streamed from the blob store; the read pixel
 * in tracked mails. A payload that cannot be read or a missing attachment fails permanently.
 */
export class MailComposer extends Effect.Service<MailComposer>()("@helpdesk/http/Mail/MailComposer", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const blobs = yield* BlobStore
    const receipts = yield* ReadReceipts

    const senderOf = (organizationId: OrganizationId, ticketId: number) =>
      sql<SenderRow>`
        SELECT o.public_id, o.name, o.email_from_name AS organization_from_name, o.email_subject_prefix,
               i.email_prefix AS inbox_prefix, i.email_from_name AS inbox_from_name,
               t.view -> 'inbox' ->> 'emailPrefix' AS recorded_prefix
        FROM organizations o
        LEFT JOIN hd_tickets t ON t.ticket_id = ${ticketId}
        LEFT JOIN inboxes i ON i.organization_id = o.id AND i.id = (t.view -> 'inbox' ->> 'id')::bigint
        WHERE o.id = ${organizationId}`.pipe(Effect.orDie)

    /**
     * The create-email's Message-ID when the ticket sent one (it is the thread root), else the computed root; after a
     * resend the latest attempt's, the one the customer may have received (decision 0663).
     */
    const threadRoot = (ticketId: number, computed: string) =>
      sql<{ rfcMessageId: string }>`
        SELECT rfc_message_id FROM hd_outbox
        WHERE ticket_id = ${ticketId} AND kind = 'ticket_created' AND rfc_message_id IS NOT NULL
        ORDER BY id DESC LIMIT 1`.pipe(
        Effect.map((rows) => rows[0]?.rfcMessageId ?? computed),
        Effect.orDie
      )

    const attachmentsOf = (organizationId: OrganizationId, ids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const wanted = [...new Set(ids.map((id) => id.toLowerCase()))].filter((id) => Schema.is(Schema.UUID)(id))
        if (wanted.length !== ids.length && ids.length > 0)
          return yield* permanent(`Malformed attachment id in ${JSON.stringify(ids)}`)
        if (wanted.length === 0) return []
        const rows = yield* sql<{ id: string; name: string; contentType: string }>`
          SELECT id, name, content_type FROM attachments
          WHERE organization_id = ${organizationId} AND id IN ${sql.in(wanted)}`.pipe(Effect.orDie)
        const byId = new Map(rows.map((row) => [row.id, row]))
        return yield* Effect.forEach(wanted, (id) =>
          Effect.gen(function* () {
            const row = byId.get(id)
            if (row === undefined) return yield* permanent(`Attachment ${id} no longer exists`)
            const content = yield* blobs
              .get(id)
              .pipe(Effect.mapError(() => permanent(`The file of attachment ${row.name} (${id}) is missing`)))
            return { filename: row.name, contentType: row.contentType, content: NodeStream.toReadableNever(content) }
          })
        )
      })

    const compose = (row: ComposableRow, domain: string): Effect.Effect<OutgoingMail, MailSendFailed> =>
      Effect.gen(function* () {
        const payload = yield* Either.mapLeft(Schema.decodeUnknownEither(OutboxPayload)(row.payload), (error) =>
          permanent(`Malformed outbox payload: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)
        )
        if (payload.to.trim() === "") return yield* permanent("The mail has no recipient")
        const sender = (yield* senderOf(row.organizationId, row.ticketId))[0]
        if (sender === undefined) return yield* permanent(`Organization ${row.organizationId} no longer exists`)
        const prefix = sender.inboxPrefix ?? sender.recordedPrefix ?? "support"
        const name = oneLine(sender.inboxFromName || sender.organizationFromName || sender.name)
        const address = `${prefix}@${organizationDomain(sender.publicId, domain)}`
        const tracked = TRACKED_KINDS.has(row.kind)
        // Sanitised when written; again here for rows and events older than that (cheap, and a no-op otherwise).
        const safeHtml = sanitizeHtml(payload.html)
        const html = tracked
          ? withPixel(safeHtml, payload.text, yield* receipts.pixelUrl(row.id))
          : safeHtml === ""
            ? undefined
            : safeHtml
        const threading =
          row.kind === "ticket_created"
            ? {}
            : yield* Effect.map(
                threadRoot(row.ticketId, threadRootId(row.ticketId, sender.publicId, domain)),
                (root) => (root === row.rfcMessageId ? {} : { inReplyTo: root, references: [root] })
              )
        return {
          messageId: row.rfcMessageId,
          date: row.createdAt,
          from: { name, address },
          to: payload.to,
          ...(payload.cc.length > 0 ? { cc: [...payload.cc] } : {}),
          ...(payload.bcc.length > 0 ? { bcc: [...payload.bcc] } : {}),
          subject: mailSubject(row.kind, sender.emailSubjectPrefix, payload.subject, payload.public_id),
          text: payload.text,
          ...(html === undefined ? {} : { html }),
          ...threading,
          attachments: yield* attachmentsOf(row.organizationId, payload.attachment_ids)
        } satisfies OutgoingMail
      }).pipe(withSpan("MailComposer.compose"))

    return { compose } as const
  }),
  dependencies: [ReadReceipts.Default]
}) {}
