/**
 * Fold throughput: builds 10,000 ticket views from 1,000,000 events, beside two baselines measured in
 * the same run (a bare loop over the same events, and a loop copying each event into a plain object),
 * plus decode + fold from stored JSON for a slice of the streams.
 * Run: npm run bench -w @helpdesk/domain
 */
import { cpus, loadavg } from "node:os"
import {
  CreateEmailDeliveryReported,
  evolve,
  fromRecordedEvents,
  GlobalCheckpointStart,
  initialState,
  MessageAdded,
  MessageDeliveryReported,
  projectTicketView,
  type RecordedEvent,
  TicketActivated,
  TicketAssigned,
  TicketClosed,
  TicketCreated,
  type TicketEvent,
  TicketPriorityChanged,
  TicketReopened,
  TicketSnoozed,
  type TicketState,
  TicketTagsChanged,
  TicketUnsnoozed,
  type TicketView,
  ticketView,
  toNewEvent,
  type UserRef
} from "@helpdesk/domain"
import { emailTicketFields } from "@helpdesk/domain/testing"
import { DateTime, Either } from "effect"

const TICKETS = Number(process.env.TICKETS ?? 10_000)
const EVENTS_PER_TICKET = 100
const DECODE_TICKETS = Math.min(200, TICKETS)
const ROUNDS = 5

const noValidation = { disableValidation: true }
const t0 = Date.UTC(2026, 0, 1)
const at = (ms: number) => DateTime.unsafeMake(t0 + ms)
const agent: UserRef = { id: 1, email: "a@x.test", name: "A", profilePictureUrl: "" }
const associate = { role: "associate" as const, user: agent }
const customer = { role: "customer" as const, user: null }
const system = { role: "system" as const, user: null }

/** A realistic ticket life: creation, a conversation with emailed replies, reports, snoozes, edits, close. */
const ticketEvents = (id: number): Array<TicketEvent> => {
  const base = (i: number) => ({ at: at(id * 1_000_000 + i * 60_000), by: associate })
  const events: Array<TicketEvent> = [
    new TicketCreated(
      {
        ...base(0),
        by: id % 2 === 0 ? associate : customer,
        ...emailTicketFields,
        ticketId: id,
        publicId: `T-${id}`,
        subject: `Ticket ${id}`,
        kind: "text",
        customer: { ...emailTicketFields.customer, id },
        externalRecipientEmails: ["cc@x.test"],
        bccRecipientEmails: [],
        fromEmail: "c@x.test",
        fromName: "C",
        attachments: [],
        tags: [],
        priority: "not_set",
        assignee: null,
        sendsCreateEmail: id % 2 === 0
      },
      noValidation
    )
  ]
  let messageId = id * 1000
  for (let i = 1; events.length < EVENTS_PER_TICKET; i++) {
    switch (i % 10) {
      case 1:
      case 4:
      case 7: {
        const fromCustomer = i % 4 === 0
        events.push(
          new MessageAdded(
            {
              ...base(i),
              by: fromCustomer ? customer : associate,
              message: {
                id: ++messageId,
                author: fromCustomer ? null : agent,
                role: fromCustomer ? "customer" : "associate",
                sender: null,
                content: "Hello there",
                contentHtml: "<p>Hello there</p>",
                kind: "text",
                hasRawContent: false,
                isVisibleToCustomer: i % 7 !== 0,
                externalRecipientEmails: ["cc@x.test"],
                bccRecipientEmails: [],
                nextAssignee: null,
                nextPriority: null,
                nextAction: "",
                attachments: [],
                sendsEmail: !fromCustomer,
                createdAt: base(i).at
              }
            },
            noValidation
          )
        )
        break
      }
      case 2:
        events.push(
          new MessageDeliveryReported({ ...base(i), by: system, messageId, status: "sent", reason: "" }, noValidation)
        )
        break
      case 3:
        events.push(new TicketPriorityChanged({ ...base(i), priority: i % 3 === 0 ? "high" : "low" }, noValidation))
        break
      case 5:
        events.push(new TicketSnoozed({ ...base(i), until: at(id * 1_000_000 + (i + 5) * 60_000) }, noValidation))
        break
      case 6:
        events.push(new TicketUnsnoozed({ ...base(i), by: system, reason: "timer" }, noValidation))
        break
      case 8:
        events.push(
          i < 10
            ? new TicketActivated(base(i), noValidation)
            : new TicketAssigned({ ...base(i), assignee: i % 20 === 8 ? agent : null }, noValidation)
        )
        break
      case 9:
        events.push(
          new CreateEmailDeliveryReported(
            { ...base(i), by: system, status: i % 30 === 9 ? "read" : "sent", reason: "" },
            noValidation
          )
        )
        break
      case 0:
        events.push(
          i % 20 === 0
            ? new TicketReopened({ ...base(i), reason: "customer_reply" }, noValidation)
            : i % 30 === 0
              ? new TicketTagsChanged({ ...base(i), tags: [{ id: i, name: `t${i}`, color: "" }] }, noValidation)
              : new TicketClosed({ ...base(i), classification: "resolved" }, noValidation)
        )
        break
    }
  }
  return events
}

const streams: Array<Array<TicketEvent>> = []
for (let id = 1; id <= TICKETS; id++) streams.push(ticketEvents(id))
const totalEvents = streams.reduce((n, s) => n + s.length, 0)

const measure = (label: string, events: number, run: () => unknown) => {
  const times: Array<number> = []
  let sink: unknown
  run() // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint()
    sink = run()
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)]!
  const perSecond = (events / median) * 1000
  console.log(
    `${label.padEnd(52)} ${String(events).padStart(9)} events  median ${median.toFixed(1).padStart(8)} ms  ` +
      `${Math.round(perSecond).toLocaleString("en-US").padStart(12)} events/s  ${((median * 1e6) / events).toFixed(0).padStart(5)} ns/event`
  )
  return { sink, perSecond }
}

console.log(
  `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`
)
console.log(`${TICKETS} tickets x ${EVENTS_PER_TICKET} events = ${totalEvents} events; median of ${ROUNDS} rounds\n`)

// Baseline 1: touching every pre-decoded event once (the floor any fold pays).
measure("baseline: bare loop over events (count by tag)", totalEvents, () => {
  let n = 0
  for (const stream of streams) for (const e of stream) if (e._tag === "MessageAdded") n++
  return n
})

// Baseline 2: copying each pre-decoded event into a fresh small plain object (one allocation per event).
measure("baseline: copy each event into a plain object", totalEvents, () => {
  const out: Array<unknown> = []
  for (const stream of streams) {
    let acc = { count: 0, tag: "", at: 0 }
    for (const e of stream) acc = { count: acc.count + 1, tag: e._tag, at: e.at.epochMillis }
    out.push(acc)
  }
  return out
})

const fold = measure(`projection fold: projectTicketView (${TICKETS} views)`, totalEvents, () => {
  const views: Array<TicketView | null> = []
  for (const stream of streams) views.push(projectTicketView(stream))
  return views
})
if ((fold.sink as Array<TicketView | null>).filter((v) => v !== null).length !== TICKETS) {
  throw new Error("expected one view per ticket")
}

// The decider's step: a fresh immutable state per event (what command handling pays per event).
measure(`decider fold: reduce with evolve + ticketView (${TICKETS} views)`, totalEvents, () => {
  const views: Array<TicketView> = []
  for (const stream of streams) {
    let state: TicketState = initialState
    for (const e of stream) state = evolve(state, e)
    if (state._tag === "Ticket") views.push(ticketView(state))
  }
  return views
})

// Stored form: what the port returns (type, version, JSON data already parsed from jsonb).
const stored: Array<Array<RecordedEvent>> = streams.slice(0, DECODE_TICKETS).map((stream, s) =>
  stream.map((e, i) => ({
    ...toNewEvent(e, `${s}-${i}`),
    streamId: `ticket-${s}`,
    streamPosition: i + 1,
    globalPosition: BigInt(i + 1),
    checkpoint: GlobalCheckpointStart,
    createdAt: new Date(0)
  }))
)
const storedEvents = stored.reduce((n, s) => n + s.length, 0)

measure(`decode + fold from stored JSON (${DECODE_TICKETS} views)`, storedEvents, () => {
  const views: Array<TicketView> = []
  for (const stream of stored) {
    const view = projectTicketView(Either.getOrThrow(fromRecordedEvents(stream)))
    if (view !== null) views.push(view)
  }
  return views
})

console.log(`\nprojection fold target >= 1,000,000 events/s: ${fold.perSecond >= 1_000_000 ? "met" : "NOT met"}`)
