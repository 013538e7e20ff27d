import { SqlClient } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import { inboxEmailDomain } from "../Inboxes/EmailPrefix.js"
import { normalizeAddress } from "./InboundMessage.js"

/** Where an inbound mail goes: an organization, and the inbox its recipient names (`undefined`: the default). */
export interface InboundTarget {
  readonly organizationId: OrganizationId
  readonly inboxId: number | undefined
}

/** A ticket an inbound mail answers, and how it was found. */
export interface ThreadMatch {
  readonly ticketId: number
  readonly by: "message_id" | "subject"
}

/** A mail the service sent (an outbox row), found by its `Message-ID`. */
export interface SentMail {
  readonly organizationId: OrganizationId
  readonly ticketId: number
  readonly messageId: number | null
  readonly kind: string
  /** A create-email sent again since (decision 0663): reports about this one no longer concern the ticket. */
  readonly superseded: boolean
}

const SUBJECT_TICKET = /\[#([A-Za-z0-9_-]{1,64})\]/g

/** `<ticket-{id}@…>` and `<ticket-{id}.{outbox id}@…>`: the shape of every Message-ID the service generates. */
const OUR_MESSAGE_ID = /^<ticket-([1-9][0-9]{0,17})(?:\.([1-9][0-9]{0,17}))?@([^<>@\s]+)>$/i

/**
 * Finds where inbound mail goes and which ticket it answers. Inbox addresses are
 * `{email_prefix}@{organization public id}.{INBOX_EMAIL_DOMAIN}` (public id lower-cased, `_` as `-`); our
 * Message-IDs are the outbox rows' (`hd_outbox.rfc_message_id`) and `<ticket-{id}…@{organization domain}>`.
 */
export class InboundRouting extends Effect.Service<InboundRouting>()("@helpdesk/http/InboundMail/InboundRouting", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const domain = yield* Effect.orDie(inboxEmailDomain)
    const suffix = `.${domain}`

    /** The organization label of an address at `{label}.{INBOX_EMAIL_DOMAIN}`, or undefined. */
    const labelOf = (host: string) => {
      const lower = host.toLowerCase()
      if (!lower.endsWith(suffix)) return undefined
      const label = lower.slice(0, -suffix.length)
      return /^[a-z0-9-]+$/.test(label) ? label : undefined
    }

    const organizationByLabel = (label: string) =>
      sql<{ id: string }>`
        SELECT id FROM organizations WHERE lower(replace(public_id, '_', '-')) = ${label} ORDER BY id LIMIT 1`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : OrganizationId.make(String(rows[0].id)))),
        Effect.orDie
      )

    const inboxByPrefix = (organizationId: OrganizationId, prefix: string) =>
      sql<{ id: string }>`
        SELECT id FROM inboxes WHERE organization_id = ${organizationId} AND email_prefix = ${prefix.toLowerCase()}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : Number(rows[0].id))),
        Effect.orDie
      )

    /**
     * The inbox an address of ours names (`{email_prefix}@{organization}.{INBOX_EMAIL_DOMAIN}`), or undefined:
     * another domain, an unknown organization or an unknown prefix. Used by the SMTP listener to accept or refuse
     * each `RCPT TO`.
     */
    const resolveAddress = (
      address: string
    ): Effect.Effect<{ organizationId: OrganizationId; inboxId: number } | undefined> =>
      Effect.gen(function* () {
        const normalized = normalizeAddress(address)
        const at = normalized.lastIndexOf("@")
        if (at <= 0) return undefined
        const label = labelOf(normalized.slice(at + 1))
        if (label === undefined) return undefined
        const organizationId = yield* organizationByLabel(label)
        if (organizationId === undefined) return undefined
        // A `+tag` after the prefix (`support+orders@…`) still reaches the inbox.
        const prefix = normalized.slice(0, at).split("+")[0]!
        const inboxId = yield* inboxByPrefix(organizationId, prefix)
        return inboxId === undefined ? undefined : { organizationId, inboxId }
      })

    /**
     * The inbox of the organization that the mail's recipients name: an address of ours first; else a recipient
     * whose local part is one of its inboxes' prefixes (mail forwarded from the organization's own domain,
     * `support@acme.example` → `support`); else `undefined`, the default inbox.
     */
    const inboxFor = (organizationId: OrganizationId, recipients: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        for (const recipient of recipients) {
          const resolved = yield* resolveAddress(recipient)
          if (resolved !== undefined && resolved.organizationId === organizationId) return resolved.inboxId
        }
        for (const recipient of recipients) {
          const at = recipient.lastIndexOf("@")
          if (at <= 0) continue
          const inboxId = yield* inboxByPrefix(organizationId, recipient.slice(0, at).split("+")[0]!)
          if (inboxId !== undefined) return inboxId
        }
        return undefined
      })

    /** Whether a Message-ID is one the service generates (for any organization): such mail is never a customer's. */
    const isOurs = (messageId: string) =>
      Effect.gen(function* () {
        const shaped = OUR_MESSAGE_ID.exec(messageId)
        if (shaped !== null && labelOf(shaped[3]!) !== undefined) return true
        const rows = yield* sql`SELECT 1 FROM hd_outbox WHERE rfc_message_id = ${messageId} LIMIT 1`.pipe(Effect.orDie)
        return rows.length > 0
      })

    /** The outbox row (a mail we sent) of the organization with this Message-ID, or undefined. */
    const sentMail = (organizationId: OrganizationId, messageId: string) =>
      sql<{ organizationId: string; ticketId: string; messageId: string | null; kind: string; superseded: boolean }>`
        SELECT o.organization_id, o.ticket_id, o.message_id, o.kind,
               (o.kind = 'ticket_created' AND EXISTS (
                 SELECT 1 FROM hd_outbox n WHERE n.ticket_id = o.ticket_id AND n.kind = 'ticket_created' AND n.id > o.id
               )) AS superseded
        FROM hd_outbox o
        WHERE o.rfc_message_id = ${messageId} AND o.organization_id = ${organizationId}`.pipe(
        Effect.map((rows): SentMail | undefined =>
          rows[0] === undefined
            ? undefined
            : {
                organizationId: OrganizationId.make(rows[0].organizationId),
                ticketId: Number(rows[0].ticketId),
                messageId: rows[0].messageId === null ? null : Number(rows[0].messageId),
                kind: rows[0].kind,
                superseded: rows[0].superseded === true
              }
        ),
        Effect.orDie
      )

    const ticketOf = (organizationId: OrganizationId, ticketId: number) =>
      sql<{ ticketId: string }>`
        SELECT ticket_id FROM hd_tickets WHERE ticket_id = ${ticketId} AND organization_id = ${organizationId}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : Number(rows[0].ticketId))),
        Effect.orDie
      )

    /** The ticket one Message-ID belongs to: a mail we sent, a mail we received, or our generated thread root. */
    const ticketByMessageId = (organizationId: OrganizationId, messageId: string) =>
      Effect.gen(function* () {
        const sent = yield* sentMail(organizationId, messageId)
        if (sent !== undefined) return sent.ticketId
        const received = yield* sql<{ ticketId: string }>`
          SELECT ticket_id FROM hd_inbound_mail
          WHERE organization_id = ${organizationId} AND rfc_message_id = ${messageId} AND ticket_id IS NOT NULL`.pipe(
          Effect.orDie
        )
        if (received[0] !== undefined) return Number(received[0].ticketId)
        const shaped = OUR_MESSAGE_ID.exec(messageId)
        return shaped === null || labelOf(shaped[3]!) === undefined
          ? undefined
          : yield* ticketOf(organizationId, Number(shaped[1]))
      })

    /**
     * The ticket an inbound mail answers: by `In-Reply-To` / `References` against the Message-IDs of the
     * organization's mail (sent or received), newest first; else by a `[#{public_id}]` in the subject, when the
     * sender is that ticket's customer (a number alone is easy to guess; a Message-ID is not).
     */
    const thread = (
      organizationId: OrganizationId,
      repliesTo: ReadonlyArray<string>,
      subject: string,
      sender: string
    ) =>
      Effect.gen(function* () {
        for (const messageId of repliesTo) {
          const ticketId = yield* ticketByMessageId(organizationId, messageId)
          if (ticketId !== undefined) return { ticketId, by: "message_id" } satisfies ThreadMatch as ThreadMatch
        }
        for (const match of subject.matchAll(SUBJECT_TICKET)) {
          const rows = yield* sql<{ ticketId: string }>`
            SELECT ticket_id FROM hd_tickets
            WHERE organization_id = ${organizationId} AND public_id = ${match[1]!}
              AND lower(view -> 'customer' ->> 'email') = ${sender.toLowerCase()}`.pipe(Effect.orDie)
          if (rows[0] !== undefined)
            return { ticketId: Number(rows[0].ticketId), by: "subject" } satisfies ThreadMatch as ThreadMatch
        }
        return undefined
      })

    return { resolveAddress, inboxFor, isOurs, sentMail, thread } as const
  })
}) {}
