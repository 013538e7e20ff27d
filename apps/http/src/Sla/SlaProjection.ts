import { SqlClient } from "@effect/sql"
import {
  fromRecordedEvents,
  initialState,
  type OrganizationId,
  type RecordedEvent,
  type TicketEvent,
  type TicketState,
  ticketEventClasses
} from "@helpdesk/domain"
import { Effect, Either } from "effect"
import { eventsByStream, readStreamEvents } from "../EventStore/EventsByStream.js"
import type { InlineProjection } from "../EventStore/InlineProjection.js"
import { withSpan } from "../Observability/Spans.js"
import { handoverOf, type TicketHandover } from "../Tickets/Store/TicketSnapshot.js"
import { foldFacts, type SlaFacts } from "./SlaClock.js"
import { factsWithRulesOf, factsWithRulesRead, storedFactsOf, storedFactsWithRules, writeStates } from "./SlaState.js"
import { recordSlaView } from "./SlaViewsWritten.js"

const decodeAll = (recorded: ReadonlyArray<RecordedEvent>): ReadonlyArray<TicketEvent> =>
  Either.getOrThrowWith(fromRecordedEvents(recorded), (error) => error)

/** The organization of a handed-over ticket (its state's, or its creation's), or `undefined` when not handed over. */
const organizationOf = (handover: TicketHandover | undefined): OrganizationId | undefined => {
  if (handover === undefined) return undefined
  const { state } = handover.before
  if (state._tag === "Ticket") return state.organizationId
  const first = handover.events[0]
  return first?._tag === "TicketCreated" ? first.organizationId : undefined
}

/**
 * The one organization of the streams' handed-over tickets, when every stream was handed over (a writer's tickets are
 * of one organization); else `undefined`.
 */
const handedOrganization = (
  streamIds: ReadonlyArray<string>,
  handoverOf: (streamId: string) => TicketHandover | undefined
): OrganizationId | undefined => {
  const organizations = new Set(streamIds.map((id) => organizationOf(handoverOf(id))))
  return organizations.size === 1 ? [...organizations][0] : undefined
}

const SLA = "sla"

/** Whether `events` continue a stream at `version` without a hole. */
const continues = (version: number, events: ReadonlyArray<RecordedEvent>): boolean =>
  events.every((event, i) => event.streamPosition === version + i + 1)

/**
 * The `sla` inline projection (docs/decisions/0503-sla-policies.md): after the `tickets` projection in every append,
 * it folds the appended ticket events into the ticket's SLA facts and writes its SLA state (`hd_ticket_sla`, the
 * view's `sla`). It continues from the stored facts when the writer handed over the stream's fold at the facts'
 * version (the pipeline's normal case: no read); otherwise it folds the stream from its start.
 */
export const slaProjection: InlineProjection = {
  name: SLA,
  eventTypes: Object.keys(ticketEventClasses),
  // The stored facts and the organization's rules come with the append: no round trip of their own.
  // (Its organization, when there is one, is the one `apply` finds: its streams are some of these, handed over alike.)
  readWithAppend: (sql, streamIds, context) => {
    const organization = handedOrganization(streamIds, (id) => context?.folds.get(id) as TicketHandover | undefined)
    return organization === undefined ? undefined : factsWithRulesRead(sql, streamIds, organization)
  },
  apply: (events, context) =>
    Effect.gen(function* () {
      const streams = eventsByStream(events)
      const streamIds = [...streams.keys()]
      const handovers = new Map(streamIds.map((id) => [id, handoverOf(context, id, streams.get(id)!)]))
      const organization = handedOrganization(streamIds, (id) => handovers.get(id))
      const read = context?.reads?.get(SLA)
      const { stored, rules } =
        organization === undefined
          ? { stored: yield* storedFactsOf(streamIds), rules: undefined }
          : read === undefined || read === null
            ? yield* storedFactsWithRules(streamIds, organization)
            : yield* factsWithRulesOf(organization, read)
      const folded: Array<{ streamId: string; version: number; facts: SlaFacts }> = []
      const missing: Array<string> = []
      for (const [streamId, list] of streams) {
        const row = stored.get(streamId)
        const version = row?.version ?? 0
        const last = list[list.length - 1]!.streamPosition
        if (last <= version) continue
        const handover = handovers.get(streamId)
        let before: TicketState | undefined
        let decided: ReadonlyArray<TicketEvent> | undefined
        if (handover !== undefined && handover.before.version === version) {
          before = handover.before.state
          decided = handover.events
        } else if (version === 0 && continues(0, list)) before = initialState
        if (before === undefined) {
          missing.push(streamId)
          continue
        }
        const { facts } = foldFacts(row?.facts ?? null, before, decided ?? decodeAll(list))
        if (facts !== null) folded.push({ streamId, version: last, facts })
      }
      if (missing.length > 0) {
        for (const [streamId, list] of yield* readStreamEvents(missing)) {
          const { facts } = foldFacts(null, initialState, decodeAll(list))
          if (facts !== null) folded.push({ streamId, version: list[list.length - 1]!.streamPosition, facts })
        }
      }
      const byOrganization = new Map<OrganizationId, Array<(typeof folded)[number]>>()
      for (const ticket of folded) {
        const list = byOrganization.get(ticket.facts.organizationId)
        if (list === undefined) byOrganization.set(ticket.facts.organizationId, [ticket])
        else list.push(ticket)
      }
      for (const [organizationId, tickets] of byOrganization) {
        const views = yield* writeStates(organizationId, tickets, organizationId === organization ? rules : undefined)
        for (const [streamId, view] of views) {
          const after = handovers.get(streamId)?.after
          if (after !== undefined) yield* recordSlaView(after, view)
        }
      }
    }).pipe(withSpan("SlaProjection.apply")),
  reset: Effect.flatMap(SqlClient.SqlClient, (sql) => sql`TRUNCATE hd_ticket_sla`).pipe(Effect.asVoid)
}
