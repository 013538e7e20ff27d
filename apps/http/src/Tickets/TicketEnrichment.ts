import {
  type OrganizationId,
  RecordLanguage,
  RecordSentiment,
  RecordSummary,
  RecordTranscript,
  type Sentiment,
  SetTags,
  systemActor,
  type TicketCommand
} from "@helpdesk/domain"
import { Effect } from "effect"
import { detectLanguage } from "../Language/LanguageDetection.js"
import { withSpan } from "../Observability/Spans.js"
import { TicketPipeline } from "./TicketPipeline.js"

/** What an integration learned about a ticket (AI summary, sentiment, transcript, auto-tags, language). */
export interface EnrichmentInput {
  readonly summary?: string
  readonly sentiment?: Exclude<Sentiment, "pending">
  readonly transcript?: string
  readonly addTagIds?: ReadonlyArray<number>
  readonly language?: string
}

/** Use case: recording what an integration learned about a ticket. */
export class TicketEnrichment extends Effect.Service<TicketEnrichment>()("@helpdesk/http/Tickets/TicketEnrichment", {
  effect: Effect.gen(function* () {
    const { tagsOrRefuse, onTicket } = yield* TicketPipeline

    /** Records what an integration learned; a transcript also sets the language when none is known yet. */
    const enrich = (organizationId: OrganizationId, ticketId: number, input: EnrichmentInput) =>
      onTicket(organizationId, ticketId, (ticket, at) =>
        Effect.gen(function* () {
          const base = { ticketId, at, actor: systemActor }
          const commands: Array<TicketCommand> = []
          if (input.transcript !== undefined)
            commands.push(new RecordTranscript({ ...base, transcript: input.transcript }))
          if (input.summary !== undefined) commands.push(new RecordSummary({ ...base, summary: input.summary }))
          if (input.sentiment !== undefined) commands.push(new RecordSentiment({ ...base, sentiment: input.sentiment }))
          if (input.addTagIds !== undefined && input.addTagIds.length > 0) {
            const added = yield* tagsOrRefuse(organizationId, input.addTagIds)
            const known = new Set(ticket.tags.map((t) => t.id))
            commands.push(new SetTags({ ...base, tags: [...ticket.tags, ...added.filter((t) => !known.has(t.id))] }))
          }
          const language =
            input.language ??
            (input.transcript !== undefined && ticket.language === "" ? detectLanguage(input.transcript) : "")
          if (language !== "" || input.language !== undefined) commands.push(new RecordLanguage({ ...base, language }))
          return commands
        })
      ).pipe(withSpan("TicketCommands.enrich"))

    return { enrich } as const
  }),
  dependencies: [TicketPipeline.Default]
}) {}
