import {
  decide,
  evolve,
  initialState,
  type Ticket,
  type TicketCommand,
  type TicketError,
  type TicketEvent,
  type TicketState
} from "@helpdesk/domain"
import { Either } from "effect"
import { expect } from "vitest"

const fold = (events: ReadonlyArray<TicketEvent>): TicketState => events.reduce(evolve, initialState)

/** The outcome of a `when`, to assert on. */
export interface Then {
  /** The command produced exactly these events. */
  readonly thenEmits: (...expected: ReadonlyArray<TicketEvent>) => void
  /** The command was accepted and changed nothing. */
  readonly thenNothingHappened: () => void
  /** The command was refused with an error of this tag; returns the error for further checks. */
  readonly thenFails: <Tag extends TicketError["_tag"]>(tag: Tag) => Extract<TicketError, { _tag: Tag }>
  /** The command was accepted; returns the ticket after the given and the new events. */
  readonly thenTicket: () => Ticket
  /** The events the command produced (asserting it was accepted). */
  readonly events: () => ReadonlyArray<TicketEvent>
}

/**
 * Given/when/then for the ticket decider, after Emmett's `DeciderSpecification`:
 * `given(...events).when(command).thenEmits(...events)` or `.thenFails("RuleName")`.
 */
export const given = (...history: ReadonlyArray<TicketEvent>) => ({
  when: (command: TicketCommand): Then => {
    const state = fold(history)
    const result = decide(command, state)
    const accepted = (): ReadonlyArray<TicketEvent> => {
      if (Either.isLeft(result)) throw new Error(`expected acceptance, got ${result.left._tag}: ${result.left.message}`)
      return result.right
    }
    return {
      thenEmits: (...expected) => expect(accepted()).toEqual(expected),
      thenNothingHappened: () => expect(accepted()).toEqual([]),
      thenFails: (tag) => {
        if (Either.isRight(result)) {
          throw new Error(`expected ${tag}, got events ${result.right.map((e) => e._tag).join(", ") || "(none)"}`)
        }
        expect(result.left._tag).toBe(tag)
        return result.left as never
      },
      thenTicket: () => {
        const after = fold([...history, ...accepted()])
        if (after._tag !== "Ticket") throw new Error("no ticket after the command")
        return after
      },
      events: accepted
    }
  }
})

/** The ticket state after some events (asserting the ticket exists). */
export const ticketAfter = (...history: ReadonlyArray<TicketEvent>): Ticket => {
  const state = fold(history)
  if (state._tag !== "Ticket") throw new Error("no ticket")
  return state
}
