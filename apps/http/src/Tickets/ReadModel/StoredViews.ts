import { MessageView, TicketView } from "@helpdesk/domain"
import { Schema } from "effect"

/**
 * The `view` columns of the ticket read model (`hd_tickets.view`, `hd_ticket_messages.view`, jsonb): the domain's
 * `TicketView` and `MessageView` encoded by their one `Schema` (camelCase keys, instants as ISO-8601 text).
 *
 * The projection writes only what {@link encodeTicketView}/{@link encodeMessageView} give, so a read takes the
 * column as this encoded type and renders it field by field (`TicketWire.ts`) without decoding it again:
 * `GET ticket` is the hottest read. A view stored by an older shape is replaced by a rebuild of the projection.
 */
export type StoredTicketView = typeof TicketView.Encoded

/** A message's `view` column (see {@link StoredTicketView}). */
export type StoredMessageView = typeof MessageView.Encoded

/** A ticket view as its `view` column stores it; checks the view against its schema (a bad value is a defect). */
export const encodeTicketView: (view: TicketView) => StoredTicketView = Schema.encodeSync(TicketView)

/** A message view as its `view` column stores it (see {@link encodeTicketView}). */
export const encodeMessageView: (view: MessageView) => StoredMessageView = Schema.encodeSync(MessageView)

/** A stored ticket view decoded by its schema (for checks of the stored data; reads render the encoded form). */
export const decodeStoredTicketView: (stored: unknown) => TicketView = Schema.decodeUnknownSync(TicketView)

/** A stored message view decoded by its schema (see {@link decodeStoredTicketView}). */
export const decodeStoredMessageView: (stored: unknown) => MessageView = Schema.decodeUnknownSync(MessageView)
