import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Cause, Effect, Either, Exit, Layer, Option } from "effect"
import { UndecodableRow } from "../src/Database/Rows.js"
import { Inboxes, PROVISIONED_INBOX } from "../src/Inboxes/Inboxes.js"
import { Organizations } from "../src/Organizations/Organizations.js"
import { ServicesLive } from "../src/Services.js"
import * as Fixtures from "./support/Fixtures.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const RepositoriesLive = Layer.mergeAll(Inboxes.Default, ServicesLive).pipe(Layer.provideMerge(TestDatabaseLive))

const inbox = (name: string, email_prefix: string, extra: { readonly is_default?: boolean } = {}) => ({
  name,
  email_prefix,
  ...extra
})

layer(RepositoriesLive, { excludeTestServices: true })("Inboxes repository", (it) => {
  it.effect("the first inbox is the default; a later one only when asked, taking the flag", () =>
    Effect.gen(function* () {
      const inboxes = yield* Inboxes
      const id = yield* Fixtures.organizationId()
      const first = yield* inboxes.create(id, inbox("First", "first", { is_default: false }))
      assert.isTrue(first.isDefault)
      const second = yield* inboxes.create(id, inbox("Second", "second"))
      assert.isFalse(second.isDefault)
      const third = yield* inboxes.create(id, inbox("Third", "third", { is_default: true }))
      assert.isTrue(third.isDefault)
      assert.isFalse((yield* inboxes.findById(id, first.id))!.isDefault)
      assert.strictEqual((yield* inboxes.defaultFor(id)).id, third.id)
    })
  )

  it.effect("making another inbox the default moves the flag; unsetting the default is refused", () =>
    Effect.gen(function* () {
      const inboxes = yield* Inboxes
      const id = yield* Fixtures.organizationId()
      const a = yield* inboxes.create(id, inbox("A", "a"))
      const b = yield* inboxes.create(id, inbox("B", "b"))
      const moved = yield* inboxes.update(id, b.id, { is_default: true })
      assert.isTrue(moved.isDefault)
      assert.isFalse((yield* inboxes.findById(id, a.id))!.isDefault)
      const refused = yield* Effect.either(inboxes.update(id, b.id, { is_default: false }))
      assert.isTrue(Either.isLeft(refused) && refused.left._tag === "DefaultInboxRequired")
      // Saying false on an inbox that is not the default changes nothing.
      const unchanged = yield* inboxes.update(id, a.id, { is_default: false, name: "A2" })
      assert.isFalse(unchanged.isDefault)
      assert.strictEqual(unchanged.name, "A2")
      assert.strictEqual((yield* inboxes.defaultFor(id)).id, b.id)
    })
  )

  it.effect("concurrent moves of the default leave exactly one default inbox", () =>
    Effect.gen(function* () {
      const inboxes = yield* Inboxes
      const id = yield* Fixtures.organizationId()
      const created = yield* Effect.forEach([0, 1, 2, 3, 4, 5], (n) => inboxes.create(id, inbox(`I${n}`, `i${n}`)))
      const targets = [...created, ...created, ...created].map((i) => i.id)
      yield* Effect.forEach(targets, (target) => inboxes.update(id, target, { is_default: true }), {
        concurrency: "unbounded"
      })
      const all = yield* Effect.forEach(created, (i) => inboxes.findById(id, i.id))
      assert.strictEqual(all.filter((i) => i!.isDefault).length, 1)
    })
  )

  it.effect("defaultFor provisions one Support inbox for an organization without inboxes, even concurrently", () =>
    Effect.gen(function* () {
      const inboxes = yield* Inboxes
      const id = yield* Fixtures.organizationId()
      const results = yield* Effect.all(
        Array.from({ length: 8 }, () => inboxes.defaultFor(id)),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(results.map((i) => i.id)).size, 1)
      const provisioned = results[0]!
      assert.strictEqual(provisioned.name, PROVISIONED_INBOX.name)
      assert.strictEqual(provisioned.emailPrefix, PROVISIONED_INBOX.emailPrefix)
      assert.isTrue(provisioned.isDefault)
      // A later inbox is not the default: the provisioned one was first.
      const later = yield* inboxes.create(id, inbox("Sales", "sales"))
      assert.isFalse(later.isDefault)
    })
  )

  it.effect("e-mail prefixes are unique per organization; the address carries the organization", () =>
    Effect.gen(function* () {
      const inboxes = yield* Inboxes
      const org = yield* Fixtures.organization("Acme")
      const other = yield* Fixtures.organization("Other")
      const created = yield* inboxes.create(org.organizationId, inbox("Help", "help"))
      assert.strictEqual(created.emailAddress, `help@${org.organization.public_id}.helpdesk.localhost`)
      const taken = yield* Effect.either(inboxes.create(org.organizationId, inbox("Help 2", "help")))
      assert.isTrue(Either.isLeft(taken) && taken.left._tag === "EmailPrefixTaken")
      const renamed = yield* inboxes.create(org.organizationId, inbox("Help 3", "help3"))
      const clash = yield* Effect.either(inboxes.update(org.organizationId, renamed.id, { email_prefix: "help" }))
      assert.isTrue(Either.isLeft(clash) && clash.left._tag === "EmailPrefixTaken")
      const elsewhere = yield* inboxes.create(other.organizationId, inbox("Help", "help"))
      assert.strictEqual(elsewhere.emailPrefix, "help")
      assert.isUndefined(yield* inboxes.findById(other.organizationId, created.id))
    })
  )

  it.effect("inactivity periods fall back to the organization's until the inbox sets its own", () =>
    Effect.gen(function* () {
      const inboxes = yield* Inboxes
      const organizations = yield* Organizations
      const id = yield* Fixtures.organizationId()
      yield* organizations.update(id, { customer_max_inactivity_period: 30, customer_inactivity_reminder_period: 7 })
      const created = yield* inboxes.create(id, inbox("Main", "main"))
      assert.strictEqual(created.customerMaxInactivityPeriod, 30)
      assert.strictEqual(created.customerInactivityReminderPeriod, 7)
      assert.isTrue(created.customerMaxInactivityPeriodInherited)
      const own = yield* inboxes.update(id, created.id, { customer_max_inactivity_period: 0 })
      assert.strictEqual(own.customerMaxInactivityPeriod, 0)
      assert.isFalse(own.customerMaxInactivityPeriodInherited)
      yield* organizations.update(id, { customer_max_inactivity_period: 60, customer_inactivity_reminder_period: 10 })
      const after = (yield* inboxes.findById(id, created.id))!
      assert.strictEqual(after.customerMaxInactivityPeriod, 0)
      assert.strictEqual(after.customerInactivityReminderPeriod, 10)
      const back = yield* inboxes.update(id, created.id, { customer_max_inactivity_period: null })
      assert.strictEqual(back.customerMaxInactivityPeriod, 60)
      assert.isTrue(back.customerMaxInactivityPeriodInherited)
    })
  )

  it.effect("a stored row the code cannot read is a defect naming its table, not a wrong answer", () =>
    Effect.gen(function* () {
      const inboxes = yield* Inboxes
      const sql = yield* SqlClient.SqlClient
      const org = yield* Fixtures.organization()
      const created = yield* inboxes.create(org.organizationId, inbox("Odd", "odd"))
      yield* sql`UPDATE inboxes SET customer_interaction_style = 'robot' WHERE id = ${created.id}`
      const exit = yield* Effect.exit(inboxes.findById(org.organizationId, created.id))
      const defect = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined
      assert.instanceOf(defect, UndecodableRow)
      assert.strictEqual((defect as UndecodableRow).table, "inboxes")
      assert.include((defect as UndecodableRow).message, "customerInteractionStyle")
    })
  )
})
