import {
  type Actor,
  AddMessage,
  type OrganizationId,
  type Priority,
  RecordLanguage,
  type Sender,
  systemActor,
  type Ticket,
  type TicketCommand,
  TicketMergedAway,
  type UserRef
} from "@helpdesk/domain"
import { Effect } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { htmlTooDeep, htmlToText, sanitizeHtml } from "../Http/Html.js"
import { detectLanguage } from "../Language/LanguageDetection.js"
import { withSpan } from "../Observability/Spans.js"
import { TicketInputRefused } from "./TicketErrors.js"
import { TicketIds } from "./TicketIds.js"
import { repliesByEmail, TicketPipeline, type WriteRole } from "./TicketPipeline.js"

/** A reply or internal note, validated for shape. `null` recipient lists mean "not set on this message". */
export interface AddMessageInput {
  readonly organizationId: OrganizationId
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

/** The state after a write, and the id of the message it added (for message writes). */
export interface WriteResult {
  readonly ticket: Ticket
  readonly messageId: number | null
}

/** Use case: adding a reply or internal note (with the language of the customer's first words, and its e-mail). */
export class TicketMessages extends Effect.Service<TicketMessages>()("@helpdesk/http/Tickets/TicketMessages", {
  effect: Effect.gen(function* () {
    const { actorFor, memberOrRefuse, claim, onTicketPlanned } = yield* TicketPipeline
    const { nextMessageId } = yield* TicketIds

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
        onTicketPlanned(input.organizationId, ticketId, (ticket, at) =>
          Effect.gen(function* () {
            const actor = yield* actorFor(input.caller, input.role)
            const nextAssignee: UserRef | null =
              input.nextAssigneeId === null
                ? null
                : yield* memberOrRefuse(input.organizationId, input.nextAssigneeId, "NextAssigneeNotMember")
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
          })
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
          ? Effect.fail(TicketInputRefused.because({ _tag: "HtmlTooDeep", of: "message" }))
          : attempt(input.ticketId, 0)
      ).pipe(withSpan("TicketCommands.addMessage"))
    }

    return { addMessage } as const
  }),
  dependencies: [TicketPipeline.Default, TicketIds.Default]
}) {}
