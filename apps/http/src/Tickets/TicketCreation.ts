import { SqlClient } from "@effect/sql"
import {
  AddMessage,
  CreateTicket,
  type OrganizationId,
  type Origin,
  type Priority,
  RecordLanguage,
  systemActor,
  type TicketCommand
} from "@helpdesk/domain"
import { DateTime, Effect } from "effect"
import type { Caller } from "../Auth/CurrentCaller.js"
import { AutoReplies } from "../AutoReplies/AutoReplies.js"
import { htmlTooDeep, htmlToText, sanitizeHtml } from "../Http/Html.js"
import { detectLanguage } from "../Language/LanguageDetection.js"
import { withSpan } from "../Observability/Spans.js"
import { TicketDirectory } from "./TicketDirectory.js"
import { TicketInputRefused } from "./TicketErrors.js"
import { TicketIds } from "./TicketIds.js"
import { asTicket, repliesByEmail, TicketPipeline, type WriteRole } from "./TicketPipeline.js"

/** How a new ticket names its customer. */
export type CustomerChoice =
  | { readonly _tag: "ById"; readonly id: number }
  | { readonly _tag: "ByEmail"; readonly email: string; readonly name: string }

/** A ticket creation request, validated for shape. */
export interface CreateTicketInput {
  readonly organizationId: OrganizationId
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

/** Use case: creating a ticket, with its language and (for a customer's ticket) its inbox's auto-reply. */
export class TicketCreation extends Effect.Service<TicketCreation>()("@helpdesk/http/Tickets/TicketCreation", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { actorFor, memberOrRefuse, tagsOrRefuse, claim, run } = yield* TicketPipeline
    const { nextMessageId, nextTicketIds } = yield* TicketIds
    const directory = yield* TicketDirectory
    const autoReplies = yield* AutoReplies

    /** Creates a ticket (see {@link CreateTicketInput}); returns its state. */
    const create = (input: CreateTicketInput) =>
      Effect.gen(function* () {
        if (htmlTooDeep(input.descriptionHtml))
          return yield* TicketInputRefused.because({ _tag: "HtmlTooDeep", of: "description" })
        // Stored, returned and mailed: only the sanitised HTML (outside the transaction: it may take a while). An
        // audio ticket keeps the caller's for the domain to refuse: it takes no HTML at all.
        const descriptionHtml = input.kind === "audio" ? input.descriptionHtml : sanitizeHtml(input.descriptionHtml)
        if (input.kind === "text" && input.description === "" && input.descriptionHtml !== "" && descriptionHtml === "")
          return yield* TicketInputRefused.because({ _tag: "DescriptionHtmlUnsafe" })
        const at = yield* DateTime.now
        const org = input.organizationId
        return yield* sql
          .withTransaction(
            Effect.gen(function* () {
              const { inboxId, customer: customerInput } = input
              const inbox =
                inboxId === undefined
                  ? yield* directory.defaultInbox(org)
                  : yield* Effect.filterOrFail(
                      directory.inbox(org, inboxId),
                      (found) => found !== undefined,
                      () => TicketInputRefused.because({ _tag: "InboxNotInOrganization", inboxId })
                    )
              const customer =
                customerInput._tag === "ById"
                  ? yield* Effect.filterOrFail(
                      directory.customer(org, customerInput.id),
                      (found) => found !== undefined,
                      () =>
                        TicketInputRefused.because({ _tag: "CustomerNotInOrganization", customerId: customerInput.id })
                    )
                  : yield* directory.customerByEmail(org, customerInput.email, customerInput.name)
              const tags = yield* tagsOrRefuse(org, input.tagIds)
              const assignee =
                input.assigneeId === null ? null : yield* memberOrRefuse(org, input.assigneeId, "AssigneeNotMember")
              const actor = yield* actorFor(input.caller, input.createdByRole)
              const { ticketId, publicId } = yield* nextTicketIds(org)
              const claimed = yield* claim(org, input.caller, input.attachmentIds, ticketId)
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
                  organizationId: org,
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
              // A spam customer gets no automatic answer: replying would confirm the address to the sender.
              if (actor.role === "customer" && !customer.isSpam) {
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
                plan: () => Effect.succeed({ commands, result: undefined })
              })
              return asTicket(created.state)
            })
          )
          .pipe(Effect.catchTag("SqlError", Effect.die))
      }).pipe(withSpan("TicketCommands.create"))

    return { create } as const
  }),
  dependencies: [TicketPipeline.Default, TicketIds.Default, TicketDirectory.Default, AutoReplies.Default]
}) {}
