import type { RecordedEvent } from "@helpdesk/domain"
import { allows, PERMISSIONS } from "../Auth/Permissions.js"
import { type EventWire, renderEvent } from "../EventLog/EventWire.js"

/**
 * The JSON body of a delivery: the event in its one wire form (`EventLog/EventWire.ts`, the change feed's too) and
 * the organization's public id, for receivers that serve several organizations. Internal notes are included when
 * every role that may set up a webhook may read them (the roles table decides, as for the change feed).
 */
export type WebhookBody = EventWire & { readonly organization_id: string }

const internalNotes = PERMISSIONS["webhooks.manage"].roles.every((role) => allows("internal_notes.read", role))

/** The body of `event` for a webhook of the organization whose public id is `organizationPublicId`. */
export const webhookBody = (event: RecordedEvent, organizationPublicId: string): string | undefined => {
  const wire = renderEvent(event, { internalNotes })
  return wire === undefined ? undefined : JSON.stringify({ ...wire, organization_id: organizationPublicId })
}
