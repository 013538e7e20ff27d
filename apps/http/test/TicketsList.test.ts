import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fixtures from "./support/Fixtures.js"
import { get, post, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

const sorted = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)

layer(TestAppLive, { excludeTestServices: true })("tickets: list and search", (it) => {
  /** A small organization of tickets, each differing from the first in one criterion. */
  const world = Effect.gen(function* () {
    const org = yield* Tickets.organization
    const admin = yield* Fixtures.member(org, "admin")
    const billing = yield* Tickets.tag(org, "Billing")
    const vip = yield* Tickets.tag(org, "VIP")
    const plain = yield* Tickets.ticket(org, { subject: "Plain question" })
    // After the first ticket provisioned the default inbox, so Sales is not the default.
    const sales = yield* Tickets.inbox(org, "Sales", "sales")
    const closed = yield* Tickets.ticket(org, { subject: "Closed one" })
    yield* Tickets.updateTicket(org, closed.id, { status: "closed", classification: "resolved" })
    const urgent = yield* Tickets.ticket(org, { subject: "Urgent refund request", priority: "urgent" })
    const assigned = yield* Tickets.ticket(org, { subject: "Assigned", assignee_id: admin.userId })
    const tagged = yield* Tickets.ticket(org, { subject: "Tagged billing", tags: [billing.id, vip.id] })
    const inSales = yield* Tickets.ticket(org, { subject: "Sales lead", inbox_id: sales.id })
    const telegram = yield* Tickets.ticket(org, { subject: "From telegram", origin: "telegram" })
    const inbound = yield* Tickets.inboundTicket(org, { subject: "Inbound" })
    const snoozed = yield* Tickets.ticket(org, { subject: "Snoozed" })
    yield* post(Tickets.ticketPath(org, snoozed.id, "snooze/"), {
      token: org.ownerToken,
      json: { until: new Date(Date.now() + 3_600_000).toISOString() }
    })
    const active = yield* Tickets.ticket(org, { subject: "Answered" })
    yield* Tickets.postMessage(org, active.id, { content: "Answer" })
    const spam = yield* Tickets.ticket(org, { subject: "Spam offer" })
    yield* Tickets.updateTicket(org, spam.id, { is_spam: true })
    const all = [plain, closed, urgent, assigned, tagged, inSales, telegram, inbound, snoozed, active].map((t) => t.id)
    return {
      org,
      admin,
      sales,
      all,
      plain,
      closed,
      urgent,
      assigned,
      tagged,
      inSales,
      telegram,
      inbound,
      snoozed,
      active,
      spam
    }
  })

  const list = (org: Tickets.TicketOrg, query: string, token?: string) =>
    get(`${org.tickets}?page_size=100&${query}`, { token: token ?? org.ownerToken })

  it.effect("each criterion filters in SQL; lists repeat the key; criteria combine with AND", () =>
    Effect.gen(function* () {
      const w = yield* world
      const check = (query: string, expected: ReadonlyArray<number>) =>
        Effect.gen(function* () {
          const response = yield* list(w.org, query)
          assert.strictEqual(response.status, 200, `${query}: ${response.text}`)
          assert.deepStrictEqual(sorted(Tickets.resultIds(response.body)), sorted(expected), query)
          assert.strictEqual(response.body.count, expected.length, query)
        })
      yield* check("", w.all)
      yield* check("statuses=closed", [w.closed.id])
      yield* check("statuses=closed&statuses=active", [w.closed.id, w.active.id])
      yield* check("priorities=urgent", [w.urgent.id])
      yield* check("classifications=resolved", [w.closed.id])
      yield* check(
        "classifications=",
        w.all.filter((id) => id !== w.closed.id)
      )
      yield* check(`assignee_ids=${w.admin.userId}`, [w.assigned.id])
      yield* check(`inbox_ids=${w.sales.id}`, [w.inSales.id])
      yield* check("channels=telegram", [w.telegram.id])
      yield* check("waiting_on=associate", [w.inbound.id])
      yield* check("tags_include=billing", [w.tagged.id])
      yield* check("tags_include=nothing&tags_include=VIP", [w.tagged.id])
      yield* check(
        "tags_exclude=Billing",
        w.all.filter((id) => id !== w.tagged.id)
      )
      yield* check("is_snoozed=true", [w.snoozed.id])
      yield* check(
        "is_snoozed=false",
        w.all.filter((id) => id !== w.snoozed.id)
      )
      yield* check("is_spam=true", [w.spam.id])
      yield* check("statuses=created&priorities=urgent", [w.urgent.id])
      yield* check("statuses=closed&priorities=urgent", [])
      yield* check("q=refund", [w.urgent.id])
      yield* check("q=REF", [w.urgent.id])
      yield* check(`q=${w.telegram.public_id}`, [w.telegram.id])
    })
  )

  it.effect("criteria are validated like filter criteria: bad values are 400 under their name", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      for (const query of [
        "statuses=open",
        "priorities=p1",
        "inbox_ids=abc",
        "assignee_ids=-1",
        "channels=fax",
        "waiting_on=nobody",
        "is_snoozed=perhaps",
        "is_spam=perhaps",
        "ordering=subject",
        "filter=not-a-filter"
      ]) {
        // Refused under the parameter the query sets.
        const field = query.slice(0, query.indexOf("="))
        Tickets.assertInvalid(yield* list(org, query), field, query)
      }
      assert.strictEqual((yield* list(org, "page=2")).status, 404)
    })
  )

  it.effect("?filter= applies a visible preset filter's criteria (with the query's own)", () =>
    Effect.gen(function* () {
      const w = yield* world
      const shared = yield* Tickets.presetFilter(w.org, { priorities: ["urgent", "not_set"] })
      const response = yield* list(w.org, `filter=${shared.id}&statuses=created`)
      assert.strictEqual(response.status, 200, response.text)
      const created = [w.plain, w.urgent, w.assigned, w.tagged, w.inSales, w.telegram, w.inbound, w.snoozed]
      assert.deepStrictEqual(sorted(Tickets.resultIds(response.body)), sorted(created.map((t) => t.id)))
      const byIntegration = yield* list(w.org, `filter=${shared.id}&priorities=urgent`, w.org.integration)
      assert.deepStrictEqual(Tickets.resultIds(byIntegration.body), [w.urgent.id])

      const personal = yield* Tickets.presetFilter(w.org, { statuses: ["closed"] }, "personal", w.org.ownerId)
      assert.deepStrictEqual(Tickets.resultIds((yield* list(w.org, `filter=${personal.id}`)).body), [w.closed.id])
      const hidden = yield* list(w.org, `filter=${personal.id}`, w.org.integration)
      Tickets.assertInvalid(hidden, "filter")
      const otherOrg = yield* Tickets.organization
      const foreign = yield* Tickets.presetFilter(otherOrg, {})
      assert.strictEqual((yield* list(w.org, `filter=${foreign.id}`)).status, 400)
    })
  )

  it.effect("ordering and paging: newest activity first by default; allowed fields; stable pages", () =>
    Effect.gen(function* () {
      const w = yield* world
      const byUpdate = yield* list(w.org, "")
      const updated = byUpdate.body.results.map((t: { updated_at: string }) => t.updated_at)
      assert.deepStrictEqual(updated, [...updated].sort().reverse())
      const byId = yield* list(w.org, "ordering=id")
      assert.deepStrictEqual(Tickets.resultIds(byId.body), sorted(w.all))
      const byPriority = yield* list(w.org, "ordering=-priority,id")
      assert.strictEqual(Tickets.resultIds(byPriority.body)[0], w.urgent.id)
      const pages: Array<number> = []
      let next: string | null = `${w.org.tickets}?ordering=created_at&page_size=3`
      while (next !== null) {
        const page: { body: { next: string | null; results: ReadonlyArray<{ id: number }> } } = yield* get(
          new URL(next, "http://x").pathname + new URL(next, "http://x").search,
          { token: w.org.ownerToken }
        )
        pages.push(...Tickets.resultIds(page.body))
        next = page.body.next
      }
      assert.deepStrictEqual(pages, sorted(w.all))
    })
  )

  it.effect("roles: members list, outsiders get 404, another organization's tickets never show", () =>
    Effect.gen(function* () {
      const [org, other] = yield* Tickets.organizationAndAnother
      const member = yield* Fixtures.member(org, "member")
      const mine = yield* Tickets.ticket(org)
      yield* Tickets.ticket(other)
      const listed = yield* list(org, "", member.token)
      assert.deepStrictEqual(Tickets.resultIds(listed.body), [mine.id])
      assert.strictEqual((yield* list(org, "", other.ownerToken)).status, 404)
      assert.strictEqual((yield* list(org, "", other.integration)).status, 404)
    })
  )
})
