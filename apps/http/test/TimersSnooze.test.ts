import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { OrganizationId, ticketStreamId } from "@helpdesk/domain"
import { DateTime, Effect, Layer } from "effect"
import { SnoozeTimer, SnoozeTimerLive } from "../src/Timers/SnoozeTimer.js"
import * as Tickets from "./TicketsSupport.js"

// The timer as a service (swept by the tests at chosen instants) and the service's own loop at its default interval.
const TestLayer = Tickets.withTicketServices(Layer.mergeAll(SnoozeTimer.Default, SnoozeTimerLive))

const sweepAt = (now: DateTime.Utc) => Effect.flatMap(SnoozeTimer, (timer) => timer.sweep(now))

const snooze = (org: Tickets.TicketOrg, id: number, until: string) =>
  Effect.tap(Tickets.snoozeTicket(org, id, until), (response) =>
    assert.strictEqual(response.status, 200, response.text)
  )

/** `count` tickets of a new organization, each snoozed for the next hour (until `until`). */
const snoozedForAnHour = (count: number) =>
  Effect.gen(function* () {
    const org = yield* Tickets.organization
    const until = inMinutes(60)
    const tickets = yield* Effect.forEach(Array.from({ length: count }), () =>
      Effect.tap(Tickets.ticket(org), (t) => snooze(org, t.id, until))
    )
    return { org, tickets, until }
  })

/** One ticket of a new organization, snoozed for the next hour (until `until`). */
const snoozedTicket = Effect.map(snoozedForAnHour(1), ({ org, tickets, until }) => ({ org, t: tickets[0]!, until }))

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString()
const instant = (iso: string, ms = 0) => DateTime.unsafeMake(Date.parse(iso) + ms)

const unsnoozeEvents = (ticketId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ reason: string; at: string }>`
      SELECT data ->> 'reason' AS reason, data ->> 'at' AS at FROM hd_events
      WHERE stream_id = ${ticketStreamId(ticketId)} AND event_type = 'TicketUnsnoozed' ORDER BY stream_position`.pipe(
      Effect.orDie
    )
  )

layer(TestLayer, { excludeTestServices: true })("snooze timer", (it) => {
  it.effect("given a snoozed ticket, when its snoozed_until comes, then the timer unsnoozes it with reason timer", () =>
    Effect.gen(function* () {
      const { org, t, until } = yield* snoozedTicket

      yield* sweepAt(instant(until, -1))
      const early = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(early.snoozed_until, until, "not a millisecond early")

      yield* sweepAt(instant(until))
      const woken = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(woken.snoozed_until, null)
      assert.strictEqual(woken.snoozed_by, null)
      assert.strictEqual(woken.last_unsnooze_reason, "timer")
      assert.strictEqual(woken.last_snooze_ended_at, until)
      assert.deepStrictEqual(yield* unsnoozeEvents(t.id), [{ reason: "timer", at: until }])

      // Swept again (another replica, a later round): nothing more.
      yield* sweepAt(instant(until, 60_000))
      assert.strictEqual((yield* unsnoozeEvents(t.id)).length, 1)
    })
  )

  it.effect("given a re-snooze before the timer ran, then the re-snooze wins", () =>
    Effect.gen(function* () {
      const { org, t, until: first } = yield* snoozedTicket
      const second = inMinutes(180)
      yield* snooze(org, t.id, second)
      yield* sweepAt(instant(first, 60_000))
      const still = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(still.snoozed_until, second)
      assert.strictEqual(still.last_unsnooze_reason, null)
      assert.deepStrictEqual(yield* unsnoozeEvents(t.id), [])
      yield* sweepAt(instant(second))
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).last_unsnooze_reason, "timer")
    })
  )

  it.effect("given a timer fired for a snooze that was replaced meanwhile, then it appends nothing", () =>
    Effect.gen(function* () {
      // What the timer writes for a ticket whose row said `first` when the ticket is snoozed until `second`.
      const { org, t, until: first } = yield* snoozedTicket
      const second = inMinutes(120)
      yield* snooze(org, t.id, second)
      const timer = yield* SnoozeTimer
      const fired = yield* timer.fire(
        [{ ticketId: t.id, organizationId: org.organizationId, snoozedUntil: instant(first) }],
        instant(first, 1)
      )
      assert.deepStrictEqual(fired, { claimed: 1, acted: 0, failed: 0 })
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).snoozed_until, second)
      assert.deepStrictEqual(yield* unsnoozeEvents(t.id), [])
      // And a ticket of another organization than its row says is left alone (and reported).
      const other = yield* timer.fire(
        [{ ticketId: t.id, organizationId: OrganizationId.make("0"), snoozedUntil: instant(second) }],
        instant(second, 1)
      )
      assert.deepStrictEqual(other, { claimed: 1, acted: 0, failed: 1 })
      assert.deepStrictEqual(yield* unsnoozeEvents(t.id), [])
    })
  )

  it.effect("given a manual unsnooze or a customer's reply before, then the timer does nothing", () =>
    Effect.gen(function* () {
      const { org, tickets, until } = yield* snoozedForAnHour(2)
      const [manual, replied] = tickets
      const unsnoozed = yield* Tickets.unsnoozeTicket(org, manual.id)
      assert.strictEqual(unsnoozed.status, 200)
      yield* Tickets.customerReply(org, replied.id, "Any news?")

      yield* sweepAt(instant(until, 60_000))
      assert.strictEqual((yield* Tickets.readTicketBody(org, manual.id)).last_unsnooze_reason, "manual")
      assert.strictEqual((yield* Tickets.readTicketBody(org, replied.id)).last_unsnooze_reason, "customer_reply")
      assert.deepStrictEqual(
        (yield* unsnoozeEvents(manual.id)).map((e) => e.reason),
        ["manual"]
      )
      assert.deepStrictEqual(
        (yield* unsnoozeEvents(replied.id)).map((e) => e.reason),
        ["customer_reply"]
      )
    })
  )

  it.effect(
    "given a snoozed ticket closed or marked as spam, then the snooze is cleared and the timer does nothing",
    () =>
      Effect.gen(function* () {
        const { org, tickets, until } = yield* snoozedForAnHour(2)
        const [closed, spam] = tickets
        assert.strictEqual(
          (yield* Tickets.updateTicket(org, closed.id, { status: "closed", classification: "resolved" })).status,
          200
        )
        assert.strictEqual((yield* Tickets.updateTicket(org, spam.id, { is_spam: true })).status, 200)
        yield* sweepAt(instant(until, 60_000))
        for (const id of [closed.id, spam.id]) {
          const body = yield* Tickets.readTicketBody(org, id)
          assert.strictEqual(body.snoozed_until, null)
          assert.strictEqual(body.last_unsnooze_reason, null)
          assert.deepStrictEqual(yield* unsnoozeEvents(id), [])
        }
      })
  )

  it.effect("the service's loop unsnoozes a ticket a few seconds after snoozed_until at the latest", () =>
    Effect.gen(function* () {
      const { org, t } = yield* Tickets.organizationWithTicket()
      const until = new Date(Date.now() + 1500).toISOString()
      yield* snooze(org, t.id, until)
      let body = yield* Tickets.readTicketBody(org, t.id)
      for (let i = 0; i < 100 && body.last_unsnooze_reason === null; i++) {
        yield* Effect.sleep("100 millis")
        body = yield* Tickets.readTicketBody(org, t.id)
      }
      assert.strictEqual(body.last_unsnooze_reason, "timer")
      const lag = Date.parse(body.last_snooze_ended_at) - Date.parse(until)
      assert.isAtLeast(lag, 0)
      assert.isBelow(lag, 5000, `unsnoozed ${lag} ms after snoozed_until`)
    })
  )
})
