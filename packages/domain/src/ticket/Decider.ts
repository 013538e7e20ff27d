import type { TicketCommand } from "./Commands.js"
import { type Decision, decide } from "./Decide.js"
import type { TicketEvent } from "./Events.js"
import { evolve } from "./Evolve.js"
import { initialState, type TicketState } from "./State.js"

/** The decider triple of the ticket, in the shape generic event-sourcing helpers expect. */
export interface TicketDecider {
  readonly decide: (command: TicketCommand, state: TicketState) => Decision
  readonly evolve: (state: TicketState, event: TicketEvent) => TicketState
  readonly initialState: TicketState
}

/** The ticket decider: `decide`, `evolve`, `initialState`. */
export const ticketDecider: TicketDecider = { decide, evolve, initialState }
