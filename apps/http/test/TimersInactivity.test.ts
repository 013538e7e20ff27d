import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { backfillWaitingSince } from "../src/Database/migrations/0071_timers.js"
import { InactivityTimer } from "../src/Timers/InactivityTimer.js"
import { get, patch } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

const TestLayer = Tickets.withTicketServices(InactivityTimer.Default)

const DAY = 86_400_000

/** `days` days (of 24 hours) and `ms` milliseconds after the ISO instant `iso`. */
const after = (iso: string, days: number, ms = 0) => DateTime.unsafeMake(Date.parse(iso) + days * DAY + ms)

/** Runs the timer as if it were `now`. */
const sweepAt = (now: DateTime.Utc) => Effect.flatMap(InactivityTimer, (timer) => timer.sweep(now))

/** Sets the inactivity settings of the ticket's inbox (and, with `organization`, of the organization). */
const configure = (
  org: Tickets.TicketOrg,
  inboxId: number,
  inbox: Record<string, unknown>,
  organizationSettings?: Record<string, unknown>
) =>
  Effect.gen(function* () {
    const updated = yield* patch(`${org.path}inboxes/${inboxId}/`, { token: org.ownerToken, json: inbox })
    assert.strictEqual(updated.status, 200, updated.text)
    if (organizationSettings !== undefined) {
      const o = yield* patch(org.path, { token: org.ownerToken, json: organizationSettings })
      assert.strictEqual(o.status, 200, o.text)
    }
  })

/** A ticket an associate created for a customer (so it waits on the customer), in an inbox set up with `inbox`. */
const waitingTicket = (
  inbox: Record<string, unknown>,
  options: { readonly organization?: Record<string, unknown>; readonly body?: Record<string, unknown> } = {}
) =>
  Effect.gen(function* () {
    const org = yield* Tickets.organization
    const t = yield* Tickets.ticket(org, options.body ?? {})
    assert.strictEqual(t.waiting_on, "customer")
    yield* configure(org, t.inbox.id, inbox, options.organization)
    return { org, t, since: t.created_at as string }
  })

const messagesOf = (org: Tickets.TicketOrg, id: number) =>
  Effect.map(
    get(Tickets.ticketPath(org, id, "messages/"), { token: org.ownerToken }),
    // biome-ignore lint/suspicious/noExplicitAny: wire JSON
    (response) => response.body.results as ReadonlyArray<any>
  )

/** The ticket's queued e-mails of messages (not its create-email). */
const messageMails = (id: number) =>
  Effect.map(Tickets.outbox(id), (rows) => rows.filter((row) => row.kind === "message"))

const systemMessages = (org: Tickets.TicketOrg, id: number) =>
  Effect.map(messagesOf(org, id), (messages) => messages.filter((m) => m.role === "system"))

/** Sweeps a millisecond before `days` after `since`, when the ticket is still open, then at it, when it closes. */
const closesForInactivityAt = (org: Tickets.TicketOrg, id: number, since: string, days: number) =>
  Effect.gen(function* () {
    yield* sweepAt(after(since, days, -1))
    assert.strictEqual((yield* Tickets.readTicketBody(org, id)).status, "created", "not a millisecond early")
    yield* sweepAt(after(since, days))
    const closed = yield* Tickets.readTicketBody(org, id)
    assert.strictEqual(closed.status, "closed")
    assert.strictEqual(closed.classification, "customer_inactivity")
    return closed
  })

const reminders = { enable_inactivity_reminders: true, customer_inactivity_reminder_period: 2 }
const autoClose = { enable_auto_close_inactive_tickets: true, customer_max_inactivity_period: 5 }

/** An inbox's two rules both switched on or off, with its periods (days; null inherits the organization's). */
const rules = (on: boolean, reminderPeriod: number | null, maxPeriod: number | null) => ({
  enable_inactivity_reminders: on,
  enable_auto_close_inactive_tickets: on,
  customer_inactivity_reminder_period: reminderPeriod,
  customer_max_inactivity_period: maxPeriod
})

/** The organization's periods (days), as `waitingTicket`'s options. */
const organizationPeriods = (reminderPeriod: number, maxPeriod: number) => ({
  organization: { customer_inactivity_reminder_period: reminderPeriod, customer_max_inactivity_period: maxPeriod }
})

layer(TestLayer, { excludeTestServices: true })("inactivity timer", (it) => {
  it.effect(
    "given reminders after 2 days, when 2 days pass, then one system message reminds the customer by e-mail, once",
    () =>
      Effect.gen(function* () {
        const { org, t, since } = yield* waitingTicket(reminders)
        yield* sweepAt(after(since, 2, -1))
        assert.deepStrictEqual(yield* systemMessages(org, t.id), [], "not a millisecond early")

        yield* sweepAt(after(since, 2))
        const [reminder, ...more] = yield* systemMessages(org, t.id)
        assert.deepStrictEqual(more, [])
        assert.strictEqual(reminder.is_visible_to_customer, true)
        assert.strictEqual(reminder.author, null)
        assert.strictEqual(reminder.created_at, DateTime.formatIso(after(since, 2)))
        assert.strictEqual(
          reminder.content,
          `We are still waiting for your reply on ticket #${t.public_id} ("Parcel missing"). If you still need help, simply reply to this message.`
        )
        const mails = yield* messageMails(t.id)
        assert.deepStrictEqual(
          mails.map((m) => [m.kind, Number(m.messageId)]),
          [["message", reminder.id]]
        )
        assert.strictEqual(mails[0]!.payload.to, "jane@example.com")

        // The reminder does not restart the wait, and it is sent once per waiting period.
        const afterReminder = yield* Tickets.readTicketBody(org, t.id)
        assert.strictEqual(afterReminder.waiting_on, "customer")
        assert.strictEqual(afterReminder.status, "created")
        yield* sweepAt(after(since, 3))
        yield* sweepAt(after(since, 30))
        assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)
        assert.strictEqual((yield* messageMails(t.id)).length, 1)
      })
  )

  it.effect("given the customer replied, then nothing is due; an associate's next reply starts a new period", () =>
    Effect.gen(function* () {
      const { org, t, since } = yield* waitingTicket({ ...reminders, ...autoClose })
      yield* sweepAt(after(since, 2))
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)

      const reply = yield* Tickets.customerReply(org, t.id, "Still broken.")
      assert.strictEqual(reply.status, 201, reply.text)
      yield* sweepAt(after(since, 60))
      const waiting = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(waiting.waiting_on, "associate")
      assert.strictEqual(waiting.status, "created")
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)

      const answer = yield* Tickets.postMessage(org, t.id, {
        content: "Could you send a photo?",
        is_visible_to_customer: true
      })
      assert.strictEqual(answer.status, 201, answer.text)
      const answeredAt = answer.body.created_at as string
      yield* sweepAt(after(answeredAt, 2, -1))
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)
      yield* sweepAt(after(answeredAt, 2))
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 2, "a new waiting period, a new reminder")
      // An internal note does not restart the period: the close comes 5 days after the answer.
      yield* Tickets.postMessage(org, t.id, { content: "Waiting for the photo.", is_visible_to_customer: false })
      yield* sweepAt(after(answeredAt, 5))
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).status, "closed")
    })
  )

  it.effect(
    "given reminders after 2 days and auto-close after 5, then the reminder announces the close, which comes at day 5",
    () =>
      Effect.gen(function* () {
        const { org, t, since } = yield* waitingTicket({ ...reminders, ...autoClose })
        yield* sweepAt(after(since, 2))
        const [reminder] = yield* systemMessages(org, t.id)
        assert.isTrue(reminder.content.endsWith(" Without a reply, the ticket will be closed in 3 days."))

        const closed = yield* closesForInactivityAt(org, t.id, since, 5)
        assert.strictEqual(closed.updated_at, DateTime.formatIso(after(since, 5)))
        // Closed: nothing more happens (and closing sent no message).
        yield* sweepAt(after(since, 50))
        assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)
        assert.strictEqual((yield* messageMails(t.id)).length, 1)
      })
  )

  it.effect(
    "given the timer did not run for days, then the customer is still warned first and the close waits (max - reminder) days",
    () =>
      Effect.gen(function* () {
        const { org, t, since } = yield* waitingTicket({ ...reminders, ...autoClose })
        yield* sweepAt(after(since, 10))
        assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).status, "created")
        assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)
        yield* closesForInactivityAt(org, t.id, since, 13)
      })
  )

  it.effect("given auto-close without reminders, then the ticket closes at the maximum period with no message", () =>
    Effect.gen(function* () {
      const { org, t, since } = yield* waitingTicket({ ...autoClose, customer_inactivity_reminder_period: 2 })
      yield* closesForInactivityAt(org, t.id, since, 5)
      assert.deepStrictEqual(yield* systemMessages(org, t.id), [])
    })
  )

  it.effect("given a reminder period not shorter than the maximum, then auto-close comes without a reminder", () =>
    Effect.gen(function* () {
      const { org, t, since } = yield* waitingTicket({
        ...reminders,
        ...autoClose,
        customer_inactivity_reminder_period: 5
      })
      yield* sweepAt(after(since, 5))
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).status, "closed")
      assert.deepStrictEqual(yield* systemMessages(org, t.id), [])
    })
  )

  it.effect("given the inbox's rules switched off, then nothing happens, whatever the periods", () =>
    Effect.gen(function* () {
      const { org, t, since } = yield* waitingTicket(rules(false, 1, 2), organizationPeriods(1, 2))
      yield* sweepAt(after(since, 100))
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).status, "created")
      assert.deepStrictEqual(yield* systemMessages(org, t.id), [])
    })
  )

  it.effect("given the inbox's periods are null, then the organization's apply", () =>
    Effect.gen(function* () {
      const { org, t, since } = yield* waitingTicket(rules(true, null, null), organizationPeriods(1, 3))
      const inbox = yield* get(`${org.path}inboxes/${t.inbox.id}/`, { token: org.ownerToken })
      assert.strictEqual(inbox.body.customer_max_inactivity_period_inherited, true)
      yield* sweepAt(after(since, 1, -1))
      assert.deepStrictEqual(yield* systemMessages(org, t.id), [])
      yield* sweepAt(after(since, 1))
      const [reminder] = yield* systemMessages(org, t.id)
      assert.isTrue(reminder.content.endsWith("closed in 2 days."))
      yield* closesForInactivityAt(org, t.id, since, 3)
    })
  )

  it.effect("given a period of 0, then that rule is off (the inbox's 0 overrides the organization's)", () =>
    Effect.gen(function* () {
      const inboxZero = yield* waitingTicket(rules(true, 0, 0), organizationPeriods(1, 2))
      const orgZero = yield* waitingTicket(
        { enable_inactivity_reminders: true, enable_auto_close_inactive_tickets: true },
        organizationPeriods(0, 0)
      )
      // Only the reminder is off: auto-close still applies on its own.
      const reminderOff = yield* waitingTicket({
        ...reminders,
        ...autoClose,
        customer_inactivity_reminder_period: 0
      })
      yield* sweepAt(after(inboxZero.since, 100))
      for (const { org, t } of [inboxZero, orgZero]) {
        assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).status, "created")
        assert.deepStrictEqual(yield* systemMessages(org, t.id), [])
      }
      assert.strictEqual((yield* Tickets.readTicketBody(reminderOff.org, reminderOff.t.id)).status, "closed")
      assert.deepStrictEqual(yield* systemMessages(reminderOff.org, reminderOff.t.id), [])
    })
  )

  it.effect("given a ticket without an e-mail channel, then the reminder is a message that is not mailed", () =>
    Effect.gen(function* () {
      const { org, t, since } = yield* waitingTicket(reminders, { body: { channel_type: "telegram" } })
      yield* sweepAt(after(since, 2))
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)
      assert.deepStrictEqual(yield* messageMails(t.id), [])
    })
  )

  it.effect("given tickets waiting on an associate, closed, spam or snoozed, then nothing is due for them", () =>
    Effect.gen(function* () {
      const settings = { ...reminders, ...autoClose }
      const { org, t: closed } = yield* waitingTicket(settings)
      yield* Tickets.updateTicket(org, closed.id, { status: "closed", classification: "resolved" })
      const spam = yield* Tickets.ticket(org)
      yield* Tickets.updateTicket(org, spam.id, { is_spam: true })
      const snoozed = yield* Tickets.ticket(org)
      const until = new Date(Date.now() + 3_600_000).toISOString()
      yield* Tickets.snoozeTicket(org, snoozed.id, until)
      const customerTicket = yield* Tickets.inboundTicket(org)
      assert.strictEqual(customerTicket.waiting_on, "associate")

      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ ticketId: string; waitingOnCustomerSince: Date | null }>`
        SELECT ticket_id, waiting_on_customer_since FROM hd_tickets
        WHERE ticket_id IN (${closed.id}, ${spam.id}, ${snoozed.id}, ${customerTicket.id})`
      assert.deepStrictEqual(
        rows.map((r) => r.waitingOnCustomerSince),
        [null, null, null, null]
      )
      yield* sweepAt(after(closed.created_at, 100))
      assert.strictEqual((yield* Tickets.readTicketBody(org, closed.id)).classification, "resolved")
      for (const id of [spam.id, snoozed.id, customerTicket.id]) {
        assert.deepStrictEqual(yield* systemMessages(org, id), [])
        assert.notStrictEqual((yield* Tickets.readTicketBody(org, id)).status, "closed")
      }
    })
  )

  it.effect("given a ticket reopened or unsnoozed, then its waiting period starts over from then", () =>
    Effect.gen(function* () {
      const { org, t, since } = yield* waitingTicket({ ...reminders, ...autoClose })
      yield* Tickets.updateTicket(org, t.id, { status: "closed", classification: "resolved" })
      yield* sweepAt(after(since, 30))
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).classification, "resolved")

      const reopened = yield* Tickets.updateTicket(org, t.id, { status: "active" })
      assert.strictEqual(reopened.status, 200, reopened.text)
      const reopenedAt = reopened.body.updated_at as string
      assert.isAbove(Date.parse(reopenedAt), Date.parse(since))
      // Counted from the creation, the reminder would be due a few milliseconds before this.
      yield* sweepAt(after(reopenedAt, 2, -1))
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).status, "active")
      assert.deepStrictEqual(yield* systemMessages(org, t.id), [])
      yield* sweepAt(after(reopenedAt, 2))
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)

      const until = new Date(Date.now() + 3_600_000).toISOString()
      yield* Tickets.snoozeTicket(org, t.id, until)
      yield* sweepAt(after(reopenedAt, 20))
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).status, "active", "snoozed: left alone")
      const unsnoozed = yield* Tickets.unsnoozeTicket(org, t.id)
      const unsnoozedAt = unsnoozed.body.last_snooze_ended_at as string
      yield* sweepAt(after(unsnoozedAt, 2, -1))
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)
      yield* sweepAt(after(unsnoozedAt, 2))
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 2, "a reminder for the new period")
      yield* sweepAt(after(unsnoozedAt, 5))
      assert.strictEqual((yield* Tickets.readTicketBody(org, t.id)).classification, "customer_inactivity")
    })
  )

  it.effect("given waiting_on set to the customer by hand, then the period counts from then", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const t = yield* Tickets.inboundTicket(org)
      assert.strictEqual(t.waiting_on, "associate")
      yield* configure(org, t.inbox.id, reminders)
      const set = yield* Tickets.updateTicket(org, t.id, { waiting_on: "customer" })
      assert.strictEqual(set.status, 200, set.text)
      const setAt = set.body.updated_at as string
      yield* sweepAt(after(setAt, 2, -1))
      assert.deepStrictEqual(yield* systemMessages(org, t.id), [])
      yield* sweepAt(after(setAt, 2))
      assert.strictEqual((yield* systemMessages(org, t.id)).length, 1)
      assert.strictEqual((yield* messageMails(t.id)).length, 1)
    })
  )

  it.effect("given the tickets of this file, then migration 0071's backfill agrees with the projection", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const read = sql<{ ticketId: string; waitingOnCustomerSince: Date | null }>`
        SELECT ticket_id, waiting_on_customer_since FROM hd_tickets ORDER BY ticket_id`
      const projected = yield* read
      assert.isAbove(projected.filter((r) => r.waitingOnCustomerSince !== null).length, 3)
      yield* sql`UPDATE hd_tickets SET waiting_on_customer_since = NULL`
      yield* backfillWaitingSince
      assert.deepStrictEqual(yield* read, projected)
    })
  )
})
