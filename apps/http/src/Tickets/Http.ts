import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { messageView, type Ticket, ticketView } from "@helpdesk/domain"
import { Effect, Layer } from "effect"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Auth/CurrentCaller.js"
import { OrganizationAccess } from "../Auth/OrganizationAccess.js"
import type { Action } from "../Auth/Permissions.js"
import { NotFound, ValidationError } from "../Http/Errors.js"
import * as Fields from "../Http/Fields.js"
import { absoluteUrl } from "../Http/Links.js"
import * as Pagination from "../Http/Pagination.js"
import { integerIdOrNotFound, parseIntegerId } from "../Http/PathParams.js"
import * as RequestBody from "../Http/RequestBody.js"
import { type Criteria, validateCriteria } from "../PresetFilters/Criteria.js"
import { PresetFilters } from "../PresetFilters/PresetFilters.js"
import { storedSlaOf } from "../Sla/SlaState.js"
import { collectingSlaViews } from "../Sla/SlaViewsWritten.js"
import { encodeMessageView, encodeTicketView } from "./ReadModel/StoredViews.js"
import { TicketCommands } from "./TicketCommands.js"
import { type TicketWriteError, toHttpError } from "./TicketHttpErrors.js"
import type { WriteRole } from "./TicketPipeline.js"
import { MessageOrdering, TicketOrdering, TicketQueries } from "./TicketQueries.js"
import * as TicketRequests from "./TicketRequests.js"
import { TicketResponses } from "./TicketResponses.js"
import { TicketServicesLive } from "./TicketServices.js"
import { renderMessage, renderTicket } from "./TicketWire.js"

const CRITERIA_PARAMS = [
  "statuses",
  "waiting_on",
  "priorities",
  "classifications",
  "inbox_ids",
  "channels",
  "assignee_ids",
  "tags_include",
  "tags_exclude"
] as const

const SCALAR_CRITERIA_PARAMS = ["is_snoozed", "sla_breached", "sla_due_within"] as const

const json = (body: unknown) => HttpServerResponse.unsafeJson(body)

const CUSTOMER_MISSING = "A ticket needs a customer: give customer_id, or customer_email (and customer_name)."

/** Whether a body field was given at all (a malformed value is given: its field reports why). */
const given = (body: Readonly<Record<string, unknown>>, field: string) => {
  const value = Object.hasOwn(body, field) ? body[field] : undefined
  return value !== undefined && value !== null && value !== ""
}

/** Whether a text field is missing or blank. */
const blank = (body: Readonly<Record<string, unknown>>, field: string) => {
  const value = Object.hasOwn(body, field) ? body[field] : undefined
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "")
}

/** Ticket creation's rules across fields, reported together with every malformed field (docs/api-conventions.md). */
const ticketCreationRules: RequestBody.BodyRule = (body) => {
  const broken: Array<{ path: ReadonlyArray<string>; message: string }> = []
  const kind = Object.hasOwn(body, "kind") ? body.kind : undefined
  const audio = typeof kind === "string" && kind.trim() === "audio"
  if (!audio && blank(body, "description") && blank(body, "description_html"))
    broken.push({ path: ["description"], message: "A text ticket needs a description (or description_html)." })
  const byId = given(body, "customer_id")
  const byEmail = given(body, "customer_email")
  if (byId && byEmail)
    broken.push({
      path: ["customer_id"],
      message: "Give either customer_id or customer_email (with customer_name), not both."
    })
  if (!byId && !byEmail) broken.push({ path: ["customer_id"], message: CUSTOMER_MISSING })
  return broken
}

/** `201 Created` with a `Location` header (the body is rendered already, see `TicketWire`); never fails. */
const createdAt = (body: unknown, location: string) =>
  Effect.map(absoluteUrl(location), (url) =>
    HttpServerResponse.unsafeJson(body, { status: 201, headers: { location: url } })
  )

/** Handlers of the `tickets` group. */
export const TicketsLive = HttpApiBuilder.group(Api, "tickets", (handlers) =>
  Effect.gen(function* () {
    const access = yield* OrganizationAccess
    const queries = yield* TicketQueries
    const commands = yield* TicketCommands
    const presetFilters = yield* PresetFilters

    const { downloadUrls, ticket: ticketResponse } = yield* TicketResponses

    const sql = yield* SqlClient.SqlClient
    /**
     * Runs a ticket write and answers the ticket's view: the domain's state after it, with the SLA view its transaction
     * wrote. Only a write that decided nothing reads the read model's (decision 0813).
     */
    const writtenView = <E, R>(write: Effect.Effect<Ticket, E, R>) =>
      Effect.gen(function* () {
        const [ticket, slaViews] = yield* collectingSlaViews(write)
        const sla =
          slaViews.get(ticket) ?? (yield* storedSlaOf(ticket.id).pipe(Effect.provideService(SqlClient.SqlClient, sql)))
        return encodeTicketView(sla === undefined ? ticketView(ticket) : { ...ticketView(ticket), sla })
      })

    const writeScope = (organizationId: string, ticketSegment: string, action: Action = "tickets.write") =>
      Effect.gen(function* () {
        const scope = yield* access.require(organizationId, action)
        const ticketId = yield* integerIdOrNotFound(ticketSegment)
        return { scope, ticketId, caller: yield* CurrentCaller }
      })

    /**
     * A ticket action: the write scope (403/404 first), then the body, then the command (its refusal as the HTTP
     * error); answers the ticket as the command left it.
     */
    const act = <B, E, R>(
      path: { readonly organization_id: string; readonly ticket_id: string },
      body: Effect.Effect<B, E, R>,
      run: (
        target: Effect.Effect.Success<ReturnType<typeof writeScope>>,
        body: B
      ) => Effect.Effect<Ticket, TicketWriteError>,
      action: Action = "tickets.write"
    ) =>
      Effect.gen(function* () {
        const target = yield* writeScope(path.organization_id, path.ticket_id, action)
        const input = yield* body
        return yield* ticketResponse(yield* writtenView(run(target, input).pipe(Effect.mapError(toHttpError))))
      })

    const roleOf = (requested: WriteRole | undefined, field: string) =>
      Effect.gen(function* () {
        const caller = yield* CurrentCaller
        const role = requested ?? "associate"
        if (role === "customer" && caller._tag !== "Integration")
          return yield* ValidationError.field(
            field,
            "Only integration tokens write on behalf of the customer; people write as associates."
          )
        return role
      })

    const criteriaFromQuery = (request: HttpServerRequest.HttpServerRequest) => {
      const params = new URL(request.url, "http://localhost").searchParams
      const raw: Record<string, unknown> = {}
      for (const name of CRITERIA_PARAMS) if (params.has(name)) raw[name] = params.getAll(name)
      for (const name of SCALAR_CRITERIA_PARAMS) {
        const value = params.get(name)
        if (value !== null) raw[name] = value
      }
      const result = validateCriteria(raw)
      return result.ok ? Effect.succeed(result.criteria) : Effect.fail(new ValidationError({ errors: result.errors }))
    }

    return handlers
      .handle("list", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tickets.read")
          const caller = yield* CurrentCaller
          const page = yield* Pagination.parse(urlParams)
          const ordering = yield* TicketOrdering.parse(urlParams.ordering)
          const criteria: Array<Criteria> = [yield* criteriaFromQuery(request)]
          if (urlParams.filter !== undefined && urlParams.filter.trim() !== "") {
            const viewer = caller._tag === "Person" ? { _tag: "Person" as const, userId: caller.userId } : caller
            const filter = yield* presetFilters
              .findVisible(scope.organizationId, viewer, urlParams.filter.trim())
              .pipe(
                Effect.catchTag("PresetFilterNotFound", () =>
                  ValidationError.field("filter", "No custom preset filter with this id is visible to you.")
                )
              )
            criteria.push(filter.criteria)
          }
          let isSpam = false
          if (urlParams.is_spam !== undefined && urlParams.is_spam !== "") {
            const parsed = Fields.parseBooleanText(urlParams.is_spam)
            if (parsed === undefined)
              return yield* ValidationError.field("is_spam", "Must be a valid boolean (true/false, 1/0 or yes/no).")
            isSpam = parsed
          }
          let customerId: number | undefined
          if (urlParams.customer_id !== undefined && urlParams.customer_id !== "") {
            customerId = parseIntegerId(urlParams.customer_id.trim())
            if (customerId === undefined)
              return yield* ValidationError.field("customer_id", "A valid integer is required.")
          }
          const ranked = urlParams.ordering === undefined || urlParams.ordering.trim() === ""
          const found = yield* Pagination.paginate(
            request,
            page,
            queries.list(scope.organizationId, { criteria, isSpam, q: urlParams.q ?? "", customerId, ranked }, ordering)
          )
          const urls = yield* downloadUrls(found.results)
          return json({ ...found, results: found.results.map((view) => renderTicket(view, urls)) })
        })
      )
      .handleRaw("create", ({ path, request }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tickets.write")
          const caller = yield* CurrentCaller
          const body = yield* RequestBody.decodeChecked(request, TicketRequests.TicketCreate, ticketCreationRules)
          const role = yield* roleOf(body.created_by_role, "created_by_role")
          const kind = body.kind ?? "text"
          const description = body.description ?? ""
          const descriptionHtml = body.description_html ?? ""
          // Checked with every other field by `ticketCreationRules`; this narrows the type.
          if (body.customer_id === undefined && body.customer_email === undefined)
            return yield* ValidationError.field("customer_id", CUSTOMER_MISSING)
          const origin = body.origin ?? "api"
          const view = yield* writtenView(
            commands.create({
              organizationId: scope.organizationId,
              caller,
              createdByRole: role,
              subject: body.subject,
              description,
              descriptionHtml,
              kind,
              inboxId: body.inbox_id ?? undefined,
              customer:
                body.customer_id !== undefined
                  ? { _tag: "ById", id: body.customer_id }
                  : { _tag: "ByEmail", email: body.customer_email!, name: body.customer_name ?? "" },
              origin,
              channel: { type: body.channel_type ?? origin, connectionId: body.channel_connection_id ?? null },
              externalRecipientEmails: dedupe(body.external_recipient_emails ?? []),
              bccRecipientEmails: dedupe(body.bcc_recipient_emails ?? []),
              tagIds: body.tags ?? [],
              priority: body.priority ?? "not_set",
              assigneeId: body.assignee_id ?? null,
              attachmentIds: body.attachment_ids ?? []
            })
          ).pipe(Effect.mapError(toHttpError))
          const urls = yield* downloadUrls([view])
          return yield* createdAt(renderTicket(view, urls), `/organizations/${scope.publicId}/tickets/${view.id}/`)
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tickets.read")
          const ticketId = yield* integerIdOrNotFound(path.ticket_id)
          const view = yield* queries.view(scope.organizationId, ticketId)
          if (view === undefined) return yield* new NotFound()
          return yield* ticketResponse(view)
        })
      )
      .handleRaw("update", ({ path, request }) =>
        Effect.gen(function* () {
          const { scope, ticketId, caller } = yield* writeScope(path.organization_id, path.ticket_id)
          const body = yield* RequestBody.decode(request, TicketRequests.TicketUpdate)
          const view = yield* writtenView(
            commands.update(scope.organizationId, caller, ticketId, {
              ...(body.status !== undefined ? { status: body.status } : {}),
              ...(body.classification !== undefined ? { classification: body.classification } : {}),
              ...(body.priority !== undefined ? { priority: body.priority } : {}),
              ...(body.waiting_on !== undefined ? { waitingOn: body.waiting_on } : {}),
              ...(body.assignee_id !== undefined ? { assigneeId: body.assignee_id } : {}),
              ...(body.tags !== undefined ? { tagIds: body.tags } : {}),
              ...(body.is_spam !== undefined ? { isSpam: body.is_spam } : {})
            })
          ).pipe(Effect.mapError(toHttpError))
          return yield* ticketResponse(view)
        })
      )
      .handle("messages", ({ path, request, urlParams }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tickets.read")
          const ticketId = yield* integerIdOrNotFound(path.ticket_id)
          const page = yield* Pagination.parse(urlParams)
          const ordering = yield* MessageOrdering.parse(urlParams.ordering)
          const found = yield* Pagination.paginate(
            request,
            page,
            queries.messages(scope.organizationId, ticketId, ordering)
          ).pipe(Effect.catchTag("TicketNotInOrganization", () => new NotFound()))
          const urls = yield* downloadUrls(found.results)
          return json({ ...found, results: found.results.map((view) => renderMessage(view, urls)) })
        })
      )
      .handle("message", ({ path }) =>
        Effect.gen(function* () {
          const scope = yield* access.require(path.organization_id, "tickets.read")
          const ticketId = yield* integerIdOrNotFound(path.ticket_id)
          const messageId = parseIntegerId(path.message_id)
          if (messageId === undefined) return yield* new NotFound()
          const view = yield* queries.message(scope.organizationId, ticketId, messageId)
          if (view === undefined) return yield* new NotFound()
          const urls = yield* downloadUrls([view])
          return json(renderMessage(view, urls))
        })
      )
      .handleRaw("addMessage", ({ path, request }) =>
        Effect.gen(function* () {
          const { scope, ticketId, caller } = yield* writeScope(path.organization_id, path.ticket_id)
          const body = yield* RequestBody.decode(request, TicketRequests.MessageCreate)
          const role = yield* roleOf(body.role, "role")
          const result = yield* commands
            .addMessage({
              organizationId: scope.organizationId,
              caller,
              ticketId,
              role,
              content: body.content ?? "",
              contentHtml: body.content_html ?? "",
              isVisibleToCustomer: body.is_visible_to_customer ?? true,
              externalRecipientEmails:
                body.external_recipient_emails === undefined || body.external_recipient_emails === null
                  ? null
                  : dedupe(body.external_recipient_emails),
              bccRecipientEmails:
                body.bcc_recipient_emails === undefined || body.bcc_recipient_emails === null
                  ? null
                  : dedupe(body.bcc_recipient_emails),
              nextAssigneeId: body.next_assignee_id ?? null,
              nextPriority: body.next_priority ?? null,
              nextAction: body.next_action ?? "",
              attachmentIds: body.attachment_ids ?? []
            })
            .pipe(Effect.mapError(toHttpError))
          const ticket = result.ticket
          const message = ticket.messages.find((m) => m.id === result.messageId)!
          const view = encodeMessageView(messageView(ticket.id, message))
          const urls = yield* downloadUrls([view])
          return yield* createdAt(
            renderMessage(view, urls),
            `/organizations/${scope.publicId}/tickets/${ticket.id}/messages/${message.id}/`
          )
        })
      )
      .handleRaw("snooze", ({ path, request }) =>
        act(path, RequestBody.decode(request, TicketRequests.SnoozeRequest), ({ scope, caller, ticketId }, body) =>
          commands.snooze(scope.organizationId, caller, ticketId, body.until)
        )
      )
      .handle("unsnooze", ({ path }) =>
        act(path, Effect.void, ({ scope, caller, ticketId }) =>
          commands.unsnooze(scope.organizationId, caller, ticketId)
        )
      )
      .handle("resendEmail", ({ path }) =>
        act(path, Effect.void, ({ scope, caller, ticketId }) =>
          commands.resendCreationEmail(scope.organizationId, caller, ticketId)
        )
      )
      .handleRaw("merge", ({ path, request }) =>
        act(path, RequestBody.decode(request, TicketRequests.MergeRequest), ({ scope, caller, ticketId }, body) =>
          Effect.map(commands.merge(scope.organizationId, caller, ticketId, body.into), (merged) => merged.source)
        )
      )
      .handleRaw("enrich", ({ path, request }) =>
        act(
          path,
          RequestBody.decode(request, TicketRequests.EnrichmentRequest),
          ({ scope, ticketId }, body) =>
            commands.enrich(scope.organizationId, ticketId, {
              ...(body.summary !== undefined ? { summary: body.summary } : {}),
              ...(body.sentiment_analysis_class !== undefined ? { sentiment: body.sentiment_analysis_class } : {}),
              ...(body.transcript !== undefined ? { transcript: body.transcript } : {}),
              ...(body.tags !== undefined ? { addTagIds: body.tags } : {}),
              ...(body.language !== undefined ? { language: body.language } : {})
            }),
          "tickets.enrich"
        )
      )
  })
).pipe(Layer.provide([OrganizationAccess.Default, PresetFilters.Default, TicketServicesLive]))

const dedupe = (emails: ReadonlyArray<string>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  return emails.filter((email) => {
    const key = email.toLowerCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
