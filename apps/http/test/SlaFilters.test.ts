import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { matches, type PresetFilterCriteria } from "@helpdesk/domain"
import { DateTime, Effect, Schedule } from "effect"
import { SlaBreachTimer } from "../src/Sla/SlaBreachTimer.js"
import { recomputeOrganization } from "../src/Sla/SlaState.js"
import { decodeStoredTicketView } from "../src/Tickets/ReadModel/StoredViews.js"
import { assertRefused, get, post } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

const TestLayer = Tickets.withTicketServices(SlaBreachTimer.Default)

const list = (org: Tickets.TicketOrg, query: string) =>
  get(`${org.tickets}?page_size=100&${query}`, { token: org.ownerToken })

const listed = (org: Tickets.TicketOrg, query: string) =>
  Effect.map(list(org, query), (response) => {
    assert.strictEqual(response.status, 200, `${query}: ${response.text}`)
    return (response.body as { results: Array<{ id: number }> }).results.map((t) => t.id).sort((a, b) => a - b)
  })

const sorted = (ids: ReadonlyArray<number>) => [...ids].sort((a, b) => a - b)

/**
 * Makes the SLA clocks of a ticket count from `minutes` earlier than its creation (its stored facts), then
 * recomputes its organization as a policy change would: the due times the ticket would have had it been opened that
 * long ago, without waiting.
 */
const openedEarlier = (org: Tickets.TicketOrg, ticketId: number, minutes: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      UPDATE hd_ticket_sla
      SET facts = jsonb_set(facts, '{createdAt}', to_jsonb((facts ->> 'createdAt')::bigint - ${minutes * 60_000}))
      WHERE ticket_id = ${ticketId}`
    yield* sql.withTransaction(recomputeOrganization(org.organizationId))
  }).pipe(Effect.orDie)

/** The stored views of the organization's tickets, as the domain reads them. */
const storedViews = (org: Tickets.TicketOrg) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ view: unknown }>`
      SELECT view FROM hd_tickets WHERE organization_id = ${String(org.organization.id)}`
  ).pipe(
    Effect.map((rows) => rows.map((row) => decodeStoredTicketView(row.view))),
    Effect.orDie
  )

/**
 * An organization whose policy "Urgent" (first reply in 30 calendar minutes) applies to urgent tickets, with one
 * ticket in each SLA situation.
 */
const world = Effect.gen(function* () {
  const org = yield* Tickets.organization
  const created = yield* post(`${org.path}sla-policies/`, {
    token: org.ownerToken,
    json: { name: "Urgent", priorities: ["urgent"], first_reply_minutes: 30, business_hours: false }
  })
  assert.strictEqual(created.status, 201, created.text)
  const urgent = () => Tickets.inboundTicket(org, { priority: "urgent" })

  const dueSoon = yield* urgent()
  // Overdue: first reply due 90 minutes ago; the timer, run now, records its breach (the due time stays pending).
  const overdue = yield* urgent()
  yield* openedEarlier(org, overdue.id, 120)
  // Another test's sweep may hold the row (SKIP LOCKED): sweep again until the breach is visible.
  const timer = yield* SlaBreachTimer
  yield* Effect.flatMap(timer.sweep(DateTime.unsafeMake(Date.now())), () =>
    get(Tickets.ticketPath(org, overdue.id), { token: org.ownerToken })
  ).pipe(
    Effect.repeat({ until: (read) => read.body.sla_breached === true, schedule: Schedule.spaced("20 millis") }),
    Effect.timeout("10 seconds"),
    Effect.orDie
  )
  const noPolicy = yield* Tickets.inboundTicket(org, { priority: "low" })
  const closed = yield* urgent()
  const closing = yield* Tickets.updateTicket(org, closed.id, { status: "closed", classification: "resolved" })
  assert.strictEqual(closing.status, 200, closing.text)
  const replied = yield* urgent()
  assert.strictEqual((yield* Tickets.postMessage(org, replied.id, { content: "On it." })).status, 201)
  const snoozed = yield* urgent()
  const snoozing = yield* Tickets.snoozeTicket(org, snoozed.id, Tickets.inAnHour())
  assert.strictEqual(snoozing.status, 200, snoozing.text)
  const all = [dueSoon, overdue, noPolicy, closed, replied, snoozed].map((t) => t.id as number)
  return { org, all, dueSoon: dueSoon.id as number, overdue: overdue.id as number }
})

layer(TestLayer, { excludeTestServices: true, timeout: "180 seconds" })("SLA preset-filter criteria", (it) => {
  it.effect("sla_due_within: due within the minutes or overdue; no SLA, closed, met and paused never", () =>
    Effect.gen(function* () {
      const w = yield* world
      const soon = yield* listed(w.org, "")
      assert.deepStrictEqual(soon, sorted(w.all))
      const overdue = (yield* get(Tickets.ticketPath(w.org, w.overdue), { token: w.org.ownerToken })).body
      assert.isTrue(overdue.sla_breached)
      assert.isBelow(Date.parse(overdue.first_reply_due_at), Date.now() - 85 * 60_000)
      // Due in 30 minutes: within 60, not within 10; overdue (here with its breach recorded): within any.
      assert.deepStrictEqual(yield* listed(w.org, "sla_due_within=60"), sorted([w.dueSoon, w.overdue]))
      assert.deepStrictEqual(yield* listed(w.org, "sla_due_within=10"), [w.overdue])
      assert.deepStrictEqual(yield* listed(w.org, "sla_due_within=1"), [w.overdue])
      assert.deepStrictEqual(yield* listed(w.org, "sla_due_within=525600"), sorted([w.dueSoon, w.overdue]))
      // With sla_breached=false: what is about to breach and has not yet.
      assert.deepStrictEqual(yield* listed(w.org, "sla_due_within=60&sla_breached=false"), [w.dueSoon])
    })
  )

  it.effect("sla_breached: true lists the tickets with a recorded breach; false the others, without SLA too", () =>
    Effect.gen(function* () {
      const w = yield* world
      assert.deepStrictEqual(yield* listed(w.org, "sla_breached=true"), [w.overdue])
      assert.deepStrictEqual(yield* listed(w.org, "sla_breached=false"), sorted(w.all.filter((id) => id !== w.overdue)))
      assert.deepStrictEqual(yield* listed(w.org, "sla_breached="), sorted(w.all))
    })
  )

  it.effect("a preset filter stores and shows both criteria; ?filter= applies them as the query would", () =>
    Effect.gen(function* () {
      const w = yield* world
      const created = yield* post(`${w.org.path}custom-preset-filters/`, {
        token: w.org.ownerToken,
        json: { name: "Due within the hour", criteria: { sla_due_within: "60" } }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepInclude(created.body.criteria, { sla_due_within: 60, sla_breached: null, is_snoozed: null })
      const read = yield* get(`${w.org.path}custom-preset-filters/${created.body.id}/`, { token: w.org.ownerToken })
      assert.deepStrictEqual(read.body.criteria, created.body.criteria)
      assert.deepStrictEqual(yield* listed(w.org, `filter=${created.body.id}`), sorted([w.dueSoon, w.overdue]))
      // Combined (AND) with the query's own criteria.
      assert.deepStrictEqual(yield* listed(w.org, `filter=${created.body.id}&sla_due_within=10`), [w.overdue])
      assert.deepStrictEqual(yield* listed(w.org, `filter=${created.body.id}&sla_breached=false`), [w.dueSoon])
    })
  )

  it.effect("the list's SQL selects exactly the tickets the domain's matcher accepts", () =>
    Effect.gen(function* () {
      const w = yield* world
      const views = yield* storedViews(w.org)
      const cases: ReadonlyArray<[string, PresetFilterCriteria]> = [
        ["sla_due_within=60", { sla_due_within: 60 }],
        ["sla_due_within=10", { sla_due_within: 10 }],
        ["sla_due_within=525600", { sla_due_within: 525_600 }],
        ["sla_breached=true", { sla_breached: true }],
        ["sla_breached=false", { sla_breached: false }],
        ["sla_breached=false&sla_due_within=45", { sla_breached: false, sla_due_within: 45 }]
      ]
      for (const [query, criteria] of cases) {
        const now = DateTime.unsafeMake(Date.now())
        const expected = views.filter((view) => matches(criteria, view, now)).map((view) => view.id)
        assert.deepStrictEqual(yield* listed(w.org, query), sorted(expected), query)
      }
    })
  )

  it.effect("bad values are 400 under the criterion's name; the limits 1 and 525600 are accepted", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      for (const [query, message] of [
        ["sla_due_within=0", "Ensure this value is greater than or equal to 1."],
        ["sla_due_within=525601", "Ensure this value is less than or equal to 525600."],
        ["sla_due_within=abc", "A valid integer is required."],
        ["sla_due_within=1.5", "A valid integer is required."],
        ["sla_due_within=-1", "Ensure this value is greater than or equal to 1."],
        ["sla_breached=perhaps", "Must be a boolean (true/false), or null for breached and not breached alike."]
      ] as const) {
        const field = query.slice(0, query.indexOf("="))
        assertRefused(yield* list(org, query), { [field]: [message] }, query)
      }
      for (const query of ["sla_due_within=1", "sla_due_within=525600", "sla_breached=1", "sla_due_within="])
        assert.strictEqual((yield* list(org, query)).status, 200, query)
    })
  )
})
