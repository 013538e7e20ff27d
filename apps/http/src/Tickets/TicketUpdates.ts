import {
  AssignTicket,
  ChangePriority,
  type Classification,
  ClassifyTicket,
  CloseTicket,
  MarkSpam,
  type OrganizationId,
  type Priority,
  ReopenTicket,
  SetTags,
  SetWaitingOn,
  type TicketCommand,
  UnmarkSpam,
  type WaitingOn
} from "@helpdesk/domain"
import { Effect } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { CsatPolicy } from "../Csat/CsatPolicy.js"
import { withSpan } from "../Observability/Spans.js"
import { TicketInputRefused } from "./TicketErrors.js"
import { TicketPipeline } from "./TicketPipeline.js"

/** A partial update of a ticket's fields; absent fields are left alone. */
export interface UpdateTicketInput {
  readonly status?: "created" | "active" | "closed"
  readonly classification?: Classification
  readonly priority?: Priority
  readonly waitingOn?: WaitingOn
  readonly assigneeId?: number | null
  readonly tagIds?: ReadonlyArray<number>
  readonly isSpam?: boolean
}

/** Use case: a partial update of a ticket's fields, with the CSAT survey after a close. */
export class TicketUpdates extends Effect.Service<TicketUpdates>()("@helpdesk/http/Tickets/TicketUpdates", {
  effect: Effect.gen(function* () {
    const { actorFor, memberOrRefuse, tagsOrRefuse, onTicket } = yield* TicketPipeline
    const csat = yield* CsatPolicy

    /** Applies a partial update (status, classification, priority, waiting_on, assignee, tags, spam) atomically. */
    const update = (organizationId: OrganizationId, caller: Caller, ticketId: number, changes: UpdateTicketInput) =>
      onTicket(
        organizationId,
        ticketId,
        (ticket, at) =>
          Effect.gen(function* () {
            const actor = yield* actorFor(caller, "associate")
            const base = { ticketId, at, actor }
            const commands: Array<TicketCommand> = []
            if (changes.isSpam !== undefined) commands.push(changes.isSpam ? new MarkSpam(base) : new UnmarkSpam(base))
            const classification = changes.classification
            const classify = () => {
              if (classification !== undefined) commands.push(new ClassifyTicket({ ...base, classification }))
            }
            switch (changes.status) {
              case "closed":
                if (ticket.status === "closed") classify()
                else
                  commands.push(new CloseTicket({ ...base, classification: classification ?? ticket.classification }))
                break
              case "active":
                if (ticket.status === "created")
                  return yield* TicketInputRefused.because({ _tag: "CannotActivateNewTicket" })
                if (ticket.status === "closed") commands.push(new ReopenTicket(base))
                classify()
                break
              case "created":
                if (ticket.status !== "created")
                  return yield* TicketInputRefused.because({
                    _tag: "CannotReturnToCreated",
                    status: ticket.status
                  })
                classify()
                break
              default:
                classify()
            }
            if (changes.priority !== undefined)
              commands.push(new ChangePriority({ ...base, priority: changes.priority }))
            if (changes.waitingOn !== undefined)
              commands.push(new SetWaitingOn({ ...base, waitingOn: changes.waitingOn }))
            if (changes.assigneeId !== undefined) {
              const assignee =
                changes.assigneeId === null
                  ? null
                  : yield* memberOrRefuse(organizationId, changes.assigneeId, "AssigneeNotMember")
              commands.push(new AssignTicket({ ...base, assignee }))
            }
            if (changes.tagIds !== undefined) {
              const tags = yield* tagsOrRefuse(organizationId, changes.tagIds)
              commands.push(new SetTags({ ...base, tags }))
            }
            return commands
          }),
        [csat.offerSurvey]
      ).pipe(withSpan("TicketCommands.update"))

    return { update } as const
  }),
  dependencies: [TicketPipeline.Default, CsatPolicy.Default]
}) {}
