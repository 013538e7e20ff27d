import { HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ServiceAuth } from "../Auth/ServiceAuth.js"
import type { Doc } from "../Http/Documented.js"
import * as Endpoint from "../Http/Endpoint.js"
import { Wire } from "../Http/Errors.js"
import { IntegerId, OrganizationPath, OrganizationPublicId } from "../Http/PathParams.js"
import * as Query from "../Http/Query.js"
import { MAX_SLA_DUE_WITHIN, MIN_SLA_DUE_WITHIN } from "../PresetFilters/Criteria.js"
import { MessageOrdering, TicketOrdering } from "./TicketQueries.js"
import {
  EnrichmentRequest,
  MergeRequest,
  MessageCreate,
  SnoozeRequest,
  TicketCreate,
  TicketUpdate
} from "./TicketRequests.js"
import { MessageWire, TicketWire } from "./TicketWire.js"

/** Path of endpoints under `/organizations/{organization_id}/tickets/{ticket_id}/`. */
export const TicketPath = Schema.Struct({ organization_id: OrganizationPublicId, ticket_id: IntegerId })

/** Path of `/organizations/{organization_id}/tickets/{ticket_id}/messages/{message_id}/`. */
export const MessagePath = Schema.Struct({ ...TicketPath.fields, message_id: IntegerId })

const listParam = (description: string) =>
  Schema.optional(
    Schema.Union(Schema.String, Schema.Array(Schema.String)).annotations({
      jsonSchema: { type: "array", items: { type: "string" }, description }
    })
  )

const TICKETS = "/organizations/:organization_id/tickets/"
const TICKET = `${TICKETS}:ticket_id/` as const
const MESSAGES = `${TICKET}messages/` as const

/** An action on a ticket: `POST …/tickets/{ticket_id}/{segment}/`, answering the ticket. */
const ticketAction = <const Name extends string>(name: Name, segment: string, doc: Doc) =>
  Endpoint.post(name, `${TICKET}${segment}/`, doc).setPath(TicketPath).addSuccess(TicketWire)

/** Query parameters of the ticket list: the preset-filter criteria (lists repeat the key), `filter`, `q`, spam. */
const ticketListFilters = {
  statuses: listParam("Ticket statuses (`created`, `active`, `closed`); repeat the key for several."),
  waiting_on: listParam("`customer`, `associate`, or empty for nobody."),
  priorities: listParam("`not_set`, `low`, `medium`, `high`, `urgent`."),
  classifications: listParam(
    "`no_response`, `customer_inactivity`, `resolved`, `invalid`, `other`, or empty (pending)."
  ),
  inbox_ids: listParam("Inbox ids."),
  channels: listParam("Channel types: `email`, `api`, `telegram`, `whatsapp`."),
  assignee_ids: listParam("Assignee user ids (never matches unassigned tickets)."),
  tags_include: listParam("Tag names; a ticket with at least one of them matches (case-insensitive)."),
  tags_exclude: listParam("Tag names; a ticket with any of them does not match."),
  is_snoozed: Query.param("`true`: snoozed now; `false`: not snoozed; absent: both."),
  sla_breached: Query.param(
    "`true`: tickets that breached an SLA target (`sla_breached`); `false`: the others, tickets without SLA included."
  ),
  sla_due_within: Query.param(
    `Minutes (${MIN_SLA_DUE_WITHIN}–${MAX_SLA_DUE_WITHIN}): tickets whose earliest pending SLA due time (first reply, ` +
      "next reply or resolution) is at most this far away or already past (overdue, breach recorded or not). Tickets " +
      "without SLA, closed, or with their clocks paused have no pending due time and never match."
  ),
  is_spam: Query.param("`true`: spam only. Default `false`: spam is left out."),
  filter: Query.param(
    "A custom preset filter's id: its criteria apply, combined (AND) with any criteria given here. Unknown or not visible → 400."
  ),
  q: Query.param(
    "Search: every word must start a word (case and accents ignored) of the ticket's subject, description, customer " +
      "name or e-mail, or every word one of its messages' text; or the exact `public_id`. Without `ordering`, best " +
      "matches first (the ticket's own words before its messages', then the newest activity)."
  ),
  customer_id: Query.param("Only this customer's tickets (an integer id)."),
  ...TicketOrdering.params
}

/** `/organizations/{organization_id}/tickets/`: tickets, their messages and their actions. */
export class TicketsApi extends HttpApiGroup.make("tickets")
  .add(
    Endpoint.list(
      "list",
      TICKETS,
      {
        summary: "List and search tickets",
        description:
          "Tickets of the organization matching every given criterion (the criteria of custom preset filters; within " +
          "a list any value matches). Merged-away tickets are never listed; spam only with `is_spam=true`. Ordering " +
          `fields: ${TicketOrdering.fields.join(", ")} (default \`-updated_at\`).`
      },
      TicketWire,
      ticketListFilters
    ).setPath(OrganizationPath)
  )
  .add(
    Endpoint.post("create", TICKETS, {
      summary: "Create a ticket",
      description:
        "Give the customer by `customer_id`, or by `customer_email` (and `customer_name`): an unknown address creates " +
        "the customer. `inbox_id` omitted: the default inbox. `public_id` is the organization's next number (1, 2, 3 …, " +
        "no gaps). A ticket an associate creates e-mails the customer (`delivery_status: pending`); an integration " +
        "records an inbound ticket with `created_by_role: customer` (no e-mail). `language` is detected from the " +
        "subject and description; `sentiment_analysis_class` starts `pending`."
    })
      .setPath(OrganizationPath)
      .setPayload(TicketCreate)
      .addSuccess(TicketWire, { status: 201 })
  )
  .add(
    Endpoint.patch("update", TICKET, {
      summary: "Change a ticket's status, classification, priority, assignee, tags or spam mark",
      description:
        "All changes apply together or not at all. `status: closed` needs a classification (given, or already set); " +
        "`status: active` reopens a closed ticket. Writes to a merged-away ticket → 400 naming the survivor."
    })
      .setPath(TicketPath)
      .setPayload(TicketUpdate)
      .addSuccess(TicketWire)
  )
  .add(
    Endpoint.list(
      "messages",
      MESSAGES,
      {
        summary: "List a ticket's messages",
        description: "Replies and internal notes, oldest first by default (`ordering`: created_at, id)."
      },
      MessageWire,
      MessageOrdering.params
    ).setPath(TicketPath)
  )
  .add(
    Endpoint.post("addMessage", MESSAGES, {
      summary: "Reply or add an internal note",
      description:
        "`is_visible_to_customer` (default true): a reply; false: an internal note (no CC/BCC, never e-mailed). An " +
        "associate's reply is e-mailed (`delivery_status: pending`) with its CC: the given list, else the last " +
        "customer-visible message's, else the ticket's creation-time CC; BCC only when given. Integration tokens " +
        "post the customer's replies with `role: customer`: they unsnooze (`customer_reply`) and reopen the " +
        "ticket, and a reply to a merged-away ticket goes to the survivor."
    })
      .setPath(TicketPath)
      .setPayload(MessageCreate)
      .addSuccess(MessageWire, { status: 201 })
  )
  .add(
    Endpoint.get("message", `${MESSAGES}:message_id/`, {
      summary: "Read one message of a ticket",
      description: "The reply or internal note as the message list shows it (the `Location` of a created message)."
    })
      .setPath(MessagePath)
      .addSuccess(MessageWire)
  )
  .add(
    ticketAction("snooze", "snooze", {
      summary: "Snooze a ticket until a moment",
      description: "`until` must be in the future; closed and spam tickets cannot be snoozed."
    }).setPayload(SnoozeRequest)
  )
  .add(
    ticketAction("unsnooze", "unsnooze", {
      summary: "Take a ticket out of snooze",
      description: "Sets `last_unsnooze_reason: manual`. A ticket that is not snoozed → 400."
    })
  )
  .add(
    ticketAction("resendEmail", "resend-email", {
      summary: "Send a failed create-email again",
      description:
        "Only when the create-email's delivery is `failed`: queues it again with a new Message-ID and answers the " +
        "ticket with `create_email_delivery` back to `pending` (the mail goes out after the answer; follow it there). A " +
        "create-email that is pending, sent or read, or a ticket that sent none → 409."
    })
  )
  .add(
    ticketAction("merge", "merge", {
      summary: "Merge this ticket into another",
      description:
        "This ticket's opening request (description and attachments, as a message written when and by whom the " +
        "ticket was opened) and its messages move to `into` (with `merged_from_ticket`); this ticket answers reads " +
        "with `merged_into` and refuses writes. Answers this (merged-away) ticket."
    }).setPayload(MergeRequest)
  )
  .add(
    ticketAction("enrich", "enrichment", {
      summary: "Record AI enrichment (integration tokens only)",
      description:
        "Summary, sentiment, speech-to-text transcript (audio tickets), auto-tags (added to the ticket's tags) and " +
        "language. Personal tokens → 403. A transcript sets the language when none is known yet."
    }).setPayload(EnrichmentRequest)
  )
  .add(
    Endpoint.get("get", TICKET, {
      summary: "Read a ticket",
      description:
        "Every field of the ticket (messages are listed separately). A merged-away ticket still answers, with `merged_into`."
    })
      .setPath(TicketPath)
      .addSuccess(TicketWire)
  )
  .middlewareEndpoints(ServiceAuth)
  .addError(Wire.PermissionDenied)
  .addError(Wire.Conflict)
  .addError(Wire.Unauthorized)
  .annotate(OpenApi.Title, "Tickets") {}
