import type { RecordedEvent } from "@helpdesk/domain"
import { type EventWire, renderEvent } from "../EventLog/EventWire.js"

/**
 * The JSON body of a delivery: the event in its one wire form (`EventLog/EventWire.ts`, the change feed's too) and
 * the organization's public id, for receivers that serve several organizations. Internal notes are included: a
 * webhook is set up by the organization's owners, admins or integration tokens, who read them.
 */
export type WebhookBody = EventWire & { readonly organization_id: string }

/** The body of `event` for a webhook of the organization whose public id is `organizationPublicId`. */
export const webhookBody = (event: RecordedEvent, organizationPublicId: string): string | undefined => {
  const wire = renderEvent(event, { internalNotes: true })
  return wire === undefined ? undefined : JSON.stringify({ ...wire, organization_id: organizationPublicId })
}
