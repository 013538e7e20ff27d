import { SqlClient, type Statement } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect } from "effect"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import type { Criteria } from "../PresetFilters/Criteria.js"
import { prefixTsQuery } from "../Search/SearchText.js"
import type { StoredMessageView, StoredTicketView } from "./ReadModel/StoredViews.js"
import { TicketNotInOrganization } from "./TicketErrors.js"

/** Orderings of the ticket list: newest activity first by default. */
export const TicketOrdering = Ordering.make({
  columns: {
    id: "ticket_id",
    created_at: "created_at",
    updated_at: "updated_at",
    priority: "CASE priority WHEN 'urgent' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END",
    status: "CASE status WHEN 'created' THEN 0 WHEN 'active' THEN 1 ELSE 2 END",
    snoozed_until: "snoozed_until"
  },
  defaults: ["-updated_at"],
  tieBreaker: "ticket_id"
})

/** Orderings of a ticket's messages: the conversation in order by default. */
export const MessageOrdering = Ordering.make({
  columns: { id: "message_id", created_at: "created_at" },
  defaults: ["created_at"],
  tieBreaker: "message_id"
})

/** What the ticket list selects on: the preset-filter criteria, spam, and a text query. */
export interface TicketSearch {
  /** Each set of criteria must hold (a preset filter's and the query's own, combined with AND). */
  readonly criteria: ReadonlyArray<Criteria>
  /** `true`: spam only; `false` (default): no spam. */
  readonly isSpam: boolean
  /**
   * Words that must each start a word (ignoring case and accents) of the ticket's subject, description, customer
   * name or address, or all of one of its messages; or the exact public id. Empty: no text filter.
   */
  readonly q: string
  /** Only this customer's tickets; undefined: any customer. */
  readonly customerId?: number | undefined
  /** With `q`: best matches first (then the newest activity), instead of the ordering. */
  readonly ranked?: boolean
}

/**
 * Reads of the ticket read models (`hd_tickets`, `hd_ticket_messages`), always scoped to an organization: another
 * organization's ticket is not found.
 */
export class TicketQueries extends Effect.Service<TicketQueries>()("@helpdesk/http/Tickets/TicketQueries", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The stored view of a ticket of the organization, or undefined. */
    const view = (organizationId: OrganizationId, ticketId: number): Effect.Effect<StoredTicketView | undefined> =>
      sql<{ view: StoredTicketView }>`
        SELECT view FROM hd_tickets WHERE ticket_id = ${ticketId} AND organization_id = ${organizationId}`.pipe(
        Effect.map((rows) => rows[0]?.view),
        Effect.orDie,
        withSpan("TicketQueries.view")
      )

    /** The stored view of one message of a ticket of the organization, or undefined. */
    const message = (
      organizationId: OrganizationId,
      ticketId: number,
      messageId: number
    ): Effect.Effect<StoredMessageView | undefined> =>
      sql<{ view: StoredMessageView }>`
        SELECT m.view FROM hd_ticket_messages m
        JOIN hd_tickets t ON t.ticket_id = m.ticket_id AND t.organization_id = ${organizationId}
        WHERE m.ticket_id = ${ticketId} AND m.message_id = ${messageId}`.pipe(
        Effect.map((rows) => rows[0]?.view),
        Effect.orDie
      )

    /**
     * One page of a ticket's messages. Its count is read with the ticket's row, so a ticket that is not the
     * organization's fails the count (before any page is read) without a statement of its own.
     */
    const messages = (organizationId: OrganizationId, ticketId: number, ordering: Ordering.Ordering<string>) => ({
      count: sql<{ count: string }>`
        SELECT (SELECT count(*) FROM hd_ticket_messages m WHERE m.ticket_id = t.ticket_id) AS count
        FROM hd_tickets t WHERE t.ticket_id = ${ticketId} AND t.organization_id = ${organizationId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows.length === 0
            ? Effect.fail(new TicketNotInOrganization({ ticketId }))
            : Effect.succeed(Number(rows[0]!.count))
        )
      ),
      fetch: (window: { readonly limit: number; readonly offset: number }) =>
        sql<{ view: StoredMessageView }>`
          SELECT view FROM hd_ticket_messages WHERE ticket_id = ${ticketId}
          ORDER BY ${ordering.orderBy(sql)} LIMIT ${window.limit} OFFSET ${window.offset}`.pipe(
          Effect.map((rows) => rows.map((row) => row.view)),
          Effect.orDie
        ),
      // No row when the ticket is another organization's: then `count` tells it apart from an empty page.
      fetchCounted: (window: { readonly limit: number; readonly offset: number }) =>
        sql<{ view: StoredMessageView; total: string }>`
          SELECT view, (SELECT count(*) FROM hd_ticket_messages c WHERE c.ticket_id = ${ticketId}) AS total
          FROM hd_ticket_messages
          WHERE ticket_id = ${ticketId} AND EXISTS (
            SELECT 1 FROM hd_tickets t WHERE t.ticket_id = ${ticketId} AND t.organization_id = ${organizationId})
          ORDER BY ${ordering.orderBy(sql)} LIMIT ${window.limit} OFFSET ${window.offset}`.pipe(
          Effect.map(Pagination.countedViews),
          Effect.orDie
        )
    })

    const criteriaClauses = (c: Criteria): Array<Statement.Fragment> => {
      const clauses: Array<Statement.Fragment> = []
      if (c.statuses.length > 0) clauses.push(sql`status = ANY(${[...c.statuses]}::text[])`)
      if (c.waiting_on.length > 0) clauses.push(sql`waiting_on = ANY(${[...c.waiting_on]}::text[])`)
      if (c.priorities.length > 0) clauses.push(sql`priority = ANY(${[...c.priorities]}::text[])`)
      if (c.classifications.length > 0) clauses.push(sql`classification = ANY(${[...c.classifications]}::text[])`)
      if (c.inbox_ids.length > 0) clauses.push(sql`inbox_id = ANY(${[...c.inbox_ids]}::bigint[])`)
      if (c.channels.length > 0) clauses.push(sql`channel_type = ANY(${[...c.channels]}::text[])`)
      // Never matches an unassigned ticket (assignee_id IS NULL), as the domain's `matches`.
      if (c.assignee_ids.length > 0) clauses.push(sql`assignee_id = ANY(${[...c.assignee_ids]}::bigint[])`)
      if (c.is_snoozed === true) clauses.push(sql`snoozed_until > now()`)
      if (c.is_snoozed === false) clauses.push(sql`(snoozed_until IS NULL OR snoozed_until <= now())`)
      // The SLA row is written with the view's `sla` in the same statement pair (Sla/SlaState.ts), so these agree
      // with the domain's `matches`; a ticket without SLA row has not breached and has nothing due.
      const sla = (condition: Statement.Fragment) =>
        sql`EXISTS (SELECT 1 FROM hd_ticket_sla sla WHERE sla.ticket_id = hd_tickets.ticket_id AND ${condition})`
      if (c.sla_breached === true) clauses.push(sla(sql`sla.breached`))
      if (c.sla_breached === false) clauses.push(sql`NOT ${sla(sql`sla.breached`)}`)
      // LEAST skips nulls: the earliest pending due time; null (never <=) when none is pending.
      if (c.sla_due_within !== null)
        clauses.push(
          sla(
            sql`LEAST(sla.first_reply_due_at, sla.next_reply_due_at, sla.resolution_due_at)
              <= now() + make_interval(mins => ${c.sla_due_within})`
          )
        )
      if (c.tags_include.length > 0)
        clauses.push(sql`tag_names ?| ${c.tags_include.map((n) => n.toLowerCase())}::text[]`)
      if (c.tags_exclude.length > 0)
        clauses.push(sql`NOT (tag_names ?| ${c.tags_exclude.map((n) => n.toLowerCase())}::text[])`)
      return clauses
    }

    /**
     * One page of the organization's tickets matching `search`. Merged-away tickets are never listed (their
     * conversation lives on in the survivor); spam only when asked for.
     */
    const list = (organizationId: OrganizationId, search: TicketSearch, ordering: Ordering.Ordering<string>) => {
      const clauses: Array<Statement.Fragment> = [
        sql`organization_id = ${organizationId}`,
        sql`merged_into IS NULL`,
        sql`is_spam = ${search.isSpam}`,
        ...search.criteria.flatMap(criteriaClauses)
      ]
      if (search.customerId !== undefined) clauses.push(sql`customer_id = ${search.customerId}`)
      const tsquery = prefixTsQuery(search.q)
      // A ticket matches on its own words or on one of its messages' (decision 0661); both sides are GIN-indexed.
      const query = sql`to_tsquery('simple', ${tsquery ?? ""})`
      const messageMatch = sql`
        SELECT 1 FROM hd_ticket_messages m
        WHERE m.ticket_id = hd_tickets.ticket_id AND to_tsvector('simple', m.search_text) @@ ${query}`
      if (tsquery !== undefined)
        clauses.push(
          sql`(to_tsvector('simple', search_text) @@ ${query} OR public_id = ${search.q.trim()} OR EXISTS (${messageMatch}))`
        )
      const where = sql.and(clauses)
      // The ticket's own words weigh twice a message's; an exact public id comes first.
      const orderBy =
        tsquery !== undefined && search.ranked === true
          ? sql`(public_id = ${search.q.trim()}) DESC,
              2 * ts_rank(to_tsvector('simple', search_text), ${query}) + coalesce((
                SELECT max(ts_rank(to_tsvector('simple', m.search_text), ${query})) FROM hd_ticket_messages m
                WHERE m.ticket_id = hd_tickets.ticket_id AND to_tsvector('simple', m.search_text) @@ ${query}
              ), 0) DESC, updated_at DESC, ticket_id DESC`
          : ordering.orderBy(sql)
      return {
        count: sql<{ count: string }>`SELECT count(*) AS count FROM hd_tickets WHERE ${where}`.pipe(
          Effect.map((rows) => Number(rows[0]!.count)),
          Effect.orDie
        ),
        fetch: (window: { readonly limit: number; readonly offset: number }) =>
          sql<{ view: StoredTicketView }>`
            SELECT view FROM hd_tickets WHERE ${where}
            ORDER BY ${orderBy} LIMIT ${window.limit} OFFSET ${window.offset}`.pipe(
            Effect.map((rows) => rows.map((row) => row.view)),
            Effect.orDie
          ),
        fetchCounted: (window: { readonly limit: number; readonly offset: number }) =>
          sql<{ view: StoredTicketView; total: string }>`
            SELECT view, (SELECT count(*) FROM hd_tickets WHERE ${where}) AS total FROM hd_tickets WHERE ${where}
            ORDER BY ${orderBy} LIMIT ${window.limit} OFFSET ${window.offset}`.pipe(
            Effect.map(Pagination.countedViews),
            Effect.orDie
          )
      }
    }

    return { view, message, messages, list } as const
  })
}) {}
