import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import { BusinessHours, statusAt } from "../BusinessHours/BusinessHours.js"
import { withSpan } from "../Observability/Spans.js"
import { renderAutoReply } from "./AutoReplyTemplate.js"

/** What a new customer ticket needs to know to be answered automatically. */
export interface AutoReplyRequest {
  readonly organizationId: OrganizationId
  readonly inboxId: number
  /** The ticket's creation instant: whether the organization is open is judged then. */
  readonly at: Date
  readonly customerName: string
  readonly customerEmail: string
  readonly ticketPublicId: string
}

interface InboxAutoReplyRow {
  readonly autoReplyDuringEnabled: boolean
  readonly autoReplyOutsideEnabled: boolean
  readonly autoReplyDuringTemplate: string
  readonly autoReplyOutsideTemplate: string
  readonly organizationName: string
}

/**
 * Auto-replies of inboxes (docs/decisions/0770-auto-replies-and-csat.md): a new customer ticket gets the inbox's
 * `auto_reply_during_template` when the organization is open at the ticket's creation instant (its business
 * hours, exceptions included; open around the clock without a schedule) and `auto_reply_outside_template` when
 * it is closed, each only when enabled and not blank.
 */
export class AutoReplies extends Effect.Service<AutoReplies>()("@helpdesk/http/AutoReplies/AutoReplies", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const businessHours = yield* BusinessHours

    /** The rendered auto-reply for a new customer ticket, or `undefined` when none is due. */
    const replyFor = (request: AutoReplyRequest) =>
      Effect.gen(function* () {
        const rows = yield* sql<InboxAutoReplyRow>`
          SELECT i.auto_reply_during_enabled, i.auto_reply_outside_enabled, i.auto_reply_during_template,
                 i.auto_reply_outside_template, o.name AS organization_name
          FROM inboxes i JOIN organizations o ON o.id = i.organization_id
          WHERE i.id = ${request.inboxId} AND i.organization_id = ${request.organizationId}`.pipe(Effect.orDie)
        const inbox = rows[0]
        if (inbox === undefined || !(inbox.autoReplyDuringEnabled || inbox.autoReplyOutsideEnabled)) return undefined
        const status = statusAt(yield* businessHours.compiledFor(request.organizationId), request.at)
        const template = status.is_open_now
          ? inbox.autoReplyDuringEnabled
            ? inbox.autoReplyDuringTemplate
            : ""
          : inbox.autoReplyOutsideEnabled
            ? inbox.autoReplyOutsideTemplate
            : ""
        if (template.trim() === "") return undefined
        return renderAutoReply(template, {
          customer_name: request.customerName.trim() === "" ? request.customerEmail : request.customerName,
          ticket_public_id: request.ticketPublicId,
          next_open: status.next_open_display,
          organization_name: inbox.organizationName
        })
      }).pipe(withSpan("AutoReplies.replyFor"))

    return { replyFor } as const
  }),
  dependencies: [BusinessHours.Default]
}) {}
