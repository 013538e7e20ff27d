import { type DateTime, Schema } from "effect"
import { isSnoozedAt } from "../ticket/State.js"
import { Classification, Priority, TicketStatus, WaitingOn } from "../ticket/Values.js"
import type { TicketView } from "../ticket/Views.js"

const optionalList = <S extends Schema.Schema.Any>(item: S) => Schema.optional(Schema.Array(item))

/**
 * The `criteria` of a custom preset filter. An absent or empty list puts no constraint on its field;
 * `is_snoozed` absent or `null` puts none either.
 */
export const PresetFilterCriteria = Schema.Struct({
  tags_include: optionalList(Schema.String),
  tags_exclude: optionalList(Schema.String),
  assignee_ids: optionalList(Schema.Int),
  statuses: optionalList(TicketStatus),
  waiting_on: optionalList(WaitingOn),
  inbox_ids: optionalList(Schema.Int),
  channels: optionalList(Schema.String),
  classifications: optionalList(Classification),
  priorities: optionalList(Priority),
  is_snoozed: Schema.optional(Schema.NullOr(Schema.Boolean)),
  sla_breached: Schema.optional(Schema.NullOr(Schema.Boolean)),
  /** Minutes: the ticket's earliest pending SLA due time is at most this far from now (or already past). */
  sla_due_within: Schema.optional(Schema.NullOr(Schema.Int))
})
export type PresetFilterCriteria = typeof PresetFilterCriteria.Type

const constrains = <A>(list: ReadonlyArray<A> | undefined): list is ReadonlyArray<A> =>
  list !== undefined && list.length > 0

/**
 * The earliest due instant (epoch ms) among the ticket's pending SLA targets (first reply, next reply,
 * resolution); `null` when none is pending: no policy, every target met or unset, the clocks paused, or the
 * ticket closed (the view's due times are then `null`). A missed target still pending keeps its past instant.
 */
export const earliestSlaDue = (view: TicketView): number | null => {
  const sla = view.sla
  if (sla === undefined) return null
  let earliest: number | null = null
  for (const due of [sla.firstReplyDueAt, sla.nextReplyDueAt, sla.resolutionDueAt]) {
    if (due === null) continue
    const at = Date.parse(due)
    if (earliest === null || at < earliest) earliest = at
  }
  return earliest
}

const MINUTE_MS = 60_000

const tagNames = (view: TicketView): ReadonlySet<string> => new Set(view.tags.map((t) => t.name.toLowerCase()))

/**
 * Whether a ticket matches a saved filter at `now`. Every given criterion must hold (AND); within a
 * list, any value matches (OR). Tags compare by name, case-insensitively: `tags_include` needs at least
 * one of the names, `tags_exclude` none of them. `assignee_ids` never matches an unassigned ticket.
 * Snoozed means `snoozed_until` > `now`. `sla_breached` compares the view's `sla.breached` (a ticket without SLA
 * has not breached); `sla_due_within` needs {@link earliestSlaDue} at or before `now` + the minutes, so overdue
 * tickets match too. See docs/decisions/0205-preset-filter-matching.md and 0604-sla-preset-filter-criteria.md.
 */
export const matches = (criteria: PresetFilterCriteria, view: TicketView, now: DateTime.Utc): boolean => {
  if (constrains(criteria.statuses) && !criteria.statuses.includes(view.status)) return false
  if (constrains(criteria.waiting_on) && !criteria.waiting_on.includes(view.waitingOn)) return false
  if (constrains(criteria.priorities) && !criteria.priorities.includes(view.priority)) return false
  if (constrains(criteria.classifications) && !criteria.classifications.includes(view.classification)) return false
  if (constrains(criteria.inbox_ids) && !criteria.inbox_ids.includes(view.inbox.id)) return false
  if (constrains(criteria.channels) && !criteria.channels.includes(view.channel.type)) return false
  if (
    constrains(criteria.assignee_ids) &&
    (view.assignee === null || !criteria.assignee_ids.includes(view.assignee.id))
  )
    return false
  if (criteria.is_snoozed !== undefined && criteria.is_snoozed !== null) {
    if (isSnoozedAt(view.snoozedUntil, now) !== criteria.is_snoozed) return false
  }
  if (criteria.sla_breached !== undefined && criteria.sla_breached !== null) {
    if ((view.sla?.breached ?? false) !== criteria.sla_breached) return false
  }
  if (criteria.sla_due_within !== undefined && criteria.sla_due_within !== null) {
    const due = earliestSlaDue(view)
    if (due === null || due > now.epochMillis + criteria.sla_due_within * MINUTE_MS) return false
  }
  if (constrains(criteria.tags_include) || constrains(criteria.tags_exclude)) {
    const names = tagNames(view)
    if (constrains(criteria.tags_include) && !criteria.tags_include.some((n) => names.has(n.toLowerCase())))
      return false
    if (constrains(criteria.tags_exclude) && criteria.tags_exclude.some((n) => names.has(n.toLowerCase()))) return false
  }
  return true
}
