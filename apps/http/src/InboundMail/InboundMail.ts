import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { MarkSpam, type OrganizationId, systemActor, type Ticket } from "@helpdesk/domain"
import { Data, DateTime, Effect, Layer, Stream } from "effect"
import { BlobStore, BlobStoreLive } from "../Attachments/BlobStore.js"
import { isRefusedContentType, sniffMarkup } from "../Attachments/ContentSniffing.js"
import { MAX_UPLOAD_BYTES, PendingAttachments, PendingAttachmentsLive } from "../Attachments/PendingAttachments.js"
import type { Caller } from "../Auth/CurrentCaller.js"
import { Customers } from "../Customers/Customers.js"
import { DeliveryRecorder } from "../Mail/DeliveryRecorder.js"
import { withSpan } from "../Observability/Spans.js"
import { TicketCommands } from "../Tickets/TicketCommands.js"
import { LIMITS } from "../Tickets/TicketRequests.js"
import { failureReason, readDeliveryStatus } from "./DeliveryStatusReport.js"
import { InboundMailRefused } from "./InboundMailErrors.js"
import { type InboundMessage, parseMessage } from "./InboundMessage.js"
import { InboundRouting } from "./InboundRouting.js"
import { machineSent } from "./LoopGuard.js"
import { withoutQuotedHistory } from "./QuotedHistory.js"

/**
 * The largest inbound message: room for one attachment at the upload limit (50 MB) base64-encoded (×4/3, with a
 * line break every 76 characters: about 71.7 MB) and the mail around it. The SMTP listener announces it as `SIZE`.
 */
export const MAX_MESSAGE_BYTES = 72 * 1024 * 1024

/** What became of an inbound mail. */
export interface InboundOutcome {
  /** `ticket`: opened one; `message`: added a reply; `bounce`: recorded a delivery failure; `ignored`: see `reason`. */
  readonly outcome: "ticket" | "message" | "bounce" | "ignored"
  readonly reason: string
  readonly ticketId: number | null
  readonly messageId: number | null
  /** The ticket's public id, when it has one. */
  readonly ticketPublicId: string | null
  /** `true` when the same message (by `Message-ID`) had been received before: nothing was done again. */
  readonly duplicate: boolean
}

/** An inbound mail to file: the raw source, the organization and inbox it is for, and what the envelope said. */
export interface InboundDelivery {
  readonly raw: Uint8Array
  readonly organizationId: OrganizationId
  /** The inbox the envelope's recipient named (SMTP); else the message's recipients decide. */
  readonly inboxId?: number | undefined
  /** `MAIL FROM:<>`: only bounces and auto-replies come with the null sender. */
  readonly nullSender?: boolean
}

/** Another delivery of the same Message-ID was filed first (its transaction committed while this one ran). */
class DuplicateDelivery extends Data.TaggedError("DuplicateDelivery")<{}> {}

/** Who inbound mail's attachments are uploaded and claimed as: no token has the id 0. */
const inboundCaller = (organizationId: OrganizationId): Caller => ({ _tag: "Integration", organizationId, tokenId: 0 })

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB (${bytes.toLocaleString("en")} bytes)`

const cut = (text: string, max: number) => ([...text].length <= max ? text : [...text].slice(0, max).join(""))

/**
 * Files inbound e-mail (docs/decisions/0751-inbound-mail.md, 0752-inbound-bounces.md): a delivery status
 * notification for one of our mails records `failed` on that ticket or message; mail sent by machines and our own
 * mail coming back are ignored (no loops); a reply (by `In-Reply-To` / `References`, or the subject's `[#id]`) is
 * added to its ticket as the customer's, without the quoted history; anything else opens a ticket for the sender as
 * customer. Every ticket write goes through `TicketCommands` (the one command pipeline). The raw source is kept in
 * the blob store (`hd_inbound_mail.raw_key`); a second delivery of the same `Message-ID` changes nothing.
 */
export class InboundMail extends Effect.Service<InboundMail>()("@helpdesk/http/InboundMail/InboundMail", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const routing = yield* InboundRouting
    const commands = yield* TicketCommands
    const recorder = yield* DeliveryRecorder
    const customers = yield* Customers
    const attachments = yield* PendingAttachments
    const blobs = yield* BlobStore

    const recorded = (organizationId: OrganizationId, messageId: string | undefined) =>
      messageId === undefined
        ? Effect.succeed(undefined)
        : sql<{
            outcome: InboundOutcome["outcome"]
            reason: string
            ticketId: string | null
            messageId: string | null
          }>`
            SELECT outcome, reason, ticket_id, message_id FROM hd_inbound_mail
            WHERE organization_id = ${organizationId} AND rfc_message_id = ${messageId}`.pipe(
            Effect.map((rows) => rows[0]),
            Effect.orDie
          )

    const publicIdOf = (ticketId: number | null) =>
      ticketId === null
        ? Effect.succeed(null)
        : sql<{ publicId: string }>`SELECT public_id FROM hd_tickets WHERE ticket_id = ${ticketId}`.pipe(
            Effect.map((rows) => rows[0]?.publicId ?? null),
            Effect.orDie
          )

    /** Records what became of a mail; `false` when the same Message-ID was recorded meanwhile. */
    const record = (
      delivery: InboundDelivery,
      message: InboundMessage,
      outcome: Omit<InboundOutcome, "duplicate" | "ticketPublicId">,
      rawKey: string | null
    ) =>
      sql<{ id: string }>`
        INSERT INTO hd_inbound_mail
          (organization_id, rfc_message_id, outcome, reason, ticket_id, message_id, raw_key, raw_size)
        VALUES (${delivery.organizationId}, ${message.messageId ?? null}, ${outcome.outcome}, ${cut(outcome.reason, 500)},
                ${outcome.ticketId}, ${outcome.messageId}, ${rawKey}, ${delivery.raw.byteLength})
        ON CONFLICT (organization_id, rfc_message_id) DO NOTHING
        RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    const finish = (outcome: Omit<InboundOutcome, "duplicate" | "ticketPublicId">, duplicate = false) =>
      Effect.map(
        publicIdOf(outcome.ticketId),
        (ticketPublicId): InboundOutcome => ({
          ...outcome,
          ticketPublicId,
          duplicate
        })
      )

    /** Records an outcome that wrote nothing to a ticket (an ignored mail, a bounce). */
    const settle = (
      delivery: InboundDelivery,
      message: InboundMessage,
      outcome: Omit<InboundOutcome, "duplicate" | "ticketPublicId">
    ) => Effect.flatMap(record(delivery, message, outcome, null), () => finish(outcome))

    /** A bounce: `failed` with the report's status and reason on the ticket or message of the mail it returns. */
    const bounce = (delivery: InboundDelivery, message: InboundMessage) =>
      Effect.gen(function* () {
        const report = readDeliveryStatus(Buffer.from(delivery.raw).toString("latin1"), message.repliesTo)
        for (const id of report.originalMessageIds) {
          const sent = yield* routing.sentMail(delivery.organizationId, id)
          if (sent === undefined) continue
          // A bounce of a create-email sent again since would mark the new attempt failed (decision 0663).
          if (sent.superseded)
            return yield* settle(delivery, message, {
              outcome: "ignored",
              reason: `Bounce for ${id}, a create-email sent again since`,
              ticketId: sent.ticketId,
              messageId: sent.messageId
            })
          if (report.action !== "failed")
            return yield* settle(delivery, message, {
              outcome: "ignored",
              reason: `Delivery status notification with action "${report.action || "none"}" for ${id}`,
              ticketId: sent.ticketId,
              messageId: sent.messageId
            })
          const at = yield* DateTime.now
          const result = yield* recorder
            .report(sent, "failed", at, failureReason(report))
            // Lost races are the pipeline's to retry; one that outlasts its retries is a fault the sender retries.
            .pipe(Effect.orDie)
          return yield* settle(delivery, message, {
            outcome: result === "recorded" ? "bounce" : "ignored",
            reason: result === "recorded" ? failureReason(report) : `Bounce for ${id} not recorded (${result})`,
            ticketId: sent.ticketId,
            messageId: sent.messageId
          })
        }
        return yield* settle(delivery, message, {
          outcome: "ignored",
          reason: "Delivery status notification for no mail of ours",
          ticketId: null,
          messageId: null
        })
      })

    /** Refuses the mail when an attachment is past the upload limit or is HTML/SVG, before anything is stored. */
    const checkAttachments = (message: InboundMessage) =>
      Effect.forEach(
        message.attachments,
        (attachment) => {
          if (attachment.content.byteLength > MAX_UPLOAD_BYTES)
            return Effect.fail(
              InboundMailRefused.tooLarge(
                `Attachment "${attachment.fileName}" is too large. The limit is ${mb(MAX_UPLOAD_BYTES)}.`
              )
            )
          const sniffed = sniffMarkup(attachment.content.subarray(0, 1024))
          if (isRefusedContentType(attachment.contentType) || sniffed !== null)
            return Effect.fail(
              InboundMailRefused.contentRefused(
                `Attachment "${attachment.fileName}" is ${isRefusedContentType(attachment.contentType) ? attachment.contentType : sniffed === "html" ? "text/html" : "image/svg+xml"}: HTML and SVG files are not accepted.`
              )
            )
          return Effect.void
        },
        { discard: true }
      )

    const storeAttachments = (organizationId: OrganizationId, message: InboundMessage) =>
      Effect.forEach(message.attachments, (attachment) =>
        attachments
          .upload({
            organizationId,
            caller: inboundCaller(organizationId),
            fileName: attachment.fileName,
            contentType: attachment.contentType,
            content: Stream.make(attachment.content)
          })
          .pipe(
            Effect.map((stored) => stored.id),
            Effect.catchTags({
              BlobTooLarge: () =>
                Effect.fail(
                  InboundMailRefused.tooLarge(
                    `Attachment "${attachment.fileName}" is too large. The limit is ${mb(MAX_UPLOAD_BYTES)}.`
                  )
                ),
              ContentRefused: (refused) =>
                Effect.fail(
                  InboundMailRefused.contentRefused(`Attachment "${attachment.fileName}": ${refused.message}`)
                )
            })
          )
      )

    /** The ticket write: a reply to `ticketId`, else a new ticket; then spam marking for a spam customer. */
    const write = (
      delivery: InboundDelivery,
      message: InboundMessage,
      sender: { readonly address: string; readonly name: string },
      ticketId: number | undefined,
      attachmentIds: ReadonlyArray<string>
    ) =>
      Effect.gen(function* () {
        const org = delivery.organizationId
        const caller = inboundCaller(org)
        let ticket: Ticket
        let messageId: number | null = null
        if (ticketId !== undefined) {
          const reply = withoutQuotedHistory(message.text)
          const written = yield* commands.addMessage({
            organizationId: org,
            caller,
            ticketId,
            role: "customer",
            // The HTML part carries the quoted history too, and cannot be cut reliably: the reply is kept as text.
            content: cut(reply === "" && attachmentIds.length === 0 ? "(empty message)" : reply, LIMITS.content),
            contentHtml: "",
            isVisibleToCustomer: true,
            externalRecipientEmails: null,
            bccRecipientEmails: null,
            nextAssigneeId: null,
            nextPriority: null,
            nextAction: "",
            attachmentIds
          })
          ticket = written.ticket
          messageId = written.messageId
        } else {
          const text = message.text.trim()
          ticket = yield* commands.create({
            organizationId: org,
            caller,
            createdByRole: "customer",
            subject: cut(message.subject === "" ? "(no subject)" : message.subject, LIMITS.subject),
            description: cut(text === "" && message.html === "" ? "(empty message)" : text, LIMITS.description),
            descriptionHtml: message.html.length > LIMITS.descriptionHtml ? "" : message.html,
            kind: "text",
            inboxId: delivery.inboxId,
            customer: { _tag: "ByEmail", email: sender.address, name: cut(sender.name, LIMITS.customerName) },
            origin: "email",
            channel: { type: "email", connectionId: null },
            externalRecipientEmails: [],
            bccRecipientEmails: [],
            tagIds: [],
            priority: "not_set",
            assigneeId: null,
            attachmentIds
          })
        }
        const customer = yield* customers.findByEmail(org, sender.address)
        if ((customer?.isSpam ?? false) || (ticketId === undefined && ticket.customer.isSpam)) {
          ticket = yield* commands.asSystem(org, ticket.id, (_, at) =>
            Effect.succeed([new MarkSpam({ ticketId: ticket.id, at, actor: systemActor })])
          )
        }
        return { ticket, messageId }
      })

    /**
     * Files one inbound mail for an organization. Refuses (nothing stored) a message past {@link MAX_MESSAGE_BYTES},
     * one that is not a mail, and one with an attachment past the upload limit or of HTML/SVG.
     */
    const receive = (delivery: InboundDelivery): Effect.Effect<InboundOutcome, InboundMailRefused> =>
      Effect.gen(function* () {
        if (delivery.raw.byteLength > MAX_MESSAGE_BYTES)
          return yield* InboundMailRefused.tooLarge(`The message is too large. The limit is ${mb(MAX_MESSAGE_BYTES)}.`)
        const message = yield* parseMessage(delivery.raw)
        const org = delivery.organizationId
        const before = yield* recorded(org, message.messageId)
        if (before !== undefined)
          return yield* finish(
            {
              outcome: before.outcome,
              reason: before.reason,
              ticketId: before.ticketId === null ? null : Number(before.ticketId),
              messageId: before.messageId === null ? null : Number(before.messageId)
            },
            true
          )
        if (message.isDeliveryReport) return yield* bounce(delivery, message)
        const ignore = (reason: string) =>
          settle(delivery, message, { outcome: "ignored", reason, ticketId: null, messageId: null })
        if (message.messageId !== undefined && (yield* routing.isOurs(message.messageId)))
          return yield* ignore(`Our own mail (${message.messageId}) is never taken as a customer's`)
        const machine = machineSent(message.header)
        if (machine !== undefined) return yield* ignore(`Sent by a machine (${machine})`)
        if (delivery.nullSender === true) return yield* ignore("Null envelope sender (MAIL FROM:<>)")
        const sender = message.from
        if (sender === undefined) return yield* InboundMailRefused.malformed("The message has no From address.")
        yield* checkAttachments(message)
        const inboxId = delivery.inboxId ?? (yield* routing.inboxFor(org, message.recipients))
        const found = yield* routing.thread(org, message.repliesTo, message.subject, sender.address)
        const attachmentIds = yield* storeAttachments(org, message)
        const rawKey = `inbound-${randomUUID()}`
        yield* blobs.put(rawKey, Stream.make(delivery.raw), { maxBytes: MAX_MESSAGE_BYTES }).pipe(Effect.orDie)
        const written = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const { ticket, messageId } = yield* write(
                { ...delivery, inboxId },
                message,
                sender,
                found?.ticketId,
                attachmentIds
              )
              const outcome = {
                outcome: messageId === null ? "ticket" : "message",
                reason:
                  found === undefined
                    ? "New conversation"
                    : found.by === "subject"
                      ? "Reply, by the ticket number in the subject"
                      : "Reply, by In-Reply-To / References",
                ticketId: ticket.id,
                messageId
              } as const
              // A concurrent delivery of the same Message-ID won: this one's writes roll back.
              if (!(yield* record(delivery, message, outcome, rawKey))) return yield* new DuplicateDelivery()
              return outcome
            })
          )
          .pipe(
            Effect.catchTag("SqlError", Effect.die),
            Effect.tapError(() => blobs.remove(rawKey)),
            Effect.onInterrupt(() => blobs.remove(rawKey))
          )
          .pipe(
            Effect.map((outcome) => ({ outcome, duplicate: false })),
            Effect.catchTag("DuplicateDelivery", () =>
              Effect.map(recorded(org, message.messageId), (row) => ({
                outcome: {
                  outcome: row!.outcome,
                  reason: row!.reason,
                  ticketId: row!.ticketId === null ? null : Number(row!.ticketId),
                  messageId: row!.messageId === null ? null : Number(row!.messageId)
                },
                duplicate: true
              }))
            ),
            // The pipeline refused the write (it should not for a customer's mail): a 4xx naming why, and a log line.
            Effect.catchAll((error) =>
              Effect.zipRight(
                Effect.logWarning(`Inbound mail ${message.messageId ?? "(no Message-ID)"} not filed`, error),
                Effect.fail(InboundMailRefused.malformed(`The message could not be filed on a ticket: ${error._tag}`))
              )
            )
          )
        return yield* finish(written.outcome, written.duplicate)
      }).pipe(withSpan("InboundMail.receive"))

    return { receive } as const
  }),
  dependencies: [InboundRouting.Default, DeliveryRecorder.Default]
}) {}

/** {@link InboundMail} over the service's blob store; needs the ticket services and the `SqlClient`. */
export const InboundMailLive = InboundMail.Default.pipe(
  Layer.provide(Layer.mergeAll(BlobStoreLive, PendingAttachmentsLive, Customers.Default))
)
