import {
  AddMessage,
  AssignTicket,
  applyDeliveryReport,
  ChangePriority,
  type Classification,
  ClassifyTicket,
  CloseTicket,
  decide,
  evolve,
  fromRecordedEvent,
  GlobalCheckpointStart,
  initialState,
  loadTicket,
  MarkSpam,
  type Priority,
  pendingDelivery,
  projectMessageViews,
  projectTicketView,
  RecordCsatResponse,
  type RecordedEvent,
  RecordLanguage,
  ReopenTicket,
  ReportDelivery,
  type ReportedDeliveryStatus,
  SetTags,
  SetWaitingOn,
  SnoozeTicket,
  SnoozeTimerElapsed,
  type TicketCommand,
  TicketEvent,
  type TicketState,
  toNewEvent,
  UnmarkSpam,
  UnsnoozeTicket,
  type WaitingOn
} from "@helpdesk/domain"
import {
  associate,
  bob,
  createTicket,
  customer,
  minute,
  otherAssociate,
  system,
  ticketId
} from "@helpdesk/domain/testing"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { describe, expect, it } from "vitest"

const actors = fc.constantFrom(associate, otherAssociate, customer, system)

type Base = { readonly ticketId: number; readonly at: ReturnType<typeof minute> }

const message = (base: Base) =>
  fc
    .record({
      actor: actors,
      id: fc.integer({ min: 1, max: 8 }),
      visible: fc.boolean(),
      email: fc.boolean(),
      cc: fc.option(fc.array(fc.constantFrom("a@x.test", "b@x.test"), { maxLength: 2 })),
      nextPriority: fc.option(fc.constantFrom("low" as const, "urgent" as const)),
      nextAssignee: fc.option(fc.constant(bob))
    })
    .map(
      (r) =>
        new AddMessage({
          ...base,
          actor: r.actor,
          messageId: r.id,
          content: "hi",
          isVisibleToCustomer: r.visible,
          sendsEmail: r.email,
          externalRecipientEmails: r.cc,
          nextPriority: r.nextPriority,
          nextAssignee: r.nextAssignee
        })
    )

const report = (base: Base, at: number) =>
  fc
    .record({
      messageId: fc.option(fc.integer({ min: 1, max: 8 })),
      status: fc.constantFrom<ReportedDeliveryStatus>("sent", "read", "failed"),
      back: fc.integer({ min: 0, max: 30 })
    })
    .map(
      (r) =>
        new ReportDelivery({
          ...base,
          at: minute(at - r.back),
          actor: system,
          messageId: r.messageId,
          status: r.status,
          reason: "bounced"
        })
    )

/** A command at minute `at`, drawn from everything a ticket accepts (and some it refuses). */
const commandAt = (at: number): fc.Arbitrary<TicketCommand> => {
  const base = { ticketId, at: minute(at) }
  return fc.oneof(
    { arbitrary: message(base), weight: 6 },
    { arbitrary: report(base, at), weight: 3 },
    fc
      .constantFrom<Classification>("", "resolved", "invalid")
      .map((c) => new CloseTicket({ ...base, actor: associate, classification: c })),
    fc.constant(new ReopenTicket({ ...base, actor: associate })),
    fc
      .constantFrom<Classification>("", "other")
      .map((c) => new ClassifyTicket({ ...base, actor: associate, classification: c })),
    fc.constantFrom<Priority>("low", "high").map((p) => new ChangePriority({ ...base, actor: associate, priority: p })),
    fc.option(fc.constant(bob)).map((a) => new AssignTicket({ ...base, actor: associate, assignee: a })),
    fc
      .constantFrom<WaitingOn>("", "customer", "associate")
      .map((w) => new SetWaitingOn({ ...base, actor: associate, waitingOn: w })),
    fc
      .array(fc.integer({ min: 1, max: 3 }), { maxLength: 3 })
      .map(
        (ids) => new SetTags({ ...base, actor: associate, tags: ids.map((id) => ({ id, name: `t${id}`, color: "" })) })
      ),
    fc.constant(new MarkSpam({ ...base, actor: associate })),
    fc.constant(new UnmarkSpam({ ...base, actor: associate })),
    fc.integer({ min: 0, max: 6 }).map((rating) => new RecordCsatResponse({ ...base, actor: customer, rating })),
    fc.constantFrom("en", "de", "xyz").map((language) => new RecordLanguage({ ...base, actor: system, language })),
    fc.integer({ min: -2, max: 30 }).map((d) => new SnoozeTicket({ ...base, actor: associate, until: minute(at + d) })),
    fc.constant(new UnsnoozeTicket({ ...base, actor: associate })),
    fc
      .integer({ min: 0, max: 60 })
      .map((d) => new SnoozeTimerElapsed({ ...base, actor: system, snoozedUntil: minute(Math.max(0, at - d)) }))
  )
}

/** A ticket's life: creation, then up to 40 commands a minute apart. */
const life = fc
  .tuple(fc.boolean(), fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 40 }))
  .chain(([byAssociate, seeds]) =>
    fc.tuple(
      fc.constant(createTicket({ actor: byAssociate ? associate : customer, sendsCreateEmail: byAssociate })),
      fc.tuple(...seeds.map((_, i) => commandAt(100 + i * 10)))
    )
  )

/** Runs commands through decide/evolve, keeping the accepted events and each intermediate state. */
const run = (commands: ReadonlyArray<TicketCommand>) => {
  let state: TicketState = initialState
  const events: Array<TicketEvent> = []
  for (const command of commands) {
    const decision = decide(command, state)
    if (Either.isLeft(decision)) continue
    for (const e of decision.right) {
      state = evolve(state, e)
      events.push(e)
    }
  }
  return { state, events }
}

const asRecorded = (events: ReadonlyArray<TicketEvent>): ReadonlyArray<RecordedEvent> =>
  events.map((e, i) => {
    const n = toNewEvent(e, `e${i}`)
    return {
      ...n,
      data: JSON.parse(JSON.stringify(n.data)),
      streamId: "ticket-42",
      streamPosition: i + 1,
      globalPosition: BigInt(i + 1),
      checkpoint: GlobalCheckpointStart,
      createdAt: new Date(0)
    }
  })

describe("properties", () => {
  it("the generated lives exercise the rules (so the properties below are not vacuous)", () => {
    const tags = new Set<string>()
    for (const [create, commands] of fc.sample(life, { numRuns: 600, seed: 7 })) {
      for (const e of run([create, ...commands]).events) tags.add(e._tag)
    }
    for (const tag of [
      "TicketCreated",
      "MessageAdded",
      "TicketActivated",
      "TicketClosed",
      "TicketReopened",
      "TicketSnoozed",
      "TicketUnsnoozed",
      "TicketMarkedSpam",
      "TicketAssigned",
      "TicketPriorityChanged",
      "CreateEmailDeliveryReported",
      "MessageDeliveryReported"
    ]) {
      expect(tags).toContain(tag)
    }
  })

  it("any sequence of accepted commands yields a state equal to the fold of its (stored and reloaded) events", () => {
    fc.assert(
      fc.property(life, ([create, commands]) => {
        const { state, events } = run([create, ...commands])
        expect(events.reduce(evolve, initialState)).toEqual(state)
        const loaded = Either.getOrThrow(loadTicket(asRecorded(events)))
        expect(loaded.state).toEqual(state)
        expect(loaded.version).toBe(events.length)
      }),
      { numRuns: 300 }
    )
  })

  it("accepted decisions never break the invariants", () => {
    fc.assert(
      fc.property(life, ([create, commands]) => {
        const { state } = run([create, ...commands])
        if (state._tag !== "Ticket") throw new Error("ticket not created")
        if (state.status === "closed") {
          expect(state.classification).not.toBe("")
          expect(state.snoozedUntil).toBeNull()
        }
        if (state.isSpam) expect(state.snoozedUntil).toBeNull()
        if (state.snoozedUntil !== null) expect(state.lastUnsnoozeReason).toBeNull()
        expect(new Set(state.messages.map((m) => m.id)).size).toBe(state.messages.length)
        expect(state.customerVisibleReplyCount).toBe(state.messages.filter((m) => m.isVisibleToCustomer).length)
        if (state.csatResponse !== null) expect(state.csatResponse.rating).toBeGreaterThanOrEqual(1)
      }),
      { numRuns: 300 }
    )
  })

  it("replaying a stream twice gives the same views", () => {
    fc.assert(
      fc.property(life, ([create, commands]) => {
        const { events } = run([create, ...commands])
        expect(projectTicketView(events)).toEqual(projectTicketView(events))
        expect(projectMessageViews(events)).toEqual(projectMessageViews(events))
        const reloaded = asRecorded(events).map((r) => Either.getOrThrow(fromRecordedEvent(r)))
        expect(projectTicketView(reloaded)).toEqual(projectTicketView(events))
      }),
      { numRuns: 200 }
    )
  })

  const rank = { pending: 0, sent: 1, failed: 2, read: 3 } as const
  const reports = fc.uniqueArray(
    fc.record({
      status: fc.constantFrom<ReportedDeliveryStatus>("sent", "read", "failed"),
      minute: fc.integer({ min: 0, max: 10_000 })
    }),
    { selector: (r) => r.minute, minLength: 1, maxLength: 12 }
  )

  it("delivery status never regresses, and the outcome is the same for any permutation of the reports", () => {
    fc.assert(
      fc.property(
        reports.chain((rs) => fc.tuple(fc.constant(rs), fc.shuffledSubarray(rs, { minLength: rs.length }))),
        ([inOrder, shuffled]) => {
          const fold = (rs: typeof inOrder) => {
            let d = pendingDelivery
            for (const r of rs) {
              const next = applyDeliveryReport(d, r.status, minute(r.minute), `reason ${r.minute}`)
              expect(rank[next.status]).toBeGreaterThanOrEqual(rank[d.status])
              d = next
            }
            return d
          }
          const a = fold(inOrder)
          expect(fold(shuffled)).toEqual(a)
          // Replaying every report again (duplicates) changes nothing.
          expect(fold([...inOrder, ...shuffled]).status).toBe(a.status)
        }
      ),
      { numRuns: 500 }
    )
  })

  it("every event decide builds is valid by its schema (decide skips the constructors' own check)", () => {
    const validate = Schema.validateSync(TicketEvent)
    fc.assert(
      fc.property(life, ([create, commands]) => {
        for (const event of run([create, ...commands]).events) expect(validate(event)).toBe(event)
      }),
      { numRuns: 300 }
    )
  })

  it("every event round-trips through its JSON encoding", () => {
    const encode = Schema.encodeSync(TicketEvent)
    const decode = Schema.decodeUnknownSync(TicketEvent)
    fc.assert(
      fc.property(Arbitrary.make(TicketEvent), (event) => {
        expect(decode(JSON.parse(JSON.stringify(encode(event))))).toEqual(event)
      }),
      { numRuns: 500 }
    )
  })
})
