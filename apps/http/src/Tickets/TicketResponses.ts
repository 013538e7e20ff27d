import { HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { PendingAttachments, PendingAttachmentsLive } from "../Attachments/PendingAttachments.js"
import type { StoredMessageView, StoredTicketView } from "./ReadModel/StoredViews.js"
import { attachmentIdsOf, type DownloadUrls, renderTicket } from "./TicketWire.js"

const NO_URLS: DownloadUrls = new Map()

/** Wire answers built from stored ticket and message views: their attachments' signed links, the ticket's body. */
export class TicketResponses extends Effect.Service<TicketResponses>()("@helpdesk/http/Tickets/TicketResponses", {
  dependencies: [PendingAttachmentsLive],
  effect: Effect.gen(function* () {
    const attachments = yield* PendingAttachments

    /** Signed download links of every attachment in these views (none: no work). */
    const downloadUrls = (views: ReadonlyArray<StoredTicketView | StoredMessageView>): Effect.Effect<DownloadUrls> => {
      const ids = views.flatMap(attachmentIdsOf)
      if (ids.length === 0) return Effect.succeed(NO_URLS)
      return Effect.gen(function* () {
        const urls = new Map<string, string>()
        for (const id of new Set(ids)) urls.set(id, yield* attachments.downloadUrl(id))
        return urls
      })
    }

    /** `200` with the wire Ticket of a stored view. */
    const ticket = (view: StoredTicketView) =>
      Effect.map(downloadUrls([view]), (urls) => HttpServerResponse.unsafeJson(renderTicket(view, urls)))

    return { downloadUrls, ticket } as const
  })
}) {}
