import {
  type Actor,
  type OrganizationId,
  runTicketCommandsOn,
  StreamClosed,
  StreamVersionConflict,
  type Ticket,
  type TicketCommand,
  type TicketCommandsOptions,
  type TicketPlan,
  type TicketPolicy,
  type TicketState,
  TicketStore
} from "@helpdesk/domain"
import { DateTime, Effect } from "effect"
import { PendingAttachments, PendingAttachmentsLive } from "../Attachments/PendingAttachments.js"
import type { Caller } from "../Auth/CurrentCaller.js"
import { TicketDirectory } from "./TicketDirectory.js"
import { TicketInputRefused, TicketNotInOrganization, TicketWriteConflict } from "./TicketErrors.js"

/** Who a write is attributed to: an associate (a person or an integration token), or the customer. */
export type WriteRole = "associate" | "customer"

/** Channels whose replies go out by e-mail (and so are tracked through the outbox). */
const EMAIL_CHANNELS: ReadonlySet<string> = new Set(["email", "api"])

/** Whether a reply to this customer on this channel goes out as an e-mail. */
export const repliesByEmail = (customerEmail: string, channelType: string): boolean =>
  customerEmail !== "" && EMAIL_CHANNELS.has(channelType)

/** The ticket of a state the pipeline answered after a write (a write always leaves a ticket). */
export const asTicket = (state: TicketState): Ticket => {
  if (state._tag !== "Ticket") throw new Error("expected a ticket state")
  return state
}

/** A write the store could not make (a stream version conflict or a closed stream) as a {@link TicketWriteConflict}. */
export const conflictAsError =
  (ticketId: number) =>
  <A, E, R>(
    self: Effect.Effect<A, E, R>
  ): Effect.Effect<A, Exclude<E, StreamVersionConflict | StreamClosed> | TicketWriteConflict, R> =>
    Effect.catchIf(
      self,
      (error): error is Extract<E, StreamVersionConflict | StreamClosed> =>
        error instanceof StreamVersionConflict || error instanceof StreamClosed,
      () => Effect.fail(new TicketWriteConflict({ ticketId }))
    ) as Effect.Effect<A, Exclude<E, StreamVersionConflict | StreamClosed> | TicketWriteConflict, R>

/** The ticket of a loaded state, when it is one of the organization's. */
export const inOrganization = (organizationId: OrganizationId, ticketId: number, state: TicketState) =>
  state._tag !== "Ticket" || state.organizationId !== organizationId
    ? Effect.fail(new TicketNotInOrganization({ ticketId }))
    : Effect.succeed(state)

/**
 * What every ticket use case shares: the one command pipeline (`runTicketCommands` of `@helpdesk/domain` on the
 * `TicketStore` of the context, docs/decisions/0305-one-command-pipeline.md) scoped to a ticket of an organization,
 * and the lookups that turn a request's references into the domain's values (actors, members, tags, claimed
 * attachments). Refusals of the domain come out as its `TicketError`s; a write the store could not make is a
 * {@link TicketWriteConflict}.
 */
export class TicketPipeline extends Effect.Service<TicketPipeline>()("@helpdesk/http/Tickets/TicketPipeline", {
  effect: Effect.gen(function* () {
    const ticketStore = yield* TicketStore
    const directory = yield* TicketDirectory
    const attachments = yield* PendingAttachments

    /** The actor of a write: a customer has no user; a person acts as their user; an integration as nobody. */
    const actorFor = (caller: Caller, role: WriteRole) =>
      Effect.gen(function* () {
        if (role === "customer") return { role: "customer", user: null } satisfies Actor as Actor
        if (caller._tag === "Integration") return { role: "associate", user: null } satisfies Actor as Actor
        const user = yield* directory.user(caller.userId)
        return { role: "associate", user: user ?? null } satisfies Actor as Actor
      })

    /** The organization's member `userId`, or a refusal for this reason. */
    const memberOrRefuse = (
      organizationId: OrganizationId,
      userId: number,
      reason: "AssigneeNotMember" | "NextAssigneeNotMember"
    ) =>
      Effect.flatMap(directory.member(organizationId, userId), (user) =>
        user === undefined ? Effect.fail(TicketInputRefused.because({ _tag: reason, userId })) : Effect.succeed(user)
      )

    /** The organization's tags of `ids`, or a refusal naming the unknown ones. */
    const tagsOrRefuse = (organizationId: OrganizationId, ids: ReadonlyArray<number>) =>
      Effect.flatMap(directory.tags(organizationId, ids), ({ found, missing }) =>
        missing.length > 0
          ? Effect.fail(TicketInputRefused.because({ _tag: "TagsNotInOrganization", tagIds: missing }))
          : Effect.succeed(found)
      )

    /** Claims the caller's pending attachments for the ticket; a refused claim is a refusal naming the problems. */
    const claim = (organizationId: OrganizationId, caller: Caller, ids: ReadonlyArray<string>, ticketId: number) =>
      ids.length === 0
        ? Effect.succeed([])
        : attachments
            .claim({ organizationId, caller, ids, ticketId })
            .pipe(
              Effect.catchTag("AttachmentClaimRefused", (refused) =>
                Effect.fail(TicketInputRefused.because({ _tag: "AttachmentsNotClaimable", problems: refused.problems }))
              )
            )

    /**
     * Runs a ticket's commands through the pipeline (with the service's `TicketStore`); the domain's refusals and
     * the store's conflicts come out typed, an event this code cannot read is a defect.
     */
    const run = <A, E, R>(options: TicketCommandsOptions<A, E, R>) =>
      runTicketCommandsOn(ticketStore, options).pipe(
        Effect.catchTag("EventDecodeError", Effect.die),
        conflictAsError(options.ticketId)
      )

    /**
     * Runs what `plan` chooses for a ticket of the organization through the pipeline, with `policies` after the
     * append; answers the ticket after the write and the plan's result.
     */
    const onTicketPlanned = <A, E, R>(
      organizationId: OrganizationId,
      ticketId: number,
      plan: (ticket: Ticket, at: DateTime.Utc) => Effect.Effect<TicketPlan<A>, E, R>,
      policies: ReadonlyArray<TicketPolicy> = []
    ) =>
      Effect.flatMap(DateTime.now, (at) =>
        run({
          ticketId,
          plan: ({ state }) =>
            Effect.flatMap(inOrganization(organizationId, ticketId, state), (ticket) => plan(ticket, at)),
          policies
        })
      ).pipe(Effect.map((outcome) => ({ ticket: asTicket(outcome.state), result: outcome.result })))

    /** {@link onTicketPlanned} for plans that are only commands; answers the ticket after the write. */
    const onTicket = <E, R>(
      organizationId: OrganizationId,
      ticketId: number,
      plan: (ticket: Ticket, at: DateTime.Utc) => Effect.Effect<ReadonlyArray<TicketCommand>, E, R>,
      policies: ReadonlyArray<TicketPolicy> = []
    ) =>
      onTicketPlanned(
        organizationId,
        ticketId,
        (ticket, at) => Effect.map(plan(ticket, at), (commands) => ({ commands, result: undefined })),
        policies
      ).pipe(Effect.map(({ ticket }) => ticket))

    return { actorFor, memberOrRefuse, tagsOrRefuse, claim, run, onTicketPlanned, onTicket } as const
  }),
  dependencies: [TicketDirectory.Default, PendingAttachmentsLive]
}) {}
