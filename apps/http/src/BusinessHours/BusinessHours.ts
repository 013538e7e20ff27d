import type { OrganizationId } from "@helpdesk/domain"
import { ALWAYS_OPEN, formatOpening, isOpenAt, nextOpenAfter, type Schedule } from "@helpdesk/schedule"
import { Clock, Effect, Either, Option } from "effect"
import { withSpan } from "../Observability/Spans.js"
import { BusinessHoursStore } from "./BusinessHoursStore.js"
import { InvalidBusinessHours } from "./Errors.js"
import { compileChange, compileStored, type ScheduleChange, type WeeklyHours } from "./Validation.js"

/** An organization's business hours, compiled, with what is needed to show an opening to its people. */
export interface CompiledBusinessHours {
  /** The whole schedule (weekly hours and every exception); `ALWAYS_OPEN` when none is saved. */
  readonly schedule: Schedule
  /** The schedule's IANA time zone (canonical name); `null` when none is saved. */
  readonly timeZone: string | null
  /** The weekly hours as saved (all seven days); `null` when none is saved. */
  readonly weeklyHours: WeeklyHours | null
  /** The organization's working language (BCP 47), in which openings are shown. */
  readonly workingLanguage: string
}

/** Whether the organization is open at an instant and when it opens next, as the API shows it. */
export interface OpeningStatus {
  readonly is_open_now: boolean
  /** Start of the next opening after the current stretch; `null` when there is none. */
  readonly next_open: Date | null
  /** `next_open` in the working language and the schedule's zone; `""` when there is none. */
  readonly next_open_display: string
}

/** The business-hours resource: the schedule as saved plus its status now. */
export interface BusinessHoursView extends OpeningStatus {
  readonly timezone: string | null
  readonly weekly_hours: WeeklyHours | Record<string, never>
}

/** The status of compiled business hours at an instant (pure). */
export const statusAt = (hours: CompiledBusinessHours, at: Date): OpeningStatus => {
  const next = nextOpenAfter(hours.schedule, at)
  return {
    is_open_now: isOpenAt(hours.schedule, at),
    next_open: next,
    next_open_display:
      next === null ? "" : formatOpening(next, { timeZone: hours.timeZone ?? "UTC", locale: hours.workingLanguage })
  }
}

/** How many organizations' compiled schedules one process keeps. */
const CACHE_SIZE = 1000

/**
 * Business hours of organizations: the compiled schedule for whoever needs is-open and next-opening (tickets,
 * automations), the resource view, and replacing the schedule.
 *
 * Compiled schedules are cached per organization under the schedule's `version`, which every change bumps in
 * its own transaction; each call reads the version from the database, so a replica never answers from a
 * schedule another replica has replaced. "Now" is Effect's `Clock`, so tests control it with `TestClock`.
 */
export class BusinessHours extends Effect.Service<BusinessHours>()("@helpdesk/http/BusinessHours/BusinessHours", {
  effect: Effect.gen(function* () {
    const store = yield* BusinessHoursStore
    const cache = new Map<OrganizationId, { readonly version: number; readonly hours: CompiledBusinessHours }>()

    const remember = (organizationId: OrganizationId, version: number, hours: CompiledBusinessHours) => {
      cache.delete(organizationId)
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!)
      cache.set(organizationId, { version, hours })
    }

    /**
     * The organization's compiled business hours (`ALWAYS_OPEN` when no schedule is saved), with its working
     * language. Dies when the organization does not exist: callers pass an id they have resolved.
     */
    const compiledFor = (organizationId: OrganizationId): Effect.Effect<CompiledBusinessHours> =>
      Effect.gen(function* () {
        const found = yield* store.findWithLanguage(organizationId)
        if (Option.isNone(found)) return yield* Effect.dieMessage(`No organization with id ${organizationId}`)
        const { workingLanguage, schedule } = found.value
        if (Option.isNone(schedule))
          return { schedule: ALWAYS_OPEN, timeZone: null, weeklyHours: null, workingLanguage }
        const saved = schedule.value
        const cached = cache.get(organizationId)
        if (cached !== undefined && cached.version === saved.version) return { ...cached.hours, workingLanguage }
        const exceptions = yield* store.allExceptions(organizationId)
        const compiled = compileStored(saved.timeZone, saved.weeklyHours, exceptions)
        const hours = { schedule: compiled, timeZone: saved.timeZone, weeklyHours: saved.weeklyHours, workingLanguage }
        remember(organizationId, saved.version, hours)
        return hours
      }).pipe(withSpan("BusinessHours.compiledFor"))

    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** The organization's status at the current time of Effect's `Clock`. */
    const statusNow = (
      organizationId: OrganizationId
    ): Effect.Effect<OpeningStatus & { readonly hours: CompiledBusinessHours }> =>
      Effect.zipWith(compiledFor(organizationId), now, (hours, at) => ({ ...statusAt(hours, at), hours }))

    /** The business-hours resource of an organization. */
    const view = (organizationId: OrganizationId): Effect.Effect<BusinessHoursView> =>
      Effect.map(statusNow(organizationId), ({ hours, ...status }) => ({
        timezone: hours.timeZone,
        weekly_hours: hours.weeklyHours ?? {},
        ...status
      })).pipe(withSpan("BusinessHours.view"))

    /**
     * Replaces the schedule with a valid change (its zone and weekly hours); exceptions stay. The new schedule is
     * compiled with them before it is stored.
     */
    const replace = (
      organizationId: OrganizationId,
      change: ScheduleChange
    ): Effect.Effect<BusinessHoursView, InvalidBusinessHours> =>
      Effect.gen(function* () {
        // Lock the current schedule (if any) so exceptions cannot change while the new one is checked against them.
        yield* store.findSchedule(organizationId, { forUpdate: true })
        const exceptions = yield* store.allExceptions(organizationId)
        const compiled = compileChange(change, exceptions)
        if (Either.isLeft(compiled)) return yield* new InvalidBusinessHours({ issues: compiled.left })
        yield* store.saveSchedule(organizationId, change.timeZone, change.weeklyHours)
        yield* store.recomputeSla(organizationId)
      }).pipe(
        store.withTransaction,
        Effect.catchTag("SqlError", Effect.die),
        Effect.zipRight(view(organizationId)),
        withSpan("BusinessHours.replace")
      )

    return { compiledFor, statusNow, view, replace } as const
  }),
  dependencies: [BusinessHoursStore.Default]
}) {}
