import type { OrganizationId, SlaTarget, TicketEvent, TicketState } from "@helpdesk/domain"
import { evolve } from "@helpdesk/domain"
import { addBusinessTime, businessTimeBetween, type Schedule } from "@helpdesk/schedule"

/*
 * The SLA clocks of a ticket, pure (docs/decisions/0503-sla-policies.md). `SlaFacts` are what a ticket's events say
 * that the clocks need, independent of any policy or schedule; `dueTimes` turns facts, a policy and a schedule into
 * due instants. Keeping the two apart is what lets a business-hours or policy change recompute every ticket from its
 * stored facts without reading its events again.
 */

/** Why a clock stops: waiting on the customer, snoozed, or stopped (closed, spam, merged away). */
export type PauseKind = "customer" | "snoozed" | "stopped"

/** A pause from `from` to `to` (epoch ms; `to` null: still paused). */
export interface Pause {
  readonly kind: PauseKind
  readonly from: number
  readonly to: number | null
}

/** What a ticket's events say that its SLA clocks need (instants in epoch ms; JSON as stored). */
export interface SlaFacts {
  readonly ticketId: number
  readonly organizationId: OrganizationId
  /** When the ticket was created: the first-reply and resolution clocks start here. */
  readonly createdAt: number
  /** The first reply to the customer by an associate (or the creation, when an associate opened the ticket). */
  readonly firstReplyAt: number | null
  /** The first customer message not yet answered by an associate, after the first reply: the next-reply clock. */
  readonly awaitingReplySince: number | null
  readonly priority: string
  readonly inboxId: number
  readonly tagIds: ReadonlyArray<number>
  /** Every pause, in order of start; per kind at most one is open. */
  readonly pauses: ReadonlyArray<Pause>
  /** Breaches recorded (`TicketSlaBreached`): target and due instant. */
  readonly breaches: ReadonlyArray<{ readonly target: SlaTarget; readonly dueAt: number }>
}

/** The kinds of pause a ticket's state is in. */
const pausedKinds = (state: TicketState): ReadonlySet<PauseKind> => {
  const kinds = new Set<PauseKind>()
  if (state._tag !== "Ticket") return kinds
  if (state.waitingOn === "customer") kinds.add("customer")
  if (state.snoozedUntil !== null) kinds.add("snoozed")
  if (state.status === "closed" || state.isSpam || state.mergedInto !== null) kinds.add("stopped")
  return kinds
}

/**
 * The facts after `events`, continuing from `facts` (`null`: the stream's start) with `before` the ticket's state
 * before them. Returns the state after them too, and `null` facts while there is no ticket.
 */
export const foldFacts = (
  facts: SlaFacts | null,
  before: TicketState,
  events: ReadonlyArray<TicketEvent>
): { readonly facts: SlaFacts | null; readonly state: TicketState } => {
  let state = before
  let f = facts
  for (const event of events) {
    const previous = pausedKinds(state)
    state = evolve(state, event)
    if (state._tag !== "Ticket") continue
    const at = event.at.epochMillis
    if (f === null) {
      f = {
        ticketId: state.id,
        organizationId: state.organizationId,
        createdAt: state.createdAt.epochMillis,
        firstReplyAt: state.createdBy.role === "associate" ? at : null,
        awaitingReplySince: null,
        priority: state.priority,
        inboxId: state.inbox.id,
        tagIds: [],
        pauses: [],
        breaches: []
      }
    }
    let { firstReplyAt, awaitingReplySince, breaches } = f
    if (event._tag === "MessageAdded" && event.message.isVisibleToCustomer) {
      if (event.message.role === "associate") {
        if (firstReplyAt === null) firstReplyAt = at
        awaitingReplySince = null
      } else if (event.message.role === "customer" && firstReplyAt !== null && awaitingReplySince === null) {
        awaitingReplySince = at
      }
    }
    if (event._tag === "TicketSlaBreached") {
      breaches = [...breaches, { target: event.target, dueAt: event.dueAt.epochMillis }]
    }
    const now = pausedKinds(state)
    let pauses = f.pauses
    for (const kind of ["customer", "snoozed", "stopped"] as const) {
      if (previous.has(kind) === now.has(kind)) continue
      pauses = now.has(kind)
        ? [...pauses, { kind, from: at, to: null }]
        : pauses.map((p) => (p.kind === kind && p.to === null ? { ...p, to: Math.max(at, p.from) } : p))
    }
    f = {
      ...f,
      firstReplyAt,
      awaitingReplySince,
      breaches,
      pauses,
      priority: state.priority,
      inboxId: state.inbox.id,
      tagIds: state.tags.map((t) => t.id)
    }
  }
  return { facts: f, state }
}

/** What of a policy the clocks use. */
export interface ClockPolicy {
  readonly id: number
  readonly firstReplyMinutes: number | null
  readonly nextReplyMinutes: number | null
  readonly resolutionMinutes: number | null
  /** Targets count business minutes of the organization's schedule (else calendar minutes). */
  readonly businessHours: boolean
  readonly pauseWhenWaitingOnCustomer: boolean
  readonly pauseWhenSnoozed: boolean
}

/** The due instants of a ticket's targets (epoch ms), `null` when met, paused, not started or not set. */
export interface DueTimes {
  readonly firstReply: number | null
  readonly nextReply: number | null
  readonly resolution: number | null
}

const MINUTE_MS = 60_000

/** The pauses that stop the clocks under `policy`, merged into disjoint intervals in order (`to` null: open). */
const stoppedIntervals = (facts: SlaFacts, policy: ClockPolicy): ReadonlyArray<readonly [number, number | null]> => {
  const applicable = facts.pauses
    .filter(
      (p) =>
        p.kind === "stopped" ||
        (p.kind === "customer" && policy.pauseWhenWaitingOnCustomer) ||
        (p.kind === "snoozed" && policy.pauseWhenSnoozed)
    )
    .slice()
    .sort((a, b) => a.from - b.from)
  const merged: Array<[number, number | null]> = []
  for (const p of applicable) {
    const last = merged[merged.length - 1]
    if (last !== undefined && (last[1] === null || p.from <= last[1])) {
      if (last[1] !== null) last[1] = p.to === null ? null : Math.max(last[1], p.to)
      continue
    }
    merged.push([p.from, p.to])
  }
  return merged
}

/**
 * When `minutes` of running time have passed from `start`, not counting `stopped` intervals: business minutes of
 * `schedule` or calendar minutes. `null` when the clock is stopped now before the budget is spent, or when the
 * schedule never opens long enough. A budget spent before a pause keeps its due instant (a breach stays one).
 */
export const dueAfter = (
  start: number,
  minutes: number,
  stopped: ReadonlyArray<readonly [number, number | null]>,
  schedule: Schedule | null
): number | null => {
  const measure = (a: number, b: number) =>
    schedule === null ? (b - a) / MINUTE_MS : businessTimeBetween(schedule, new Date(a), new Date(b))
  const add = (a: number, m: number) => {
    if (schedule === null) return a + Math.round(m * MINUTE_MS)
    const due = addBusinessTime(schedule, new Date(a), m)
    return due === null ? null : due.getTime()
  }
  let remaining = minutes
  let from = start
  for (const [a, b] of stopped) {
    if (b !== null && b <= from) continue
    if (a > from) {
      const running = measure(from, a)
      if (running >= remaining) return add(from, remaining)
      remaining -= running
    }
    if (b === null) return null
    from = Math.max(from, b)
  }
  return add(from, Math.max(0, remaining))
}

/** The due instants of a ticket's targets under `policy` (`schedule` null: calendar minutes). */
export const dueTimes = (facts: SlaFacts, policy: ClockPolicy, schedule: Schedule | null): DueTimes => {
  const stopped = stoppedIntervals(facts, policy)
  const clock = policy.businessHours ? schedule : null
  const isClosedNow = facts.pauses.some((p) => p.kind === "stopped" && p.to === null)
  const firstReply =
    policy.firstReplyMinutes === null || facts.firstReplyAt !== null || isClosedNow
      ? null
      : dueAfter(facts.createdAt, policy.firstReplyMinutes, stopped, clock)
  const nextReply =
    policy.nextReplyMinutes === null || facts.awaitingReplySince === null || isClosedNow
      ? null
      : dueAfter(facts.awaitingReplySince, policy.nextReplyMinutes, stopped, clock)
  const resolution =
    policy.resolutionMinutes === null || isClosedNow
      ? null
      : dueAfter(facts.createdAt, policy.resolutionMinutes, stopped, clock)
  return { firstReply, nextReply, resolution }
}

/** The earliest due instant whose breach is not recorded yet, with its target; `null` when none. */
export const nextBreach = (
  facts: SlaFacts,
  due: DueTimes
): { readonly target: SlaTarget; readonly dueAt: number } | null => {
  let next: { target: SlaTarget; dueAt: number } | null = null
  const candidates: ReadonlyArray<readonly [SlaTarget, number | null]> = [
    ["first_reply", due.firstReply],
    ["next_reply", due.nextReply],
    ["resolution", due.resolution]
  ]
  for (const [target, dueAt] of candidates) {
    if (dueAt === null) continue
    if (facts.breaches.some((b) => b.target === target && b.dueAt === dueAt)) continue
    if (next === null || dueAt < next.dueAt) next = { target, dueAt }
  }
  return next
}
