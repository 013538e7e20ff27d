import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { assertRefused, get, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

const search = (org: Tickets.TicketOrg, query: string) =>
  get(`${org.tickets}?page_size=100&${query}`, { token: org.ownerToken })

layer(TestAppLive, { excludeTestServices: true })("tickets: search with q, and the customer filter", (it) => {
  it.effect("q finds words in subjects, descriptions, message bodies and customers, ignoring case and accents", () =>
    Effect.gen(function* () {
      const { org, t: bySubject } = yield* Tickets.organizationWithTicket({
        subject: "Remboursement de la commande",
        description: "Merci.",
        customer_email: "paul@example.org"
      })
      const byDescription = yield* Tickets.ticket(org, {
        subject: "Question",
        description: "Ich möchte eine Rückerstattung für die Bestellung.",
        customer_email: "anna@example.org"
      })
      const byMessage = yield* Tickets.ticket(org, {
        subject: "Hello",
        description: "Hi.",
        customer_email: "li@example.org"
      })
      yield* Tickets.postMessage(org, byMessage.id, {
        content: "The café's espresso machine is broken",
        is_visible_to_customer: false
      })
      const byCustomer = yield* Tickets.ticket(org, {
        subject: "Other",
        description: "Other.",
        customer_email: "Zoe.Angstrom@Fjord.example",
        customer_name: "Zoë Ångström"
      })

      const check = (q: string, expected: ReadonlyArray<number>) =>
        Effect.gen(function* () {
          const response = yield* search(org, `q=${encodeURIComponent(q)}`)
          assert.strictEqual(response.status, 200, response.text)
          assert.sameMembers(Tickets.resultIds(response.body), [...expected], `q=${q}`)
          assert.strictEqual(response.body.count, expected.length, `q=${q}`)
        })
      const findsOnly: ReadonlyArray<readonly [ReadonlyArray<number>, ReadonlyArray<string>]> = [
        [[bySubject.id], ["remboursement", "REMBOURSE", bySubject.public_id]],
        [[byDescription.id], ["ruckerstattung", "RÜCKERST bestell", "anna@example.org"]],
        [[byMessage.id], ["CAFE espresso", "café broken"]],
        [[byCustomer.id], ["angstrom", "zoe", "fjord.example", "zoe.angstrom@FJORD.example", "ÅNGSTRÖM Zoë"]],
        // Every word must match on one side: the ticket's own words, or one message's.
        [[], ["remboursement espresso", "nothing-like-this"]]
      ]
      for (const [expected, queries] of findsOnly) for (const q of queries) yield* check(q, expected)
      // No words: no text filter.
      assert.strictEqual((yield* search(org, "q=%20-%20")).body.count, 4)
    })
  )

  it.effect("ranked: the ticket's own words before its messages', an exact public id first; paged", () =>
    Effect.gen(function* () {
      const { org, t: inMessage } = yield* Tickets.organizationWithTicket({
        subject: "Printer",
        description: "It jams."
      })
      yield* Tickets.postMessage(org, inMessage.id, { content: "Toner toner toner, the toner is empty." })
      const inSubject = yield* Tickets.ticket(org, { subject: "Toner cartridge", description: "Need toner." })
      const newest = yield* Tickets.ticket(org, { subject: "Unrelated", description: "Nothing here." })
      yield* Tickets.postMessage(org, newest.id, { content: "Customer asked about toner once." })
      const ranked = yield* search(org, "q=toner")
      assert.deepStrictEqual(Tickets.resultIds(ranked.body), [inSubject.id, inMessage.id, newest.id])
      // An explicit ordering wins over the rank.
      const ordered = yield* search(org, "q=toner&ordering=id")
      assert.deepStrictEqual(Tickets.resultIds(ordered.body), [inMessage.id, inSubject.id, newest.id])
      // Paged like every list.
      const first = yield* get(`${org.tickets}?q=toner&page_size=2`, { token: org.ownerToken })
      assert.strictEqual(first.body.count, 3)
      assert.deepStrictEqual(Tickets.resultIds(first.body), [inSubject.id, inMessage.id])
      assert.include(first.body.next, "q=toner")
      const second = yield* get(`${org.tickets}?q=toner&page_size=2&page=2`, { token: org.ownerToken })
      assert.deepStrictEqual(Tickets.resultIds(second.body), [newest.id])
    })
  )

  it.effect("customer_id lists one customer's tickets; a bad id is 400; another organization's finds nothing", () =>
    Effect.gen(function* () {
      const { org, t: a1 } = yield* Tickets.organizationWithTicket({ customer_email: "a@example.org" })
      const a2 = yield* Tickets.ticket(org, { customer_email: "A@example.org" })
      const b = yield* Tickets.ticket(org, { customer_email: "b@example.org" })
      const byA = yield* search(org, `customer_id=${a1.customer.id}`)
      assert.sameMembers(Tickets.resultIds(byA.body), [a1.id, a2.id])
      assert.deepStrictEqual(Tickets.resultIds((yield* search(org, `customer_id=${b.customer.id}&q=parcel`)).body), [
        b.id
      ])
      for (const bad of ["x", "0", "-1", "1.5"]) {
        const refused = yield* search(org, `customer_id=${bad}`)
        assertRefused(refused, { customer_id: ["A valid integer is required."] }, bad)
      }
      const other = yield* Tickets.organization
      const foreign = yield* Tickets.ticket(other, { customer_email: "a@example.org" })
      assert.strictEqual((yield* search(org, `customer_id=${foreign.customer.id}`)).body.count, 0)
    })
  )
})
