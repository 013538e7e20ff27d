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
  decide,
  EventStore,
  ExpectedVersion,
  evolve,
  handleMerge,
  initialState,
  loadTicket,
  MarkSpam,
  MergeTickets,
  type Origin,
  type Priority,
  RecordLanguage,
  RecordSentiment,
  RecordSummary,
  RecordTranscript,
  ReopenTicket,
  type Sender,
  type Sentiment,
  SetTags,
  SetWaitingOn,
  SnoozeTicket,
  StreamVersionConflict,
  systemActor,
  type Ticket,
  type TicketCommand,
  type TicketError,
  type TicketEvent,
  TicketMergedAway,
  type TicketState,
  ticketStreamId,
  ticketStreamType,
  toNewEvent,
  UnmarkSpam,
  UnsnoozeTicket,
  type UserRef,
  type WaitingOn
} from "@helpdesk/domain"
import { DateTime, Effect, Either } from "effect"
import { PendingAttachments } from "../Attachments/PendingAttachments.js"
import type { Caller } from "../Auth/CurrentCaller.js"
import { AutoReplies } from "../AutoReplies/AutoReplies.js"
import { surveyDue, surveyEmail } from "../Csat/CsatEmail.js"
import { CsatSurveys } from "../Csat/CsatSurveys.js"
import { retryOnConflict } from "../EventStore/HandleCommand.js"
import { HTML_TOO_DEEP, htmlTooDeep, htmlToText, sanitizeHtml } from "../Http/Html.js"
import { detectLanguage } from "../Language/LanguageDetection.js"
import { TicketDirectory } from "./TicketDirectory.js"
import { TicketInputRefused, TicketNotInOrganization, TicketWriteConflict } from "./TicketErrors.js"

/**
 * The application layer of tickets: turns requests into the domain's commands, decides them against the ticket's
 * events and appends the result, each write in one transaction with what must happen with it (the per-organization
 * public-id counter, attachment claims, customers created on the fly, outbox rows). A write that loses an
 * optimistic-concurrency race starts over from a fresh read (`retryOnConflict`); one that keeps losing is a
 * {@link TicketWriteConflict}. Refusals of the domain come out as its `TicketError`s.
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

/** Decides commands one after another over the evolving state: all their events, or the first refusal. */
const decideAll = (
  state: TicketState,
  commands: ReadonlyArray<TicketCommand>
): Either.Either<{ readonly events: ReadonlyArray<TicketEvent>; readonly state: TicketState }, TicketError> => {
  const events: Array<TicketEvent> = []
  let current = state
  for (const command of commands) {
    const decision = decide(command, current)
    if (Either.isLeft(decision)) return Either.left(decision.left)
    for (const event of decision.right) {
      events.push(event)
      current = evolve(current, event)
    }
  }
  return Either.right({ events, state: current })
}

const eventId = () => globalThis.crypto.randomUUID()

const asTicket = (state: TicketState): Ticket => {
  if (state._tag !== "Ticket") throw new Error("expected a ticket state")
  return state
}

/** Ticket writes. */
export class TicketCommands extends Effect.Service<TicketCommands>()("@helpdesk/http/Tickets/TicketCommands", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* EventStore
    const directory = yield* TicketDirectory
    const attachments = yield* PendingAttachments
    const autoReplies = yield* AutoReplies
    const csatSurveys = yield* CsatSurveys

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

    const enqueueEmail = (row: {
      readonly organizationId: number
      readonly ticketId: number
      readonly messageId: number | null
      readonly kind: "ticket_created" | "message" | "csat_survey"
      readonly payload: unknown
    }) =>
      sql`
        INSERT INTO hd_outbox (organization_id, ticket_id, message_id, kind, payload)
        VALUES (${row.organizationId}, ${row.ticketId}, ${row.messageId}, ${row.kind}, ${JSON.stringify(row.payload)}::jsonb)`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Queues the e-mail of a message of the ticket (a customer-visible reply whose `sendsEmail` is set). */
    const enqueueMessageEmail = (organizationId: number, ticket: Ticket, messageId: number) => {
      const message = ticket.messages.find((m) => m.id === messageId)!
      return enqueueEmail({
        organizationId,
        ticketId: ticket.id,
        messageId,
        kind: "message",
        payload: {
          public_id: ticket.publicId,
          to: ticket.customer.email,
          cc: message.externalRecipientEmails,
          bcc: message.bccRecipientEmails,
          subject: ticket.subject,
          text: message.content,
          html: message.contentHtml,
          attachment_ids: message.attachments.map((a) => a.id)
        }
      })
    }

    /** Queues the e-mails of the messages among `events` that go out by e-mail. */
    const enqueueEmailsOf = (organizationId: number, ticket: Ticket, events: ReadonlyArray<TicketEvent>) =>
      Effect.forEach(
        events,
        (event) =>
          event._tag === "MessageAdded" && event.message.sendsEmail
            ? enqueueMessageEmail(organizationId, ticket, event.message.id)
            : Effect.void,
        { discard: true }
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

    const appendEvents = (
      ticketId: number,
      version: number,
      events: ReadonlyArray<TicketEvent>,
      expected = ExpectedVersion.exact(version)
    ) =>
      events.length === 0
        ? Effect.void
        : store
            .append([
              {
                streamId: ticketStreamId(ticketId),
                streamType: ticketStreamType,
                expected,
                events: events.map((event) => toNewEvent(event, eventId()))
              }
            ])
            .pipe(
              // A stream closed after our read (merged away meanwhile): read again, and the decider refuses.
              Effect.catchTag("StreamClosed", (closed) =>
                Effect.fail(new StreamVersionConflict({ streamId: closed.streamId, expected: "open", actual: null }))
              ),
              Effect.asVoid
            )

    const conflictAsError =
      (ticketId: number) =>
      <A, E, R>(
        self: Effect.Effect<A, E, R>
      ): Effect.Effect<A, Exclude<E, StreamVersionConflict> | TicketWriteConflict, R> =>
        Effect.catchIf(
          self,
          (error): error is Extract<E, StreamVersionConflict> => error instanceof StreamVersionConflict,
          () => Effect.fail(new TicketWriteConflict({ ticketId }))
        ) as Effect.Effect<A, Exclude<E, StreamVersionConflict> | TicketWriteConflict, R>

    /** Loads a ticket of the organization (inside the caller's transaction). */
    const loadInOrganization = (organizationId: number, ticketId: number) =>
      Effect.gen(function* () {
        const recorded = yield* store.readStream(ticketStreamId(ticketId))
        const loaded = Either.getOrThrow(loadTicket(recorded))
        const state = loaded.state
        if (state._tag !== "Ticket" || state.organizationId !== String(organizationId))
          return yield* new TicketNotInOrganization({ ticketId })
        return { ticket: state, version: loaded.version }
      })

    /**
     * Runs the commands `plan` chooses for a ticket of the organization in one transaction: load, decide them in
     * order, append, then `after` (outbox rows) with the resulting state; retried from the start on conflicts.
     */
    const onTicket = <E, R, E2 = never, R2 = never>(
      organizationId: number,
      ticketId: number,
      plan: (ticket: Ticket, at: DateTime.Utc) => Effect.Effect<ReadonlyArray<TicketCommand>, E, R>,
      after?: (ticket: Ticket, events: ReadonlyArray<TicketEvent>) => Effect.Effect<void, E2, R2>
    ) =>
      Effect.gen(function* () {
        const at = yield* DateTime.now
        return yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const { ticket, version } = yield* loadInOrganization(organizationId, ticketId)
              const commands = yield* plan(ticket, at)
              const decided = yield* decideAll(ticket, commands)
              yield* appendEvents(ticketId, version, decided.events)
              const next = asTicket(decided.state)
              if (after !== undefined && decided.events.length > 0) yield* after(next, decided.events)
              return next
            })
          )
          .pipe(retryOnConflict(), Effect.catchTag("SqlError", Effect.die))
      }).pipe(conflictAsError(ticketId))

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
              const decided = yield* decideAll(initialState, commands)
              yield* appendEvents(ticketId, 0, decided.events, ExpectedVersion.noStream)
              const ticket = asTicket(decided.state)
              yield* enqueueEmailsOf(org, ticket, decided.events)
              if (sendsCreateEmail)
                yield* enqueueEmail({
                  organizationId: org,
                  ticketId,
                  messageId: null,
                  kind: "ticket_created",
                  payload: {
                    public_id: ticket.publicId,
                    to: customer.email,
                    cc: ticket.externalRecipientEmails,
                    bcc: ticket.bccRecipientEmails,
                    subject: ticket.subject,
                    text: ticket.description,
                    html: ticket.descriptionHtml,
                    attachment_ids: claimed.map((a) => a.id)
                  }
                })
              return ticket
            })
          )
          .pipe(Effect.catchTag("SqlError", Effect.die))
      }).pipe(conflictAsError(0), Effect.withSpan("TicketCommands.create"))

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
      let messageId = 0
      let sendsEmail = false
      return Effect.map(
        onTicket(
          input.organizationId,
          ticketId,
          (ticket, at) =>
            Effect.gen(function* () {
              const actor = yield* actorFor(input.caller, input.role)
              const nextAssignee: UserRef | null =
                input.nextAssigneeId === null
                  ? null
                  : yield* memberOrRefuse(input.organizationId, input.nextAssigneeId, "next_assignee_id")
              messageId = yield* nextMessageId
              const claimed = yield* claim(input.organizationId, input.caller, input.attachmentIds, ticketId)
              const content = input.content === "" && contentHtml !== "" ? htmlToText(contentHtml) : input.content
              sendsEmail =
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
              return commands
            }),
          (ticket) => (sendsEmail ? enqueueMessageEmail(input.organizationId, ticket, messageId) : Effect.void)
        ),
        (ticket): WriteResult => ({ ticket, messageId })
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
        (ticket, events) => offerSurvey(organizationId, ticket, events)
      ).pipe(Effect.withSpan("TicketCommands.update"))

    /** After an associate closes a ticket: its CSAT survey, when the organization asks for one and none was sent. */
    const offerSurvey = (organizationId: number, ticket: Ticket, events: ReadonlyArray<TicketEvent>) =>
      Effect.gen(function* () {
        if (!surveyDue(ticket, events)) return
        const link = yield* csatSurveys.offer(organizationId, ticket.id)
        if (link === undefined) return
        const email = surveyEmail(ticket, link)
        yield* enqueueEmail({
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
            ...email
          }
        })
      })

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
        return yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const actor = yield* actorFor(caller, "associate")
              const source = yield* store.readStream(ticketStreamId(sourceId))
              const target = yield* store.readStream(ticketStreamId(targetId))
              const sourceState = Either.getOrThrow(loadTicket(source)).state
              const targetState = Either.getOrThrow(loadTicket(target)).state
              if (sourceState._tag !== "Ticket" || sourceState.organizationId !== String(organizationId))
                return yield* new TicketNotInOrganization({ ticketId: sourceId })
              if (targetState._tag !== "Ticket" || targetState.organizationId !== String(organizationId))
                return yield* TicketInputRefused.of("into", `Ticket ${targetId} does not exist in this organization.`)
              const handled = yield* Either.mapLeft(
                handleMerge(
                  source,
                  target,
                  new MergeTickets({ sourceTicketId: sourceId, targetTicketId: targetId, at, actor }),
                  eventId
                ),
                (error) => {
                  if (error._tag === "EventDecodeError") throw error
                  return error
                }
              )
              yield* store
                .append(handled.appends)
                .pipe(
                  Effect.catchTag("StreamClosed", (closed) =>
                    Effect.fail(
                      new StreamVersionConflict({ streamId: closed.streamId, expected: "open", actual: null })
                    )
                  )
                )
              return { source: asTicket(handled.source), target: asTicket(handled.target) }
            })
          )
          .pipe(retryOnConflict(), Effect.catchTag("SqlError", Effect.die))
      }).pipe(conflictAsError(sourceId), Effect.withSpan("TicketCommands.merge"))

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
      onTicket(organizationId, ticketId, plan, (ticket, events) =>
        enqueueEmailsOf(organizationId, ticket, events)
      ).pipe(Effect.withSpan("TicketCommands.asSystem"))

    return { create, addMessage, update, snooze, unsnooze, enrich, merge, asSystem, nextMessageId } as const
  })
}) {}
