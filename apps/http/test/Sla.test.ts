import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { type Priority, ticketStreamId } from "@helpdesk/domain"
import { isOpenAt } from "@helpdesk/schedule"
import { DateTime, Effect, Layer, Schema } from "effect"
import { BusinessHours } from "../src/BusinessHours/BusinessHours.js"
import { compileStored, type WeeklyHours } from "../src/BusinessHours/Validation.js"
import { ScheduleChangeFromBody } from "../src/BusinessHours/WireBody.js"
import { SlaBreachTimer } from "../src/Sla/SlaBreachTimer.js"
import { storedSlaOf } from "../src/Sla/SlaState.js"
import { collectingSlaViews } from "../src/Sla/SlaViewsWritten.js"
import { TicketCommands } from "../src/Tickets/TicketCommands.js"
import { del, get, patch, post, put } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

// The breach timer, and the ticket writes themselves for what a write hands its response.
const TestLayer = Tickets.withTicketServices(
  Layer.merge(SlaBreachTimer.Default, Layer.effect(TicketCommands, TicketCommands))
)

const MINUTE = 60_000
const policies = (org: Tickets.TicketOrg) => `${org.path}sla-policies/`

const createPolicy = (org: Tickets.TicketOrg, json: Record<string, unknown>) =>
  Effect.tap(post(policies(org), { token: org.ownerToken, json }), (response) =>
    assert.strictEqual(response.status, 201, response.text)
  ).pipe(Effect.map((response) => response.body as { id: number; name: string; position: number }))

/** A new organization with the one SLA policy `policy`, and an inbound ticket under it. */
const inboundUnderPolicy = (policy: Record<string, unknown>) =>
  Effect.gen(function* () {
    const org = yield* Tickets.organization
    yield* createPolicy(org, policy)
    const t = yield* Tickets.inboundTicket(org)
    return { org, t }
  })

const ms = (iso: unknown) => Date.parse(iso as string)

const breachEvents = (ticketId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ target: string; dueAt: string }>`
      SELECT data ->> 'target' AS target, data ->> 'dueAt' AS due_at FROM hd_events
      WHERE stream_id = ${ticketStreamId(ticketId)} AND event_type = 'TicketSlaBreached' ORDER BY stream_position`
  ).pipe(Effect.orDie)

const sweepAt = (epochMillis: number) =>
  Effect.flatMap(SlaBreachTimer, (timer) => timer.sweep(DateTime.unsafeMake(epochMillis)))

layer(TestLayer, { excludeTestServices: true, timeout: "180 seconds" })("SLA policies", (it) => {
  it.effect("policies: create, read, list paged in position order, change, delete; bad input is a 400 per field", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const first = yield* createPolicy(org, { name: "Urgent", priorities: ["urgent"], first_reply_minutes: 30 })
      const second = yield* createPolicy(org, { name: "Default", resolution_minutes: 2880, position: 0 })
      assert.strictEqual(first.position, 0)
      const list = yield* get(`${policies(org)}?page_size=1`, { token: org.ownerToken })
      assert.strictEqual(list.status, 200, list.text)
      const body = list.body as { count: number; next: string | null; results: Array<{ id: number }> }
      assert.strictEqual(body.count, 2)
      assert.isNotNull(body.next)
      // Same position: the older (lower id) first.
      assert.deepStrictEqual(
        body.results.map((p) => p.id),
        [first.id]
      )
      const read = yield* get(`${policies(org)}${second.id}/`, { token: org.ownerToken })
      assert.strictEqual(read.status, 200)
      assert.deepInclude(read.body as object, {
        name: "Default",
        priorities: [],
        inbox_ids: [],
        tag_ids: [],
        first_reply_minutes: null,
        next_reply_minutes: null,
        resolution_minutes: 2880,
        business_hours: true,
        pause_when_waiting_on_customer: true,
        pause_when_snoozed: true
      })
      const changed = yield* patch(`${policies(org)}${second.id}/`, {
        token: org.ownerToken,
        json: { business_hours: false, resolution_minutes: null }
      })
      assert.strictEqual(changed.status, 200, changed.text)
      assert.deepInclude(changed.body as object, { business_hours: false, resolution_minutes: null })

      const bad = yield* post(policies(org), {
        token: org.ownerToken,
        json: { name: "", priorities: ["soon"], first_reply_minutes: 0, inbox_ids: [0], resolution_minutes: 5_256_001 }
      })
      assert.strictEqual(bad.status, 400, bad.text)
      const errors = bad.body as Record<string, unknown>
      assert.includeMembers(Object.keys(errors), [
        "name",
        "priorities",
        "first_reply_minutes",
        "inbox_ids",
        "resolution_minutes"
      ])
      const atEdge = yield* post(policies(org), {
        token: org.ownerToken,
        json: { name: "Edge", first_reply_minutes: 1, resolution_minutes: 5_256_000 }
      })
      assert.strictEqual(atEdge.status, 201, atEdge.text)

      assert.strictEqual((yield* del(`${policies(org)}${second.id}/`, { token: org.ownerToken })).status, 204)
      assert.strictEqual((yield* get(`${policies(org)}${second.id}/`, { token: org.ownerToken })).status, 404)
      const other = yield* Tickets.organization
      assert.strictEqual((yield* get(`${policies(other)}${first.id}/`, { token: other.ownerToken })).status, 404)
    })
  )

  it.effect("the first matching policy by position applies; first reply clears first_reply_due_at", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const fallback = yield* createPolicy(org, {
        name: "Everyone",
        first_reply_minutes: 240,
        business_hours: false,
        position: 10
      })
      const urgent = yield* createPolicy(org, {
        name: "Urgent",
        priorities: ["urgent", "high"],
        first_reply_minutes: 15,
        resolution_minutes: 600,
        business_hours: false,
        position: 1
      })
      const plain = yield* Tickets.inboundTicket(org)
      const created = ms(plain.created_at)
      assert.deepStrictEqual(plain.sla_policy, { id: fallback.id, name: "Everyone" })
      assert.strictEqual(ms(plain.first_reply_due_at), created + 240 * MINUTE)
      assert.isNull(plain.resolution_due_at)
      assert.strictEqual(plain.sla_breached, false)

      const hot = yield* Tickets.inboundTicket(org, { priority: "urgent" })
      assert.deepStrictEqual(hot.sla_policy, { id: urgent.id, name: "Urgent" })
      assert.strictEqual(ms(hot.first_reply_due_at), ms(hot.created_at) + 15 * MINUTE)
      assert.strictEqual(ms(hot.resolution_due_at), ms(hot.created_at) + 600 * MINUTE)

      // Lowering the priority moves the ticket to the fallback policy (re-evaluated on every write).
      const lowered = yield* Tickets.updateTicket(org, hot.id, { priority: "low" })
      assert.strictEqual(lowered.status, 200, lowered.text)
      assert.deepStrictEqual((lowered.body as { sla_policy: unknown }).sla_policy, {
        id: fallback.id,
        name: "Everyone"
      })

      // An internal note is no reply; a reply to the customer is.
      yield* Tickets.postMessage(org, plain.id, { content: "Looking into it", is_visible_to_customer: false })
      assert.isNotNull((yield* Tickets.readTicketBody(org, plain.id)).first_reply_due_at)
      const reply = yield* Tickets.postMessage(org, plain.id, { content: "We are on it." })
      assert.strictEqual(reply.status, 201, reply.text)
      const replied = yield* Tickets.readTicketBody(org, plain.id)
      assert.isNull(replied.first_reply_due_at)
      assert.isNull(replied.next_reply_due_at)

      // A ticket an associate opened has had its first word from us.
      const outbound = yield* Tickets.ticket(org)
      assert.isNull(outbound.first_reply_due_at)
    })
  )

  it.effect(
    "a write answers the SLA state its own transaction wrote; one that decides nothing answers the read model's, as a policy change left it",
    () =>
      Effect.gen(function* () {
        const { org, t } = yield* inboundUnderPolicy({ name: "All", first_reply_minutes: 60, business_hours: false })
        const commands = yield* TicketCommands
        const caller = { _tag: "Person", userId: org.ownerId, tokenId: 0 } as const
        const update = (priority: Priority) => commands.update(org.organizationId, caller, t.id, { priority })

        // Given a write that changes the ticket: the `sla` projection hands over the view it wrote for that state.
        const [raised, views] = yield* collectingSlaViews(update("high"))
        assert.strictEqual(views.size, 1)
        assert.deepStrictEqual(views.get(raised), yield* storedSlaOf(t.id))
        assert.strictEqual(views.get(raised)?.policyName, "All")

        // Given the policy changed since (no event: the read model is recomputed), a write that decides nothing
        // collects nothing, and its answer is the read model's.
        const list = yield* get(policies(org), { token: org.ownerToken })
        const policyId = (list.body as { results: Array<{ id: number }> }).results[0]!.id
        const renamed = yield* patch(`${policies(org)}${policyId}/`, {
          token: org.ownerToken,
          json: { name: "Renamed", first_reply_minutes: 5 }
        })
        assert.strictEqual(renamed.status, 200, renamed.text)
        const [unchanged, none] = yield* collectingSlaViews(update("high"))
        assert.strictEqual(unchanged, raised)
        assert.strictEqual(none.size, 0)
        const answered = yield* Tickets.updateTicket(org, t.id, { priority: "high" })
        assert.strictEqual(answered.status, 200, answered.text)
        const body = answered.body as { sla_policy: { name: string }; first_reply_due_at: string; created_at: string }
        assert.strictEqual(body.sla_policy.name, "Renamed")
        assert.strictEqual(ms(body.first_reply_due_at), ms(body.created_at) + 5 * MINUTE)
      })
  )

  it.effect("a customer message after the reply starts next_reply_due_at; a reply clears it", () =>
    Effect.gen(function* () {
      const { org, t } = yield* inboundUnderPolicy({
        name: "Replies",
        first_reply_minutes: 60,
        next_reply_minutes: 45,
        business_hours: false
      })
      yield* Tickets.postMessage(org, t.id, { content: "Hello, checking." })
      assert.isNull((yield* Tickets.readTicketBody(org, t.id)).next_reply_due_at)
      const customer = yield* Tickets.customerReply(org, t.id, "Any news?")
      assert.strictEqual(customer.status, 201, customer.text)
      const waiting = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(
        ms(waiting.next_reply_due_at),
        ms((customer.body as { created_at: string }).created_at) + 45 * MINUTE
      )
      // A second customer message does not move the clock: the first unanswered one started it.
      yield* Tickets.customerReply(org, t.id, "Hello??")
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).next_reply_due_at, waiting.next_reply_due_at)
      yield* Tickets.postMessage(org, t.id, { content: "Here is the answer." })
      assert.isNull((yield* Tickets.readTicketBody(org, t.id)).next_reply_due_at)
    })
  )

  it.effect("snoozed: the clock stops (no due time) and resumes with the snoozed time added", () =>
    Effect.gen(function* () {
      const { org, t } = yield* inboundUnderPolicy({ name: "Resolve", resolution_minutes: 600, business_hours: false })
      const created = ms(t.created_at)
      assert.strictEqual(ms(t.resolution_due_at), created + 600 * MINUTE)
      const snoozed = yield* Tickets.snoozeTicket(org, t.id, Tickets.inAnHour())
      assert.strictEqual(snoozed.status, 200, snoozed.text)
      assert.isNull((snoozed.body as { resolution_due_at: unknown }).resolution_due_at)
      yield* Effect.sleep("50 millis")
      const unsnoozed = yield* Tickets.unsnoozeTicket(org, t.id)
      assert.strictEqual(unsnoozed.status, 200, unsnoozed.text)
      const back = yield* Tickets.readTicketBody(org, t.id)
      const pausedFor = ms(back.last_snooze_ended_at) - ms((snoozed.body as { updated_at: string }).updated_at)
      assert.isAbove(pausedFor, 0)
      assert.strictEqual(ms(back.resolution_due_at), created + 600 * MINUTE + pausedFor)

      // A policy that does not pause while snoozed keeps counting.
      const policyList = yield* get(policies(org), { token: org.ownerToken })
      const id = (policyList.body as { results: Array<{ id: number }> }).results[0]!.id
      yield* patch(`${policies(org)}${id}/`, { token: org.ownerToken, json: { pause_when_snoozed: false } })
      assert.strictEqual(ms((yield* Tickets.readTicketBody(org, t.id)).resolution_due_at), created + 600 * MINUTE)
    })
  )

  it.effect("the breach timer writes TicketSlaBreached once, at the due instant, and sla_breached shows it", () =>
    Effect.gen(function* () {
      const { org, t } = yield* inboundUnderPolicy({ name: "Fast", first_reply_minutes: 30, business_hours: false })
      const due = ms(t.first_reply_due_at)
      yield* sweepAt(due - 1)
      assert.deepStrictEqual(yield* breachEvents(t.id), [])
      yield* sweepAt(due)
      yield* sweepAt(due + MINUTE)
      assert.deepStrictEqual(yield* breachEvents(t.id), [{ target: "first_reply", dueAt: new Date(due).toISOString() }])
      const after = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(after.sla_breached, true)
      // Still due (not replied): the due time stays; the breach is recorded once.
      assert.strictEqual(ms(after.first_reply_due_at), due)
      const history = yield* get(Tickets.ticketPath(org, t.id, "events/"), { token: org.ownerToken })
      if (history.status === 200) {
        const types = (history.body as { results: Array<{ type: string }> }).results.map((e) => e.type)
        assert.include(types, "TicketSlaBreached")
      }
    })
  )

  it.effect("business hours changes recompute due times (PUT business-hours, exceptions)", () =>
    Effect.gen(function* () {
      const { org, t } = yield* inboundUnderPolicy({ name: "Business", resolution_minutes: 120 })
      const created = ms(t.created_at)
      // No business hours saved: open around the clock.
      assert.strictEqual(ms(t.resolution_due_at), created + 120 * MINUTE)

      const nineToFive = { opens_at: "09:00", closes_at: "17:00" }
      const weekly = { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive }
      const saved = yield* put(`${org.path}business-hours/`, {
        token: org.ownerToken,
        json: { timezone: "Europe/Berlin", weekly_hours: weekly }
      })
      assert.strictEqual(saved.status, 200, saved.text)
      const full: WeeklyHours = { sat: null, sun: null, ...weekly }
      const expected = (exceptions: Parameters<typeof compileStored>[2]) => {
        const schedule = compileStored("Europe/Berlin", full, exceptions)
        // Brute force from the creation instant: the partial first minute, then whole minutes (the hours change on
        // minutes), each open one spending its share of the 120 minutes, to the millisecond.
        const start = Math.ceil(created / MINUTE) * MINUTE
        let remaining = 120 * MINUTE - (isOpenAt(schedule, new Date(created)) ? start - created : 0)
        for (let m = start; ; m += MINUTE) {
          if (!isOpenAt(schedule, new Date(m))) continue
          if (remaining <= MINUTE) return m + remaining
          remaining -= MINUTE
        }
      }
      const recomputed = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(ms(recomputed.resolution_due_at), expected([]))

      // Tomorrow and the day after closed: the due time moves past them.
      const tomorrow = new Date(created + 24 * 3_600_000).toISOString().slice(0, 10)
      const exception = yield* post(`${org.path}business-hours/exceptions/`, {
        token: org.ownerToken,
        json: { date: tomorrow, name: "Closed" }
      })
      assert.strictEqual(exception.status, 201, exception.text)
      const exceptions = [
        { id: 1, date: tomorrow, name: "Closed", repeats_yearly: false, opens_at: null, closes_at: null }
      ]
      assert.strictEqual(ms((yield* Tickets.readTicketBody(org, t.id)).resolution_due_at), expected(exceptions))
    })
  )

  it.effect("a schedule changed through the services (as the demo does) moves due times in the same transaction", () =>
    Effect.gen(function* () {
      const { org, t } = yield* inboundUnderPolicy({ name: "Business", resolution_minutes: 120 })
      const aroundTheClock = ms(t.resolution_due_at)
      const closed = { opens_at: "00:00", closes_at: "00:01" }
      const change = yield* Schema.decodeUnknown(ScheduleChangeFromBody)({
        timezone: "UTC",
        weekly_hours: { mon: closed, tue: closed, wed: closed, thu: closed, fri: closed, sat: closed, sun: closed }
      })
      const sql = yield* SqlClient.SqlClient
      // Rolled back with the change: no due time is written outside the change's transaction.
      yield* sql
        .withTransaction(
          Effect.zipRight((yield* BusinessHours).replace(org.organizationId, change), Effect.fail("roll back"))
        )
        .pipe(Effect.ignore)
      assert.strictEqual(ms((yield* Tickets.readTicketBody(org, t.id)).resolution_due_at), aroundTheClock)
      yield* (yield* BusinessHours).replace(org.organizationId, change)
      // One open minute a day: two hours of business time are months away.
      const moved = ms((yield* Tickets.readTicketBody(org, t.id)).resolution_due_at)
      assert.isAbove(moved, aroundTheClock + 30 * 24 * 3_600_000)
    })
  )
})
