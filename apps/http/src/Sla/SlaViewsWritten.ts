import type { TicketState } from "@helpdesk/domain"
import { Effect, FiberRef, GlobalValue } from "effect"
import type { StoredSlaView } from "./SlaState.js"

type Views = Map<TicketState, StoredSlaView>

// The collector of the running write, if any: the `sla` projection records into it, nobody else reads it.
const collector = GlobalValue.globalValue("@helpdesk/http/Sla/SlaViewsWritten", () =>
  FiberRef.unsafeMake<Views | undefined>(undefined)
)

/**
 * Runs `self` (ticket writes), collecting the `sla` views their transactions wrote, each by the ticket state its write
 * left (the pipeline's own object, which the write answers). A response then shows the SLA state its write made
 * without reading it back after the commit (decision 0813); a write that decided nothing collects nothing.
 */
export const collectingSlaViews = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<readonly [A, ReadonlyMap<TicketState, StoredSlaView>], E, R> =>
  Effect.suspend(() => {
    const views: Views = new Map()
    return Effect.map(Effect.locally(self, collector, views), (a) => [a, views] as const)
  })

/** Records the `sla` view written with the write that left `state`, for the collector of that write, if any. */
export const recordSlaView = (state: TicketState, view: StoredSlaView): Effect.Effect<void> =>
  Effect.map(FiberRef.get(collector), (views) => {
    views?.set(state, view)
  })
