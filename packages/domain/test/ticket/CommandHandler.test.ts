import { describe, expect, it } from "@effect/vitest"
import {
  ChangePriority,
  EventStore,
  ExpectedVersion,
  executeMerge,
  executeTicketCommand,
  InMemoryEventStore,
  type LoadedTicket,
  MergeTickets,
  provideTicketStoreFromEventStore,
  runTicketBatch,
  runTicketCommands,
  type StreamAppend,
  StreamVersionConflict,
  TicketStore,
  ticketStoreOf,
  ticketStreamId
} from "@helpdesk/domain"
import { addMessage, associate, createTicket, customer, minute, ticketId } from "@helpdesk/domain/testing"
import { Effect, Either, Schedule } from "effect"

/**
 * The context's store with every append it is asked for kept in `appends`, in order: what the pipeline hands the
 * port (streams, expected versions, closing), seen from outside.
 */
const recordingAppends = <A, E, R>(body: (appends: ReadonlyArray<StreamAppend>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const appends: Array<StreamAppend> = []
    const recording = EventStore.of({
      ...store,
      append: (batch) =>
        Effect.suspend(() =>
          Effect.zipRight(
            Effect.sync(() => appends.push(...batch)),
            store.append(batch)
          )
        )
    })
    return yield* body(appends).pipe(Effect.provideService(EventStore, recording))
  }).pipe(Effect.provide(InMemoryEventStore))

describe("the pipeline's appends (load → fold → decide → append with the expected version)", () => {
  it.effect("given no stream, when a ticket is created, then it appends to a new stream expecting NoStream", () =>
    recordingAppends((appends) =>
      Effect.gen(function* () {
        const handled = yield* executeTicketCommand(createTicket())
        expect(appends).toHaveLength(1)
        expect(appends[0]).toMatchObject({
          streamId: ticketStreamId(ticketId),
          streamType: "ticket",
          expected: ExpectedVersion.noStream
        })
        expect(appends[0]!.events.map((e) => [e.type, e.schemaVersion])).toEqual([["TicketCreated", 2]])
        expect(handled.state._tag).toBe("Ticket")
      })
    )
  )

  it.effect("given a stream of one event, when a later command is decided, then it expects version 1", () =>
    recordingAppends((appends) =>
      Effect.gen(function* () {
        yield* executeTicketCommand(createTicket())
        yield* executeTicketCommand(addMessage())
        expect(appends[1]!.expected).toEqual(ExpectedVersion.exact(1))
        expect(appends[1]!.events.map((e) => e.type)).toEqual(["MessageAdded", "TicketActivated"])
      })
    )
  )

  it.effect(
    "when a command changes nothing, then nothing is appended; when it is refused, then the refusal is the typed " +
      "error and nothing is appended",
    () =>
      recordingAppends((appends) =>
        Effect.gen(function* () {
          yield* executeTicketCommand(createTicket({ priority: "low" }))
          const same = yield* executeTicketCommand(
            new ChangePriority({ ticketId, at: minute(1), actor: associate, priority: "low" })
          )
          expect(same.events).toEqual([])
          const refused = yield* Effect.flip(executeTicketCommand(createTicket()))
          expect(refused._tag).toBe("TicketAlreadyExists")
          expect(appends).toHaveLength(1)
        })
      )
  )

  it.effect("a merge closes the source stream and appends to both in one append, each at its version", () =>
    recordingAppends((appends) =>
      Effect.gen(function* () {
        yield* executeTicketCommand(createTicket({ ticketId: 1 }))
        yield* executeTicketCommand(createTicket({ ticketId: 2 }))
        yield* executeMerge(new MergeTickets({ sourceTicketId: 1, targetTicketId: 2, at: minute(5), actor: associate }))
        expect(appends).toHaveLength(4)
        expect(appends.slice(2).map((x) => [x.streamId, x.expected, x.close === true, x.events[0]!.type])).toEqual([
          ["ticket-1", ExpectedVersion.exact(1), true, "TicketMergedInto"],
          ["ticket-2", ExpectedVersion.exact(1), false, "TicketMergedFrom"]
        ])
      })
    )
  )
})

describe("executeTicketCommand / executeMerge against the EventStore", () => {
  it.effect("runs commands end to end", () =>
    Effect.gen(function* () {
      yield* executeTicketCommand(createTicket())
      const handled = yield* executeTicketCommand(addMessage())
      expect(handled.state._tag === "Ticket" && handled.state.status).toBe("active")
      const store = yield* EventStore
      expect((yield* store.readStream(ticketStreamId(ticketId))).map((e) => e.type)).toEqual([
        "TicketCreated",
        "MessageAdded",
        "TicketActivated"
      ])
    }).pipe(Effect.provide(InMemoryEventStore))
  )

  it.effect("a merge closes the source; a customer reply there is refused naming the survivor", () =>
    Effect.gen(function* () {
      yield* executeTicketCommand(createTicket({ ticketId: 1 }))
      yield* executeTicketCommand(createTicket({ ticketId: 2 }))
      yield* executeTicketCommand(addMessage({ ticketId: 1, messageId: 10 }))
      yield* executeMerge(new MergeTickets({ sourceTicketId: 1, targetTicketId: 2, at: minute(20), actor: associate }))
      const error = yield* Effect.flip(
        executeTicketCommand(addMessage({ ticketId: 1, messageId: 11, actor: customer }))
      )
      expect(error._tag).toBe("TicketMergedAway")
      if (error._tag !== "TicketMergedAway") return
      const rerouted = yield* executeTicketCommand(
        addMessage({ ticketId: error.mergedInto.id, messageId: 11, actor: customer })
      )
      expect(rerouted.state._tag === "Ticket" && rerouted.state.messages.map((m) => m.id)).toEqual([10, 11])
    }).pipe(Effect.provide(InMemoryEventStore))
  )

  it.effect("retries a command that lost a race, re-reading the stream", () =>
    Effect.gen(function* () {
      yield* executeTicketCommand(createTicket())
      const store = yield* EventStore
      let raced = false
      // A store whose first append loses to a concurrent writer.
      const racing = EventStore.of({
        ...store,
        append: (appends) =>
          raced
            ? store.append(appends)
            : executeTicketCommand(addMessage({ messageId: 500, isVisibleToCustomer: false })).pipe(
                Effect.provideService(EventStore, store),
                Effect.orDie,
                Effect.flatMap(() => {
                  raced = true
                  return store.append(appends)
                })
              )
      })
      const handled = yield* executeTicketCommand(addMessage({ messageId: 501 }), { retry: Schedule.recurs(2) }).pipe(
        Effect.provideService(EventStore, racing)
      )
      expect(handled.state._tag === "Ticket" && handled.state.messages.map((m) => m.id)).toEqual([500, 501])
    }).pipe(Effect.provide(InMemoryEventStore))
  )
  it.effect(
    "given a merge committed between a customer reply's load and its append, then the reply is decided again on the merged ticket: refused naming the survivor, as a reply a moment later would be",
    () =>
      Effect.gen(function* () {
        yield* executeTicketCommand(createTicket({ ticketId: 1 }))
        yield* executeTicketCommand(createTicket({ ticketId: 2 }))
        const store = yield* EventStore
        let merged = false
        // The reply's first append meets the stream closed by a merge that committed after its load.
        const racing = EventStore.of({
          ...store,
          append: (appends) =>
            merged
              ? store.append(appends)
              : executeMerge(
                  new MergeTickets({ sourceTicketId: 1, targetTicketId: 2, at: minute(20), actor: associate })
                ).pipe(
                  Effect.provideService(EventStore, store),
                  Effect.orDie,
                  Effect.flatMap(() => {
                    merged = true
                    return store.append(appends)
                  })
                )
        })
        const refused = yield* executeTicketCommand(addMessage({ ticketId: 1, messageId: 11, actor: customer }), {
          retry: Schedule.recurs(2)
        }).pipe(Effect.provideService(EventStore, racing), Effect.flip)
        expect(refused._tag).toBe("TicketMergedAway")
        expect(refused._tag === "TicketMergedAway" && refused.mergedInto.id).toBe(2)
        // Nothing of the reply was appended to the closed stream.
        expect((yield* store.readStream(ticketStreamId(1))).map((e) => e.type)).toEqual([
          "TicketCreated",
          "TicketMergedInto"
        ])
      }).pipe(Effect.provide(InMemoryEventStore))
  )
  it.effect(
    "given a store that always loses the race, then a retry schedule of k recurrences makes k + 1 attempts",
    () =>
      Effect.gen(function* () {
        yield* executeTicketCommand(createTicket())
        const store = yield* EventStore
        for (const recurrences of [0, 1, 3]) {
          let attempts = 0
          const losing = EventStore.of({
            ...store,
            append: (appends) =>
              Effect.suspend(() => {
                attempts++
                return Effect.fail(
                  new StreamVersionConflict({ streamId: appends[0]!.streamId, expected: "1", actual: 2 })
                )
              })
          })
          const failed = yield* executeTicketCommand(addMessage({ messageId: 600 + recurrences }), {
            retry: Schedule.recurs(recurrences)
          }).pipe(Effect.provideService(EventStore, losing), Effect.flip)
          expect(failed._tag).toBe("StreamVersionConflict")
          expect(attempts).toBe(recurrences + 1)
        }
      }).pipe(Effect.provide(InMemoryEventStore))
  )
})

describe("runTicketCommands on a store that answers loads from memory", () => {
  /**
   * A store whose first load answers `remembered` (a state it kept) and whose `confirm` proves a load against the
   * stream's version; it counts the confirmations.
   */
  const rememberingStore = (store: EventStore["Type"], remembered: LoadedTicket) => {
    const base = ticketStoreOf(store)
    let first = true
    const confirmed: Array<number> = []
    const remembering = TicketStore.of({
      ...base,
      load: (id) =>
        Effect.suspend(() => {
          if (!first) return base.load(id)
          first = false
          return Effect.succeed(remembered)
        }),
      confirm: (loaded) =>
        Effect.flatMap(store.readStream(ticketStreamId(ticketId)), (events) => {
          confirmed.push(loaded.version)
          return events.length === loaded.version
            ? Effect.void
            : Effect.fail(
                new StreamVersionConflict({
                  streamId: ticketStreamId(ticketId),
                  expected: String(loaded.version),
                  actual: events.length
                })
              )
        })
    })
    return { remembering, confirmed }
  }

  const priorityLow = new ChangePriority({ ticketId, at: minute(2), actor: associate, priority: "low" })

  it.effect(
    "given a remembered state that is no longer current, when the decision on it appends nothing, then confirm " +
      "refuses it and the command is decided again on the stored state",
    () =>
      Effect.gen(function* () {
        yield* executeTicketCommand(createTicket())
        yield* executeTicketCommand(priorityLow)
        const store = yield* EventStore
        const remembered = yield* ticketStoreOf(store).load(ticketId)
        // Another writer moves the ticket on: the remembered state says "low", the stream "high".
        yield* executeTicketCommand(new ChangePriority({ ticketId, at: minute(3), actor: associate, priority: "high" }))
        const { remembering, confirmed } = rememberingStore(store, remembered)
        const outcome = yield* runTicketCommands({
          ticketId,
          retry: Schedule.recurs(1),
          plan: () => Effect.succeed({ commands: [priorityLow], result: undefined })
        }).pipe(Effect.provideService(TicketStore, remembering))
        expect(confirmed).toEqual([remembered.version])
        expect(outcome.events.map((e) => e._tag)).toEqual(["TicketPriorityChanged"])
        expect(outcome.state._tag === "Ticket" && outcome.state.priority).toBe("low")
      }).pipe(Effect.provide(InMemoryEventStore))
  )

  it.effect(
    "given a remembered state that is no longer current, when the decision on it is a refusal, then the refusal " +
      "stands only after the stored state refuses too",
    () =>
      Effect.gen(function* () {
        yield* executeTicketCommand(createTicket())
        const store = yield* EventStore
        const remembered = yield* ticketStoreOf(store).load(ticketId)
        yield* executeTicketCommand(addMessage({ messageId: 700 }))
        const stored = (yield* store.readStream(ticketStreamId(ticketId))).length
        const { remembering, confirmed } = rememberingStore(store, remembered)
        // A plan that refuses whatever it is given: the first refusal (on the remembered state) is not answered.
        let plans = 0
        const refused = yield* runTicketCommands({
          ticketId,
          retry: Schedule.recurs(1),
          plan: (loaded) =>
            Effect.suspend(() => {
              plans++
              return Effect.fail(`refused at version ${loaded.version}` as const)
            })
        }).pipe(Effect.provideService(TicketStore, remembering), Effect.flip)
        expect(plans).toBe(2)
        expect(confirmed).toEqual([remembered.version, stored])
        expect(refused).toBe(`refused at version ${stored}`)
      }).pipe(Effect.provide(InMemoryEventStore))
  )

  it.effect("given a decision that appends, then nothing is confirmed: the append's expected version proves it", () =>
    Effect.gen(function* () {
      yield* executeTicketCommand(createTicket())
      const store = yield* EventStore
      const { remembering, confirmed } = rememberingStore(store, yield* ticketStoreOf(store).load(ticketId))
      const outcome = yield* runTicketCommands({
        ticketId,
        plan: () => Effect.succeed({ commands: [priorityLow], result: undefined })
      }).pipe(Effect.provideService(TicketStore, remembering))
      expect(outcome.events.length).toBe(1)
      expect(confirmed).toEqual([])
    }).pipe(Effect.provide(InMemoryEventStore))
  )
})

describe("runTicketBatch (a timer's batch through the pipeline)", () => {
  it.effect("decides each ticket on its own, appends every write at once, and answers each outcome in order", () =>
    Effect.gen(function* () {
      yield* executeTicketCommand(createTicket({ ticketId: 31 }))
      yield* executeTicketCommand(createTicket({ ticketId: 32 }))
      const outcomes = yield* runTicketBatch({
        ticketIds: [32, 33, 31],
        plan: (id) =>
          id === 32 ? Effect.fail("skip" as const) : Effect.succeed([addMessage({ ticketId: id, messageId: id * 10 })])
      }).pipe(provideTicketStoreFromEventStore)
      expect(outcomes.map((o) => (Either.isRight(o) ? o.right.events.map((e) => e._tag) : o.left))).toEqual([
        "skip",
        expect.objectContaining({ _tag: "TicketNotFound" }),
        ["MessageAdded", "TicketActivated"]
      ])
      const store = yield* EventStore
      expect((yield* store.readStream(ticketStreamId(31))).map((e) => e.type)).toEqual([
        "TicketCreated",
        "MessageAdded",
        "TicketActivated"
      ])
      expect((yield* store.readStream(ticketStreamId(32))).map((e) => e.type)).toEqual(["TicketCreated"])
    }).pipe(Effect.provide(InMemoryEventStore))
  )
})
