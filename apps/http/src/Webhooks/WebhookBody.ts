import type { RecordedEvent } from "@helpdesk/domain"

/**
 * The JSON body of a delivery: one event of the global log, as docs/webhooks.md describes it. `data` is the event
 * as stored (docs/events.md: the fields of its type at `schema_version`); `sequence` is its position in the ticket's
 * history (1, 2, …), so a receiver can tell the order of one ticket's events.
 */
export interface WebhookBody {
  readonly id: string
  readonly type: string
  readonly schema_version: number
  readonly occurred_at: string
  readonly organization_id: string
  readonly ticket_id: number
  readonly sequence: number
  readonly data: unknown
}

/** The body of `event` of the ticket `ticketId` in the organization whose public id is `organizationPublicId`. */
export const webhookBody = (event: RecordedEvent, organizationPublicId: string, ticketId: number): string =>
  JSON.stringify({
    id: event.eventId,
    type: event.type,
    schema_version: event.schemaVersion,
    occurred_at: event.createdAt.toISOString(),
    organization_id: organizationPublicId,
    ticket_id: ticketId,
    sequence: event.streamPosition,
    data: event.data
  } satisfies WebhookBody)
