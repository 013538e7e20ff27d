import { Effect, Either, Schedule } from "effect"
import { type AppendResult, type EventStore, StreamClosed, StreamVersionConflict } from "../EventStore.js"
import { withSpanWhenTraced } from "../Tracing.js"
import type { MergeTickets, TicketCommand } from "./Commands.js"
import { decide, decideMerge, type MergeDecision } from "./Decide.js"
import type { MergeError, TicketError } from "./Errors.js"
import type { EventDecodeError } from "./EventCodec.js"
import type { TicketEvent } from "./Events.js"
import { evolve, evolveAll } from "./Evolve.js"
import type { TicketState } from "./State.js"
import {
  type EventIdGenerator,
  type LoadedTicket,
  provideTicketStoreFromEventStore,
  TicketStore,
  type TicketWrite
} from "./TicketStore.js"

/** The writes of a decided merge: the source's closes its stream. */
const mergeWrites = (
  command: MergeTickets,
  source: LoadedTicket,
  target: LoadedTicket,
  decision: MergeDecision
): readonly [TicketWrite, TicketWrite] => [
  {
    ticketId: command.sourceTicketId,
    before: source,
    events: decision.source,
    after: evolveAll(decision.source, source.state),
    close: true
  },
  {
    ticketId: command.targetTicketId,
    before: target,
    events: decision.target,
    after: evolveAll(decision.target, target.state)
  }
]

/** Decides commands one after another over the evolving state: all their events and the state after them. */
export const decideAll = (
  commands: ReadonlyArray<TicketCommand>,
  state: TicketState
): Either.Either<{ readonly events: ReadonlyArray<TicketEvent>; readonly state: TicketState }, TicketError> => {
  const events: Array<TicketEvent> = []
  let current = state
  for (const command of commands) {
    const decision = decide(command, current)
    if (Either.isLeft(decision)) return Either.left(decision.left)
    for (const event of decision.right) {
      events.push(event)
      current = evolve(current, event)
    }
  }
  return Either.right({ events, state: current })
}

/**
 * How a command that lost an optimistic-concurrency race is tried again (docs/decisions/0305-one-command-pipeline.md):
 * from a fresh load, after 5 ms growing ×1.5 (capped at 200 ms), jittered, up to 12 times. A store that serialises
 * writers of a stream (the service's) never needs it; one that does not must retry long enough that commands which
 * commute never surface as conflicts.
 */
export const defaultConflictRetry: Schedule.Schedule<unknown, unknown> = Schedule.exponential("5 millis", 1.5).pipe(
  Schedule.either(Schedule.spaced("200 millis")),
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(12))
)

/** The commands a use case chose for a ticket, and what it answers besides the ticket (e.g. a new message's id). */
export interface TicketPlan<A> {
  readonly commands: ReadonlyArray<TicketCommand>
  readonly result: A
}

/** A ticket write as it happened: the state it was decided on, the events, and the state after them. */
export interface TicketWritten {
  readonly ticketId: number
  readonly previous: TicketState
  readonly events: ReadonlyArray<TicketEvent>
  readonly state: TicketState
  /** The stream's version after the write (the loaded version when nothing was appended). */
  readonly version: number
  /** Where the stream stands after the append; `null` when the commands decided nothing. */
  readonly append: AppendResult | null
}

/**
 * What happens after an append, in the same unit of work (outbox rows, follow-ups): a plain function of what was
 * written. It runs only when events were appended, and again on every retry of the command (so it must write only
 * inside the unit of work, which a retry rolls back).
 */
export type TicketPolicy<E = never, R = never> = (written: TicketWritten) => Effect.Effect<void, E, R>

/** The outcome of {@link runTicketCommands}: the write, and the plan's result. */
export interface TicketOutcome<A> extends TicketWritten {
  readonly result: A
}

/** Options shared by {@link runTicketCommands} and {@link runTicketMerge}. */
export interface PipelineOptions {
  /** How to retry a lost optimistic-concurrency race; default {@link defaultConflictRetry}. */
  readonly retry?: Schedule.Schedule<unknown, unknown>
  readonly eventId?: EventIdGenerator
  readonly metadata?: Record<string, unknown>
}

const randomEventId: EventIdGenerator = () => globalThis.crypto.randomUUID()

/**
 * `unit` as one unit of work of `store`, started again from a fresh load when it loses an optimistic concurrency
 * race (per `options.retry`), traced as `span`. A stream closed under the decision (a merge committed between the
 * load and the append) is such a race too: decided again on the state that closed it, the command gets the answer
 * it would have got a moment later (a customer's reply follows the merge, anyone else's write is refused naming the
 * survivor), not a conflict. The retry's schedule is built only after a first lost race: a store that serialises
 * writers of a stream never pays for it.
 */
const unitOfWorkOn = <A, E, R>(
  store: TicketStore["Type"],
  options: PipelineOptions,
  span: string,
  attributes: Record<string, unknown>,
  unit: (store: TicketStore["Type"]) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const attempt = store.transaction(unit(store))
  const isConflict = (error: E): error is E & (StreamVersionConflict | StreamClosed) =>
    error instanceof StreamVersionConflict || error instanceof StreamClosed
  return attempt.pipe(
    Effect.catchIf(isConflict, (lost) => {
      // The race already lost is the schedule's first failure, so `retry` counts and delays as if it ran from the start.
      let first: StreamVersionConflict | StreamClosed | undefined = lost
      const again = Effect.suspend(() => {
        if (first === undefined) return attempt
        const conflict = first
        first = undefined
        return Effect.fail(conflict as E)
      })
      return Effect.retry(again, { schedule: options.retry ?? defaultConflictRetry, while: isConflict })
    }),
    withSpanWhenTraced(span, { attributes })
  )
}

/** {@link unitOfWorkOn} the context's {@link TicketStore}. */
const ticketUnitOfWork = <A, E, R>(
  options: PipelineOptions,
  span: string,
  attributes: Record<string, unknown>,
  unit: (store: TicketStore["Type"]) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | TicketStore> =>
  Effect.flatMap(TicketStore, (store) => unitOfWorkOn(store, options, span, attributes, unit))

/**
 * `decision` (the plan and decision on states `store` loaded), with those loads confirmed when it appends nothing:
 * a refusal or an empty decision made on a state kept in memory stands only if that state is still current.
 */
const confirmedUnlessAppended = <A, E, R>(
  store: TicketStore["Type"],
  loaded: ReadonlyArray<LoadedTicket>,
  decision: Effect.Effect<A, E, R>,
  appendsNothing: (a: A) => boolean
): Effect.Effect<A, E | StreamVersionConflict, R> => {
  const confirm = store.confirm
  if (confirm === undefined) return decision
  const confirmAll = Effect.forEach(loaded, confirm, { discard: true })
  return decision.pipe(
    Effect.tapError(() => confirmAll),
    Effect.tap((a) => (appendsNothing(a) ? confirmAll : Effect.void))
  )
}

/** Appends `writes` with the pipeline's event ids and metadata. */
const appendWrites = (store: TicketStore["Type"], writes: ReadonlyArray<TicketWrite>, options: PipelineOptions) =>
  store.append(writes, { eventId: options.eventId ?? randomEventId, metadata: options.metadata })

/**
 * The command pipeline every ticket write goes through, in one unit of work of the {@link TicketStore}:
 * load the ticket → `plan` chooses commands from its state → decide them in order → append expecting the loaded
 * version (the store runs its inline projections from the state in hand) → `policies` with what was written →
 * a typed outcome. A {@link StreamVersionConflict}, or a {@link StreamClosed} under the decision, starts the whole
 * unit again from a fresh load, per `retry`.
 */
export const runTicketCommands = <A, E, R, EP = never, RP = never>(
  options: TicketCommandsOptions<A, E, R, EP, RP>
): Effect.Effect<
  TicketOutcome<A>,
  E | EP | TicketError | EventDecodeError | StreamVersionConflict | StreamClosed,
  R | RP | TicketStore
> => Effect.flatMap(TicketStore, (store) => runTicketCommandsOn(store, options))

/** What {@link runTicketCommands} runs: the ticket, the `plan` choosing its commands, the `policies` after the append. */
export type TicketCommandsOptions<A, E, R, EP = never, RP = never> = PipelineOptions & {
  readonly ticketId: number
  readonly plan: (loaded: LoadedTicket) => Effect.Effect<TicketPlan<A>, E, R>
  readonly policies?: ReadonlyArray<TicketPolicy<EP, RP>>
}

/** {@link runTicketCommands} on a given store rather than the context's (no context to provide per command). */
export const runTicketCommandsOn = <A, E, R, EP = never, RP = never>(
  store: TicketStore["Type"],
  options: TicketCommandsOptions<A, E, R, EP, RP>
): Effect.Effect<
  TicketOutcome<A>,
  E | EP | TicketError | EventDecodeError | StreamVersionConflict | StreamClosed,
  R | RP
> =>
  unitOfWorkOn(store, options, "Ticket.runCommands", { ticketId: options.ticketId }, (store) =>
    Effect.gen(function* () {
      const loaded = yield* store.load(options.ticketId)
      const { plan, decided } = yield* confirmedUnlessAppended(
        store,
        [loaded],
        Effect.flatMap(options.plan(loaded), (plan) =>
          Effect.map(decideAll(plan.commands, loaded.state), (decided) => ({ plan, decided }))
        ),
        ({ decided }) => decided.events.length === 0
      )
      if (decided.events.length === 0) {
        const written = { ticketId: options.ticketId, previous: loaded.state, events: [], state: loaded.state }
        return { ...written, version: loaded.version, append: null, result: plan.result }
      }
      const write: TicketWrite = {
        ticketId: options.ticketId,
        before: loaded,
        events: decided.events,
        after: decided.state
      }
      const [append] = yield* appendWrites(store, [write], options)
      const written: TicketWritten = {
        ticketId: options.ticketId,
        previous: loaded.state,
        events: decided.events,
        state: decided.state,
        version: append!.version,
        append: append!
      }
      for (const policy of options.policies ?? []) yield* policy(written)
      return { ...written, result: plan.result }
    })
  )

/**
 * Many tickets' commands through the pipeline in one unit of work (a timer's batch): every ticket loaded at once
 * (`loadMany`, in id order), `plan` and the decision per ticket — a ticket whose load, plan or decision fails is left
 * out and answered as that failure —, then one append of every write, then `policies` per write. A conflict (or a
 * stream closed under the decision) starts the whole batch again, per `retry`. Answers each ticket's outcome in the order given.
 */
export const runTicketBatch = <E, R, EP = never, RP = never>(
  options: PipelineOptions & {
    readonly ticketIds: ReadonlyArray<number>
    readonly plan: (ticketId: number, loaded: LoadedTicket) => Effect.Effect<ReadonlyArray<TicketCommand>, E, R>
    readonly policies?: ReadonlyArray<TicketPolicy<EP, RP>>
  }
): Effect.Effect<
  ReadonlyArray<Either.Either<TicketWritten, E | TicketError | EventDecodeError>>,
  EP | StreamVersionConflict | StreamClosed,
  R | RP | TicketStore
> =>
  ticketUnitOfWork(options, "Ticket.runBatch", { tickets: options.ticketIds.length }, (store) =>
    Effect.gen(function* () {
      const ids = [...new Set(options.ticketIds)].sort((a, b) => a - b)
      const loadedAll = yield* store.loadMany(ids)
      const decided = new Map<number, Either.Either<TicketWrite, E | TicketError | EventDecodeError>>()
      for (let i = 0; i < ids.length; i++) {
        const ticketId = ids[i]!
        const loaded = loadedAll[i]!
        if (Either.isLeft(loaded)) {
          decided.set(ticketId, Either.left(loaded.left))
          continue
        }
        const commands = yield* Effect.either(options.plan(ticketId, loaded.right))
        const decision = Either.flatMap(commands, (c) => decideAll(c, loaded.right.state))
        decided.set(
          ticketId,
          Either.map(decision, ({ events, state }) => ({ ticketId, before: loaded.right, events, after: state }))
        )
      }
      const writes = [...decided.values()].flatMap((d) =>
        Either.isRight(d) && d.right.events.length > 0 ? [d.right] : []
      )
      const results = yield* appendWrites(store, writes, options)
      const appended = new Map(writes.map((write, i) => [write.ticketId, results[i]!]))
      const outcomes = new Map<number, Either.Either<TicketWritten, E | TicketError | EventDecodeError>>()
      for (const [ticketId, d] of decided) {
        if (Either.isLeft(d)) {
          outcomes.set(ticketId, Either.left(d.left))
          continue
        }
        const append = appended.get(ticketId) ?? null
        const written: TicketWritten = {
          ticketId,
          previous: d.right.before.state,
          events: d.right.events,
          state: d.right.after,
          version: append?.version ?? d.right.before.version,
          append
        }
        if (append !== null) for (const policy of options.policies ?? []) yield* policy(written)
        outcomes.set(ticketId, Either.right(written))
      }
      return options.ticketIds.map((id) => outcomes.get(id)!)
    })
  )

/** The outcome of {@link runTicketMerge}: both writes. */
export interface MergeOutcome {
  readonly source: TicketWritten
  readonly target: TicketWritten
}

/**
 * A merge through the pipeline: both tickets loaded (in id order, so writers that lock streams cannot deadlock),
 * `check` on both states (e.g. that both belong to the caller's organization), the merge decided, and both streams
 * appended atomically (the source's closed), retried on conflicts like {@link runTicketCommands}.
 */
export const runTicketMerge = <E = never, R = never>(
  options: PipelineOptions & {
    readonly command: MergeTickets
    readonly check?: (source: LoadedTicket, target: LoadedTicket) => Effect.Effect<void, E, R>
  }
): Effect.Effect<
  MergeOutcome,
  E | MergeError | EventDecodeError | StreamVersionConflict | StreamClosed,
  R | TicketStore
> =>
  ticketUnitOfWork(
    options,
    "Ticket.runMerge",
    { sourceTicketId: options.command.sourceTicketId, targetTicketId: options.command.targetTicketId },
    (store) =>
      Effect.gen(function* () {
        const { command } = options
        const first = Math.min(command.sourceTicketId, command.targetTicketId)
        const second = Math.max(command.sourceTicketId, command.targetTicketId)
        const loadedFirst = yield* store.load(first)
        const loadedSecond = first === second ? loadedFirst : yield* store.load(second)
        const source = command.sourceTicketId === first ? loadedFirst : loadedSecond
        const target = command.targetTicketId === first ? loadedFirst : loadedSecond
        const decision = yield* confirmedUnlessAppended(
          store,
          first === second ? [loadedFirst] : [loadedFirst, loadedSecond],
          Effect.zipRight(
            options.check === undefined ? Effect.void : options.check(source, target),
            decideMerge(command, source.state, target.state)
          ),
          () => false
        )
        const writes = mergeWrites(command, source, target, decision)
        const results = yield* appendWrites(store, writes, options)
        const written = (write: TicketWrite, i: number): TicketWritten => ({
          ticketId: write.ticketId,
          previous: write.before.state,
          events: write.events,
          state: write.after,
          version: results[i]!.version,
          append: results[i]!
        })
        return { source: written(writes[0], 0), target: written(writes[1], 1) }
      })
  )

/** Options of {@link executeTicketCommand} and {@link executeMerge}. */
export type ExecuteOptions = PipelineOptions

/**
 * Runs one command through {@link runTicketCommands} on the context's `EventStore` (a {@link TicketStore} that
 * folds the whole stream per load): for other services and tests that bring only the port.
 */
export const executeTicketCommand = (
  command: TicketCommand,
  options: ExecuteOptions = {}
): Effect.Effect<
  HandledCommandOutcome,
  TicketError | EventDecodeError | StreamVersionConflict | StreamClosed,
  EventStore
> =>
  runTicketCommands({
    ...options,
    ticketId: command.ticketId,
    plan: () => Effect.succeed({ commands: [command], result: undefined })
  }).pipe(
    Effect.map(({ events, state, append }) => ({ events, state, append })),
    provideTicketStoreFromEventStore
  )

/** What {@link executeTicketCommand} answers: the events appended and the state after them. */
export interface HandledCommandOutcome {
  readonly events: ReadonlyArray<TicketEvent>
  readonly state: TicketState
  readonly append: AppendResult | null
}

/** Runs a merge through {@link runTicketMerge} on the context's `EventStore`. */
export const executeMerge = (
  command: MergeTickets,
  options: ExecuteOptions = {}
): Effect.Effect<MergeOutcome, MergeError | EventDecodeError | StreamVersionConflict | StreamClosed, EventStore> =>
  runTicketMerge({ ...options, command }).pipe(provideTicketStoreFromEventStore)
