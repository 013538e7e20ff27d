import { DateTime } from "effect"
import type { TicketEvent } from "./Events.js"
import { evolve } from "./Evolve.js"
import type { TicketState } from "./State.js"
import type { UserRef } from "./Values.js"

/*
 * A ticket's history for people: what each event changed, old → new. The changes are not restated per event
 * type: they are the difference `evolve` makes to a few fields, so the history cannot disagree with the fold.
 */

/** A value a change shows: a scalar, a list of names, or a small reference. */
export type ChangeValue =
  | string
  | number
  | boolean
  | null
  | ReadonlyArray<string>
  | { readonly id: number; readonly name: string; readonly email: string }
  | { readonly id: number; readonly publicId: string }

/** One field an event changed, with its value before and after (wire field names). */
export interface FieldChange {
  readonly field: TrackedField
  readonly from: ChangeValue
  readonly to: ChangeValue
}

/** What an event did, for people: a one-line summary and the fields it changed. */
export interface ChangeSummary {
  readonly summary: string
  readonly changes: ReadonlyArray<FieldChange>
}

/** The fields a history shows changes of, in the order they are listed. */
export const TRACKED_FIELDS = [
  "status",
  "classification",
  "priority",
  "waiting_on",
  "assignee",
  "tags",
  "is_spam",
  "snoozed_until",
  "merged_into",
  "sentiment",
  "language",
  "csat_rating"
] as const
export type TrackedField = (typeof TRACKED_FIELDS)[number]

const userValue = (user: UserRef | null): ChangeValue =>
  user === null ? null : { id: user.id, name: user.name, email: user.email }

/** A ticket's tracked fields (all `null` before it exists). */
const trackedValues = (state: TicketState): Record<TrackedField, ChangeValue> =>
  state._tag === "NoTicket"
    ? {
        status: null,
        classification: null,
        priority: null,
        waiting_on: null,
        assignee: null,
        tags: null,
        is_spam: null,
        snoozed_until: null,
        merged_into: null,
        sentiment: null,
        language: null,
        csat_rating: null
      }
    : {
        status: state.status,
        classification: state.classification,
        priority: state.priority,
        waiting_on: state.waitingOn,
        assignee: userValue(state.assignee),
        tags: state.tags.map((tag) => tag.name),
        is_spam: state.isSpam,
        snoozed_until: state.snoozedUntil === null ? null : DateTime.formatIso(state.snoozedUntil),
        merged_into:
          state.mergedInto === null ? null : { id: state.mergedInto.id, publicId: state.mergedInto.publicId },
        sentiment: state.sentiment,
        language: state.language,
        csat_rating: state.csatResponse === null ? null : state.csatResponse.rating
      }

const sameValue = (a: ChangeValue, b: ChangeValue): boolean => {
  if (a === b) return true
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((x, i) => x === b[i])
  }
  return (a as { id: number }).id === (b as { id: number }).id
}

/** The tracked fields that differ between two states, in {@link TRACKED_FIELDS} order. */
export const fieldChanges = (before: TicketState, after: TicketState): ReadonlyArray<FieldChange> => {
  if (before._tag === "NoTicket") return []
  const from = trackedValues(before)
  const to = trackedValues(after)
  return TRACKED_FIELDS.filter((field) => !sameValue(from[field], to[field])).map((field) => ({
    field,
    from: from[field],
    to: to[field]
  }))
}

const isNameList = (value: ChangeValue): value is ReadonlyArray<string> => Array.isArray(value)

/** A value as a person reads it: empty and `null` as "none", people by name, lists comma-separated. */
export const showValue = (value: ChangeValue): string => {
  if (value === null || value === "") return "none"
  if (typeof value === "boolean") return value ? "yes" : "no"
  if (typeof value === "string" || typeof value === "number") return String(value).replaceAll("_", " ")
  if (isNameList(value)) return value.length === 0 ? "none" : value.join(", ")
  if ("publicId" in value) return `#${value.publicId}`
  return value.name !== "" ? value.name : value.email
}

const showField = (field: TrackedField): string => field.replaceAll("_", " ")

const who = (user: UserRef | null): string => (user === null ? "" : ` by ${user.name !== "" ? user.name : user.email}`)

/** What the event is, in a few words (its changes follow in the summary). */
const headline = (event: TicketEvent): string => {
  switch (event._tag) {
    case "TicketCreated":
      return `Ticket #${event.publicId} created: ${JSON.stringify(event.subject)}`
    case "TicketTranscriptRecorded":
      return "Transcript recorded"
    case "TicketActivated":
      return "First reply to the customer"
    case "TicketClosed":
      return `Closed as ${showValue(event.classification)}`
    case "TicketReopened":
      return event.reason === "customer_reply" ? "Reopened by the customer's reply" : "Reopened"
    case "TicketClassified":
      return "Classification changed"
    case "TicketPriorityChanged":
      return "Priority changed"
    case "TicketWaitingOnChanged":
      return "Waiting on changed"
    case "TicketAssigned":
      return event.assignee === null ? "Unassigned" : `Assigned to ${showValue(userValue(event.assignee))}`
    case "TicketTagsChanged":
      return "Tags changed"
    case "TicketMarkedSpam":
      return "Marked as spam"
    case "TicketUnmarkedSpam":
      return "No longer marked as spam"
    case "TicketCsatRecorded":
      return `Customer rated ${event.rating}/5`
    case "TicketSummarized":
      return "Summary updated"
    case "TicketSentimentAnalyzed":
      return "Sentiment analysed"
    case "TicketLanguageDetected":
      return "Language detected"
    case "MessageAdded": {
      const m = event.message
      if (!m.isVisibleToCustomer) return `Internal note${who(m.author)}`
      if (m.role === "customer") return "Message from the customer"
      if (m.role === "system") return "Automatic message to the customer"
      return `Reply to the customer${who(m.author)}`
    }
    case "TicketSnoozed":
      return `Snoozed until ${DateTime.formatIso(event.until)}`
    case "TicketUnsnoozed":
      return event.reason === "timer"
        ? "Snooze ended"
        : event.reason === "customer_reply"
          ? "Unsnoozed by the customer's reply"
          : "Unsnoozed"
    case "TicketMergedInto":
      return `Merged into #${event.into.publicId}`
    case "TicketMergedFrom":
      return `Ticket #${event.from.publicId} merged into this one`
    case "CreateEmailDeliveryReported":
      return `Creation e-mail ${event.status}${event.reason === "" ? "" : `: ${event.reason}`}`
    case "TicketSlaBreached":
      return `SLA ${event.target.replace("_", " ")} target missed (due ${DateTime.formatIso(event.dueAt)})`
    case "TicketEmailResendRequested":
      return "Creation e-mail sent again"
    case "MessageDeliveryReported":
      return `E-mail of message ${event.messageId} ${event.status}${event.reason === "" ? "" : `: ${event.reason}`}`
  }
}

/** A change as a person reads it: `priority: medium → high`. */
export const showChange = (change: FieldChange): string =>
  `${showField(change.field)}: ${showValue(change.from)} → ${showValue(change.to)}`

/**
 * What `event` does to a ticket in state `before`: the fields it changes (old → new, from `evolve`) and a
 * one-line summary, its headline followed by those changes. Pure.
 */
export const describeTicketEvent = (before: TicketState, event: TicketEvent): ChangeSummary => {
  const changes = fieldChanges(before, evolve(before, event))
  const head = headline(event)
  return { summary: changes.length === 0 ? head : `${head} (${changes.map(showChange).join("; ")})`, changes }
}

/** A ticket's events with what each one did, in stream order (folding them as it goes). Pure. */
export const describeTicketHistory = (events: ReadonlyArray<TicketEvent>): ReadonlyArray<ChangeSummary> => {
  const described: Array<ChangeSummary> = []
  let state: TicketState = { _tag: "NoTicket" }
  for (const event of events) {
    described.push(describeTicketEvent(state, event))
    state = evolve(state, event)
  }
  return described
}
