import { SqlClient } from "@effect/sql"
import {
  type Actor,
  AddMessage,
  AssignTicket,
  ChangePriority,
  type Classification,
  ClassifyTicket,
  CloseTicket,
  CreateTicket,
  MarkSpam,
  MergeTickets,
  type Origin,
  type Priority,
  RecordLanguage,
  RecordSentiment,
  RecordSummary,
  RecordTranscript,
  ReopenTicket,
  runTicketCommands,
  runTicketMerge,
  type Sender,
  type Sentiment,
  SetTags,
  SetWaitingOn,
  SnoozeTicket,
  StreamClosed,
  StreamVersionConflict,
  systemActor,
  type Ticket,
  type TicketCommand,
  TicketMergedAway,
  type TicketPlan,
  type TicketPolicy,
  type TicketState,
  TicketStore,
  UnmarkSpam,
  UnsnoozeTicket,
  type UserRef,
  type WaitingOn
} from "@helpdesk/domain"
import { DateTime, Effect } from "effect"
import { PendingAttachments } from "../Attachments/PendingAttachments.js"
import type { Caller } from "../Auth/CurrentCaller.js"
import { AutoReplies } from "../AutoReplies/AutoReplies.js"
import { CsatPolicy } from "../Csat/CsatPolicy.js"
import { HTML_TOO_DEEP, htmlTooDeep, htmlToText, sanitizeHtml } from "../Http/Html.js"
import { detectLanguage } from "../Language/LanguageDetection.js"
import { TicketDirectory } from "./TicketDirectory.js"
import { TicketInputRefused, TicketNotInOrganization, TicketWriteConflict } from "./TicketErrors.js"
import { TicketOutbox } from "./TicketOutbox.js"

/**
 * The application layer of tickets: turns requests into the domain's commands and runs them through the one command
 * pipeline (`runTicketCommands` of `@helpdesk/domain` on the service's `TicketStore`,
 * docs/decisions/0305-one-command-pipeline.md): load the ticket (its stream locked for the transaction), decide,
 * append, inline projections from the state in hand, then the policies (outbox rows, the CSAT survey), each write in
 * one transaction with what must happen with it (the per-organization public-id counter, attachment claims,
 * customers created on the fly). Refusals of the domain come out as its `TicketError`s; a write the store could not
 * make (a stream closed under it) is a {@link TicketWriteConflict}.
 */

/** Who a write is attributed to: an associate (a person or an integration token), or the customer. */
export type WriteRole = "associate" | "customer"

/** Channels whose replies go out by e-mail (and so are tracked through the outbox). */
const EMAIL_CHANNELS: ReadonlySet<string> = new Set(["email", "api"])

/** Whether a reply to this customer on this channel goes out as an e-mail. */
export const repliesByEmail = (customerEmail: string, channelType: string): boolean =>
  customerEmail !== "" && EMAIL_CHANNELS.has(channelType)

/** How a new ticket names its customer. */
export type CustomerChoice =
  | { readonly _tag: "ById"; readonly id: number }
  | { readonly _tag: "ByEmail"; readonly email: string; readonly name: string }

/** A ticket creation request, validated for shape. */
export interface CreateTicketInput {
  readonly organizationId: number
  readonly caller: Caller
  readonly createdByRole: WriteRole
  readonly subject: string
  readonly description: string
  readonly descriptionHtml: string
  readonly kind: "text" | "audio"
  readonly inboxId: number | undefined
  readonly customer: CustomerChoice
  readonly origin: Origin
  readonly channel: { readonly type: string; readonly connectionId: number | null }
  readonly externalRecipientEmails: ReadonlyArray<string>
  readonly bccRecipientEmails: ReadonlyArray<string>
  readonly tagIds: ReadonlyArray<number>
  readonly priority: Priority
  readonly assigneeId: number | null
  readonly attachmentIds: ReadonlyArray<string>
}

/** A reply or internal note, validated for shape. `null` recipient lists mean "not set on this message". */
export interface AddMessageInput {
  readonly organizationId: number
  readonly caller: Caller
  readonly ticketId: number
  readonly role: WriteRole
  readonly content: string
  readonly contentHtml: string
  readonly isVisibleToCustomer: boolean
  readonly externalRecipientEmails: ReadonlyArray<string> | null
  readonly bccRecipientEmails: ReadonlyArray<string> | null
  readonly nextAssigneeId: number | null
  readonly nextPriority: Priority | null
  readonly nextAction: string
  readonly attachmentIds: ReadonlyArray<string>
}

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

/** What an integration learned about a ticket (AI summary, sentiment, transcript, auto-tags, language). */
export interface EnrichmentInput {
  readonly summary?: string
  readonly sentiment?: Exclude<Sentiment, "pending">
  readonly transcript?: string
  readonly addTagIds?: ReadonlyArray<number>
  readonly language?: string
}

/** The state after a write, and the id of the message it added (for message writes). */
export interface WriteResult {
  readonly ticket: Ticket
  readonly messageId: number | null
}

const asTicket = (state: TicketState): Ticket => {
  if (state._tag !== "Ticket") throw new Error("expected a ticket state")
  return state
}

/** Ticket writes. */
export class TicketCommands extends Effect.Service<TicketCommands>()("@helpdesk/http/Tickets/TicketCommands", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ticketStore = yield* TicketStore
    const directory = yield* TicketDirectory
    const attachments = yield* PendingAttachments
    const autoReplies = yield* AutoReplies
    const outbox = yield* TicketOutbox
    const csat = yield* CsatPolicy

    const nextTicketId = sql<{ id: string }>`SELECT nextval('hd_ticket_id_seq') AS id`.pipe(
      Effect.map((rows) => Number(rows[0]!.id)),
      Effect.orDie
    )

    const nextMessageId = sql<{ id: string }>`SELECT nextval('hd_ticket_message_id_seq') AS id`.pipe(
      Effect.map((rows) => Number(rows[0]!.id)),
      Effect.orDie
    )

    /**
     * The next `public_id` of the organization. The counter row stays locked until the transaction ends, so
     * concurrent creations take numbers one after another, and a rollback returns the number.
     */
    const nextPublicId = (organizationId: number) =>
      sql<{ lastPublicId: string }>`
        INSERT INTO hd_ticket_counters (organization_id, last_public_id) VALUES (${organizationId}, 1)
        ON CONFLICT (organization_id) DO UPDATE SET last_public_id = hd_ticket_counters.last_public_id + 1
        RETURNING last_public_id`.pipe(
        Effect.map((rows) => rows[0]!.lastPublicId),
        Effect.orDie
      )

    /** The actor of a write: a customer has no user; a person acts as their user; an integration as nobody. */
    const actorFor = (caller: Caller, role: WriteRole) =>
      Effect.gen(function* () {
        if (role === "customer") return { role: "customer", user: null } satisfies Actor as Actor
        if (caller._tag === "Integration") return { role: "associate", user: null } satisfies Actor as Actor
        const user = yield* directory.user(caller.userId)
        return { role: "associate", user: user ?? null } satisfies Actor as Actor
      })

    const memberOrRefuse = (organizationId: number, userId: number, field: string) =>
      Effect.flatMap(directory.member(organizationId, userId), (user) =>
        user === undefined
          ? Effect.fail(TicketInputRefused.of(field, `User ${userId} is not a member of this organization.`))
          : Effect.succeed(user)
      )

    const tagsOrRefuse = (organizationId: number, ids: ReadonlyArray<number>, field: string) =>
      Effect.flatMap(directory.tags(organizationId, ids), ({ found, missing }) =>
        missing.length > 0
          ? Effect.fail(
              TicketInputRefused.of(
                field,
                `Unknown tag id${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}. Use ids of this organization's tags.`
              )
            )
          : Effect.succeed(found)
      )

    const claim = (organizationId: number, caller: Caller, ids: ReadonlyArray<string>, ticketId: number) =>
      ids.length === 0
        ? Effect.succeed([])
        : attachments
            .claim({ organizationId, caller, ids, ticketId })
            .pipe(
              Effect.catchTag("AttachmentClaimRefused", (refused) =>
                Effect.fail(new TicketInputRefused({ field: "attachment_ids", messages: refused.messages }))
              )
            )

    /**
     * Runs a ticket's commands through the pipeline (with the service's `TicketStore`); the domain's refusals and
     * the store's conflicts come out typed, an event this code cannot read is a defect.
     */
    const run = <A, E, R>(options: Parameters<typeof runTicketCommands<A, E, R, never, never>>[0]) =>
      runTicketCommands(options).pipe(
        Effect.provideService(TicketStore, ticketStore),
        Effect.catchTag("EventDecodeError", Effect.die),
        conflictAsError(options.ticketId)
      )

    const conflictAsError =
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
    const inOrganization = (organizationId: number, ticketId: number, state: TicketState) =>
      state._tag !== "Ticket" || state.organizationId !== String(organizationId)
        ? Effect.fail(new TicketNotInOrganization({ ticketId }))
        : Effect.succeed(state)

    /**
     * Runs what `plan` chooses for a ticket of the organization through the pipeline, with `policies` after the
     * append; answers the ticket after the write and the plan's result.
     */
    const onTicketPlanned = <A, E, R>(
      organizationId: number,
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
      organizationId: number,
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

    /** Creates a ticket (see {@link CreateTicketInput}); returns its state. */
    const create = (input: CreateTicketInput) =>
      Effect.gen(function* () {
        if (htmlTooDeep(input.descriptionHtml)) return yield* TicketInputRefused.of("description_html", HTML_TOO_DEEP)
        // Stored, returned and mailed: only the sanitised HTML (outside the transaction: it may take a while). An
        // audio ticket keeps the caller's for the domain to refuse: it takes no HTML at all.
        const descriptionHtml = input.kind === "audio" ? input.descriptionHtml : sanitizeHtml(input.descriptionHtml)
        if (input.kind === "text" && input.description === "" && input.descriptionHtml !== "" && descriptionHtml === "")
          return yield* TicketInputRefused.of(
            "description_html",
            "Nothing is left of description_html once unsafe markup is removed; give a description."
          )
        const at = yield* DateTime.now
        const org = input.organizationId
        return yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const inbox =
                input.inboxId === undefined
                  ? yield* directory.defaultInbox(org)
                  : yield* directory.inbox(org, input.inboxId)
              if (inbox === undefined)
                return yield* TicketInputRefused.of(
                  "inbox_id",
                  `Inbox ${input.inboxId} does not exist in this organization.`
                )
              const customer =
                input.customer._tag === "ById"
                  ? yield* directory.customer(org, input.customer.id)
                  : yield* directory.customerByEmail(org, input.customer.email, input.customer.name)
              if (customer === undefined)
                return yield* TicketInputRefused.of(
                  "customer_id",
                  `Customer ${(input.customer as { id: number }).id} does not exist in this organization.`
                )
              const tags = yield* tagsOrRefuse(org, input.tagIds, "tags")
              const assignee =
                input.assigneeId === null ? null : yield* memberOrRefuse(org, input.assigneeId, "assignee_id")
              const actor = yield* actorFor(input.caller, input.createdByRole)
              const ticketId = yield* nextTicketId
              const claimed = yield* claim(org, input.caller, input.attachmentIds, ticketId)
              const publicId = yield* nextPublicId(org)
              const description =
                input.kind === "text" && input.description === "" && descriptionHtml !== ""
                  ? htmlToText(descriptionHtml)
                  : input.description
              const sendsCreateEmail = actor.role === "associate" && repliesByEmail(customer.email, input.channel.type)
              const base = { ticketId, at, actor }
              const commands: Array<TicketCommand> = [
                new CreateTicket({
                  ...base,
                  publicId,
                  organizationId: String(org),
                  subject: input.subject,
                  description,
                  descriptionHtml,
                  kind: input.kind,
                  inbox,
                  channel: input.channel,
                  origin: input.origin,
                  customer,
                  externalRecipientEmails: input.externalRecipientEmails,
                  bccRecipientEmails: input.bccRecipientEmails,
                  fromEmail: customer.email,
                  fromName: customer.name,
                  attachments: claimed,
                  tags,
                  priority: input.priority,
                  assignee,
                  sendsCreateEmail
                })
              ]
              const language = detectLanguage(input.kind === "audio" ? description : `${input.subject}\n${description}`)
              if (language !== "") commands.push(new RecordLanguage({ ...base, actor: systemActor, language }))
              if (actor.role === "customer") {
                const autoReply = yield* autoReplies.replyFor({
                  organizationId: org,
                  inboxId: inbox.id,
                  at: DateTime.toDate(at),
                  customerName: customer.name,
                  customerEmail: customer.email,
                  ticketPublicId: publicId
                })
                if (autoReply !== undefined)
                  commands.push(
                    new AddMessage({
                      ...base,
                      actor: systemActor,
                      messageId: yield* nextMessageId,
                      content: autoReply,
                      isVisibleToCustomer: true,
                      sendsEmail: repliesByEmail(customer.email, input.channel.type)
                    })
                  )
              }
              // A new stream: the pipeline finds no ticket and appends expecting none.
              const created = yield* run({
                ticketId,
                plan: () => Effect.succeed({ commands, result: undefined }),
                policies: [outbox.messageEmails, outbox.creationEmail]
              })
              return asTicket(created.state)
            })
          )
          .pipe(Effect.catchTag("SqlError", Effect.die))
      }).pipe(Effect.withSpan("TicketCommands.create"))

    const senderFor = (ticket: Ticket, actor: Actor): Sender | null =>
      actor.role === "customer"
        ? { email: ticket.customer.email, name: ticket.customer.name, userId: null, profilePicture: "" }
        : actor.user === null
          ? null
          : {
              email: actor.user.email,
              name: actor.user.name,
              userId: actor.user.id,
              profilePicture: actor.user.profilePictureUrl
            }

    const addMessageOnce = (input: AddMessageInput, ticketId: number) => {
      // Stored, returned and mailed: only the sanitised HTML.
      const contentHtml = sanitizeHtml(input.contentHtml)
      return Effect.map(
        onTicketPlanned(
          input.organizationId,
          ticketId,
          (ticket, at) =>
            Effect.gen(function* () {
              const actor = yield* actorFor(input.caller, input.role)
              const nextAssignee: UserRef | null =
                input.nextAssigneeId === null
                  ? null
                  : yield* memberOrRefuse(input.organizationId, input.nextAssigneeId, "next_assignee_id")
              const messageId = yield* nextMessageId
              const claimed = yield* claim(input.organizationId, input.caller, input.attachmentIds, ticketId)
              const content = input.content === "" && contentHtml !== "" ? htmlToText(contentHtml) : input.content
              const sendsEmail =
                actor.role === "associate" &&
                input.isVisibleToCustomer &&
                ticket.mergedInto === null &&
                repliesByEmail(ticket.customer.email, ticket.channel.type)
              const base = { ticketId, at, actor }
              const commands: Array<TicketCommand> = [
                new AddMessage({
                  ...base,
                  messageId,
                  sender: senderFor(ticket, actor),
                  content,
                  contentHtml,
                  isVisibleToCustomer: input.isVisibleToCustomer,
                  externalRecipientEmails: input.externalRecipientEmails,
                  bccRecipientEmails: input.bccRecipientEmails,
                  nextAssignee,
                  nextPriority: input.nextPriority,
                  nextAction: input.nextAction,
                  attachments: claimed,
                  sendsEmail
                })
              ]
              // The conversation's language is the customer's: guessed from their first words that tell it.
              if (ticket.language === "" && actor.role === "customer") {
                const language = detectLanguage(content)
                if (language !== "") commands.push(new RecordLanguage({ ...base, actor: systemActor, language }))
              }
              return { commands, result: messageId }
            }),
          [outbox.messageEmails]
        ),
        ({ ticket, result: messageId }): WriteResult => ({ ticket, messageId })
      )
    }

    /**
     * Adds a reply or internal note. A customer's reply to a merged-away ticket goes to the survivor (following
     * merges up to a few hops); everyone else's write to it is refused with `TicketMergedAway`.
     */
    const addMessage = (input: AddMessageInput) => {
      const attempt = (ticketId: number, hops: number): ReturnType<typeof addMessageOnce> =>
        addMessageOnce(input, ticketId).pipe(
          Effect.catchIf(
            (error): error is TicketMergedAway =>
              error instanceof TicketMergedAway && input.role === "customer" && hops < 5,
            (merged) => attempt(merged.mergedInto.id, hops + 1)
          )
        )
      return Effect.suspend(() =>
        htmlTooDeep(input.contentHtml)
          ? Effect.fail(TicketInputRefused.of("content_html", HTML_TOO_DEEP))
          : attempt(input.ticketId, 0)
      ).pipe(Effect.withSpan("TicketCommands.addMessage"))
    }

    /** Applies a partial update (status, classification, priority, waiting_on, assignee, tags, spam) atomically. */
    const update = (organizationId: number, caller: Caller, ticketId: number, changes: UpdateTicketInput) =>
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
                  return yield* TicketInputRefused.of(
                    "status",
                    "A new ticket becomes active when an associate replies to the customer; it cannot be set to active."
                  )
                if (ticket.status === "closed") commands.push(new ReopenTicket(base))
                classify()
                break
              case "created":
                if (ticket.status !== "created")
                  return yield* TicketInputRefused.of("status", `A ${ticket.status} ticket cannot go back to created.`)
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
                  : yield* memberOrRefuse(organizationId, changes.assigneeId, "assignee_id")
              commands.push(new AssignTicket({ ...base, assignee }))
            }
            if (changes.tagIds !== undefined) {
              const tags = yield* tagsOrRefuse(organizationId, changes.tagIds, "tags")
              commands.push(new SetTags({ ...base, tags }))
            }
            return commands
          }),
        [csat.offerSurvey]
      ).pipe(Effect.withSpan("TicketCommands.update"))

    /** Snoozes (or re-snoozes) the ticket until `until`. */
    const snooze = (organizationId: number, caller: Caller, ticketId: number, until: DateTime.Utc) =>
      onTicket(organizationId, ticketId, (_, at) =>
        Effect.map(actorFor(caller, "associate"), (actor) => [new SnoozeTicket({ ticketId, at, actor, until })])
      ).pipe(Effect.withSpan("TicketCommands.snooze"))

    /** Takes the ticket out of snooze (`last_unsnooze_reason: manual`). */
    const unsnooze = (organizationId: number, caller: Caller, ticketId: number) =>
      onTicket(organizationId, ticketId, (_, at) =>
        Effect.map(actorFor(caller, "associate"), (actor) => [new UnsnoozeTicket({ ticketId, at, actor })])
      ).pipe(Effect.withSpan("TicketCommands.unsnooze"))

    /** Records what an integration learned; a transcript also sets the language when none is known yet. */
    const enrich = (organizationId: number, ticketId: number, input: EnrichmentInput) =>
      onTicket(organizationId, ticketId, (ticket, at) =>
        Effect.gen(function* () {
          const base = { ticketId, at, actor: systemActor }
          const commands: Array<TicketCommand> = []
          if (input.transcript !== undefined)
            commands.push(new RecordTranscript({ ...base, transcript: input.transcript }))
          if (input.summary !== undefined) commands.push(new RecordSummary({ ...base, summary: input.summary }))
          if (input.sentiment !== undefined) commands.push(new RecordSentiment({ ...base, sentiment: input.sentiment }))
          if (input.addTagIds !== undefined && input.addTagIds.length > 0) {
            const added = yield* tagsOrRefuse(organizationId, input.addTagIds, "tags")
            const known = new Set(ticket.tags.map((t) => t.id))
            commands.push(new SetTags({ ...base, tags: [...ticket.tags, ...added.filter((t) => !known.has(t.id))] }))
          }
          const language =
            input.language ??
            (input.transcript !== undefined && ticket.language === "" ? detectLanguage(input.transcript) : "")
          if (language !== "" || input.language !== undefined) commands.push(new RecordLanguage({ ...base, language }))
          return commands
        })
      ).pipe(Effect.withSpan("TicketCommands.enrich"))

    /**
     * Merges the ticket into `targetId` (the survivor) of the same organization: both streams in one append, the
     * source's closed. Returns the source's state (now with `merged_into`).
     */
    const merge = (organizationId: number, caller: Caller, sourceId: number, targetId: number) =>
      Effect.gen(function* () {
        const at = yield* DateTime.now
        const actor = yield* actorFor(caller, "associate")
        const merged = yield* runTicketMerge({
          command: new MergeTickets({ sourceTicketId: sourceId, targetTicketId: targetId, at, actor }),
          check: (source, target) =>
            Effect.zipRight(
              inOrganization(organizationId, sourceId, source.state),
              target.state._tag !== "Ticket" || target.state.organizationId !== String(organizationId)
                ? TicketInputRefused.of("into", `Ticket ${targetId} does not exist in this organization.`)
                : Effect.void
            )
        }).pipe(
          Effect.provideService(TicketStore, ticketStore),
          Effect.catchTag("EventDecodeError", Effect.die),
          conflictAsError(sourceId)
        )
        return { source: asTicket(merged.source.state), target: asTicket(merged.target.state) }
      }).pipe(Effect.withSpan("TicketCommands.merge"))

    /**
     * Runs commands the service issues on its own (timers, mail delivery, automations) on a ticket of the
     * organization, in one transaction with the e-mails of any messages they add; `plan` gets the ticket and the
     * instant of the write and may return no commands. Refusals of the domain come out as its `TicketError`s.
     */
    const asSystem = <E, R>(
      organizationId: number,
      ticketId: number,
      plan: (ticket: Ticket, at: DateTime.Utc) => Effect.Effect<ReadonlyArray<TicketCommand>, E, R>
    ) =>
      onTicket(organizationId, ticketId, plan, [outbox.messageEmails]).pipe(Effect.withSpan("TicketCommands.asSystem"))

    return { create, addMessage, update, snooze, unsnooze, enrich, merge, asSystem, nextMessageId } as const
  })
}) {}
