import { createHmac, timingSafeEqual } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Config, DateTime, Effect } from "effect"
import { replicaSecret } from "../Database/ReplicaSecret.js"
import { publicBaseUrl } from "../Http/PublicBaseUrl.js"
import { withSpan } from "../Observability/Spans.js"
import { DeliveryRecorder, TRACKED_KINDS } from "./DeliveryRecorder.js"

/** The 1×1 transparent GIF every pixel request gets, whatever its token. */
export const PIXEL_GIF = Uint8Array.from(
  Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64")
)

const TOKEN = /^([1-9][0-9]{0,18})\.([A-Za-z0-9_-]{43})$/

const mac = (secret: string, outboxId: string) =>
  createHmac("sha256", secret).update(`mail-opened:${outboxId}`).digest("base64url")

/**
 * Read receipts by tracking pixel (docs/decisions/0750-mail-delivery.md): tracked mails carry an image at
 * `{PUBLIC_BASE_URL}/mail/opened/{token}/`, where the token is the outbox row id and an HMAC of it. The HMAC needs
 * no storage and is the same on every attempt, so a resent mail is byte-for-byte the same body. The first fetch
 * records `read` on the ticket or message; later fetches change nothing. Best effort: clients that block remote
 * images never report, and proxies that prefetch images report a read that did not happen.
 */
export class ReadReceipts extends Effect.Service<ReadReceipts>()("@helpdesk/http/Mail/ReadReceipts", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const recorder = yield* DeliveryRecorder
    const baseUrl = yield* publicBaseUrl.pipe(Effect.orDie)
    const configured = yield* Config.option(Config.redacted("MAIL_TRACKING_SECRET")).pipe(Effect.orDie)

    const secret = yield* replicaSecret(configured, "mail_tracking")

    /** The token of an outbox row's pixel. */
    const tokenFor = (outboxId: number) => Effect.map(secret, (key) => `${outboxId}.${mac(key, String(outboxId))}`)

    /** The absolute URL of an outbox row's pixel. */
    const pixelUrl = (outboxId: number) => Effect.map(tokenFor(outboxId), (token) => `${baseUrl}/mail/opened/${token}/`)

    /** The outbox row id a token names, when its HMAC is right. */
    const verify = (token: string) =>
      Effect.map(secret, (key) => {
        const match = TOKEN.exec(token)
        if (match === null) return undefined
        const expected = Buffer.from(mac(key, match[1]!))
        const given = Buffer.from(match[2]!)
        return expected.length === given.length && timingSafeEqual(expected, given) ? Number(match[1]) : undefined
      })

    /**
     * A pixel was fetched: records `read` (now) the first time for a valid token of a tracked mail. Never fails:
     * unknown or forged tokens and recording problems are logged, and the caller answers the same GIF anyway.
     */
    const opened = (token: string) =>
      Effect.gen(function* () {
        const outboxId = yield* verify(token)
        if (outboxId === undefined) return "ignored" as const
        const rows = yield* sql<{
          organizationId: string
          ticketId: string
          messageId: string | null
          kind: string
          readAt: Date | null
        }>`SELECT organization_id, ticket_id, message_id, kind, read_at FROM hd_outbox WHERE id = ${outboxId}`
        const row = rows[0]
        if (row === undefined || row.readAt !== null || !TRACKED_KINDS.has(row.kind)) return "ignored" as const
        const at = yield* DateTime.now
        const outcome = yield* recorder.report(
          {
            organizationId: OrganizationId.make(row.organizationId),
            ticketId: Number(row.ticketId),
            messageId: row.messageId === null ? null : Number(row.messageId),
            kind: row.kind
          },
          "read",
          at
        )
        yield* sql`UPDATE hd_outbox SET read_at = ${DateTime.toDate(at)} WHERE id = ${outboxId} AND read_at IS NULL`
        return outcome
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning("Mail: read receipt not recorded", cause), "failed" as const)
        ),
        withSpan("ReadReceipts.opened")
      )

    return { tokenFor, pixelUrl, verify, opened } as const
  }),
  dependencies: [DeliveryRecorder.Default]
}) {}
