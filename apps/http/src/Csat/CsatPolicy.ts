import type { TicketPolicy } from "@helpdesk/domain"
import { Effect } from "effect"
import { OutboxRows } from "../Mail/OutboxRows.js"
import { surveyDue, surveyEmail } from "./CsatEmail.js"
import { CsatSurveys } from "./CsatSurveys.js"

/**
 * The CSAT survey as a policy of the ticket command pipeline (docs/decisions/0770-auto-replies-and-csat.md,
 * 0305-one-command-pipeline.md): after a write that closes a ticket, its survey, when the organization asks for one
 * and none was sent; the survey row and its outbox row are written in the write's transaction.
 */
export class CsatPolicy extends Effect.Service<CsatPolicy>()("@helpdesk/http/Csat/CsatPolicy", {
  effect: Effect.gen(function* () {
    const surveys = yield* CsatSurveys
    const outbox = yield* OutboxRows

    const offerSurvey: TicketPolicy = ({ state: ticket, events }) =>
      Effect.gen(function* () {
        if (ticket._tag !== "Ticket" || !surveyDue(ticket, events)) return
        const organizationId = ticket.organizationId
        const link = yield* surveys.offer(organizationId, ticket.id)
        if (link === undefined) return
        yield* outbox.enqueue({
          organizationId,
          ticketId: ticket.id,
          messageId: null,
          kind: "csat_survey",
          payload: {
            public_id: ticket.publicId,
            to: ticket.customer.email,
            cc: [],
            bcc: [],
            attachment_ids: [],
            ...surveyEmail(ticket, link)
          }
        })
      })

    return { offerSurvey } as const
  }),
  dependencies: [CsatSurveys.Default, OutboxRows.Default]
}) {}
