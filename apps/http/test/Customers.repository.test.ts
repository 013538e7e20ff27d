import { assert, layer } from "@effect/vitest"
import { Effect, Either, Fiber, Layer } from "effect"
import { Companies } from "../src/Companies/Companies.js"
import { Customers } from "../src/Customers/Customers.js"
import { PgPool } from "../src/Database/PgPool.js"
import { ServicesLive } from "../src/Services.js"
import * as Fixtures from "./support/Fixtures.js"
import { TestDatabaseLive, usesRealPostgres } from "./support/TestDatabase.js"

const RepositoriesLive = Layer.mergeAll(Customers.Default, Companies.Default, ServicesLive).pipe(
  Layer.provideMerge(TestDatabaseLive)
)

layer(RepositoriesLive, { excludeTestServices: true })("Customers and companies repositories", (it) => {
  it.effect("findOrCreateByEmail matches addresses ignoring case and fills an empty name only", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const id = yield* Fixtures.organizationId()
      const created = yield* customers.findOrCreateByEmail(id, { email: "Ann.Lee@Example.COM", name: "" })
      assert.strictEqual(created.email, "Ann.Lee@example.com")
      assert.strictEqual(created.name, "")
      assert.isFalse(created.isSpam)
      assert.isNull(created.company)
      const named = yield* customers.findOrCreateByEmail(id, { email: "ann.lee@example.com", name: "Ann Lee" })
      assert.strictEqual(named.id, created.id)
      assert.strictEqual(named.name, "Ann Lee")
      const kept = yield* customers.findOrCreateByEmail(id, { email: "ANN.LEE@EXAMPLE.COM", name: "Someone Else" })
      assert.strictEqual(kept.id, created.id)
      assert.strictEqual(kept.name, "Ann Lee")
      const otherId = yield* Fixtures.organizationId()
      const elsewhere = yield* customers.findOrCreateByEmail(otherId, { email: "ann.lee@example.com" })
      assert.notStrictEqual(elsewhere.id, created.id)
      assert.isUndefined(yield* customers.findById(otherId, created.id))
      assert.deepStrictEqual(yield* customers.findById(id, created.id), kept)
    })
  )

  it.effect("concurrent findOrCreateByEmail calls create one customer", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const org = yield* Fixtures.organization()
      const results = yield* Effect.all(
        Array.from({ length: 8 }, (_, n) =>
          customers.findOrCreateByEmail(org.organizationId, { email: n % 2 ? "X@y.org" : "x@Y.org", name: "X" })
        ),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(results.map((c) => c.id)).size, 1)
    })
  )

  it.effect.skipIf(!usesRealPostgres)(
    "given another transaction creating the same address, when it commits while findOrCreateByEmail waits on it, then that customer is found",
    () =>
      Effect.gen(function* () {
        const customers = yield* Customers
        const { pool } = yield* PgPool
        const org = yield* Fixtures.organization()
        const other = yield* Effect.promise(() => pool.connect())
        yield* Effect.promise(async () => {
          await other.query("BEGIN")
          await other.query(
            `INSERT INTO customers (organization_id, name, email, email_key, email_domain, search_text)
             VALUES ($1, 'Bea Other', 'bea@example.org', 'bea@example.org', 'example.org', 'bea other')`,
            [org.organizationId]
          )
        })
        // Waits on the uncommitted row; the row is committed after this statement's snapshot was taken.
        const waiting = yield* Effect.fork(
          customers.findOrCreateByEmail(org.organizationId, { email: "Bea@Example.org", name: "Bea" })
        )
        yield* Effect.sleep("300 millis")
        yield* Effect.promise(() => other.query("COMMIT"))
        other.release()
        const found = yield* Fiber.join(waiting)
        assert.strictEqual(found.name, "Bea Other")
        assert.deepStrictEqual(yield* customers.findByEmail(org.organizationId, "bea@example.org"), found)
      })
  )

  it.effect(
    "create refuses a taken address (any case), another organization's company, a manager without company",
    () =>
      Effect.gen(function* () {
        const customers = yield* Customers
        const companies = yield* Companies
        const id = yield* Fixtures.organizationId()
        const otherId = yield* Fixtures.organizationId()
        yield* customers.create(id, { email: "bo@example.com", name: "Bo" })
        const taken = yield* Effect.either(customers.create(id, { email: "BO@example.com" }))
        assert.isTrue(Either.isLeft(taken) && taken.left._tag === "CustomerEmailTaken")
        const foreign = yield* companies.create(otherId, { name: "Foreign" })
        const wrongCompany = yield* Effect.either(
          customers.create(id, { email: "c@example.com", company_id: foreign.id })
        )
        assert.isTrue(Either.isLeft(wrongCompany) && wrongCompany.left._tag === "CompanyNotFound")
        const noCompany = yield* Effect.either(
          customers.create(id, { email: "d@example.com", is_company_manager: true })
        )
        assert.isTrue(Either.isLeft(noCompany) && noCompany.left._tag === "ManagerWithoutCompany")
      })
  )

  it.effect("moving a customer to another company or out of any ends their being a manager", () =>
    Effect.gen(function* () {
      const customers = yield* Customers
      const companies = yield* Companies
      const id = yield* Fixtures.organizationId()
      const acme = yield* companies.create(id, { name: "Acme" })
      const globex = yield* companies.create(id, { name: "Globex" })
      const manager = yield* customers.create(id, {
        email: "m@acme.test",
        company_id: acme.id,
        is_company_manager: true
      })
      assert.deepStrictEqual(manager.company, { id: acme.id, name: "Acme" })
      assert.isTrue(manager.isCompanyManager)
      const renamed = yield* customers.update(id, manager.id, { name: "M" })
      assert.isTrue(renamed.isCompanyManager)
      const moved = yield* customers.update(id, manager.id, { company_id: globex.id })
      assert.deepStrictEqual(moved.company, { id: globex.id, name: "Globex" })
      assert.isFalse(moved.isCompanyManager)
      const promoted = yield* customers.update(id, manager.id, { is_company_manager: true })
      assert.isTrue(promoted.isCompanyManager)
      const out = yield* customers.update(id, manager.id, { company_id: null })
      assert.isNull(out.company)
      assert.isFalse(out.isCompanyManager)
      const refused = yield* Effect.either(customers.update(id, manager.id, { is_company_manager: true }))
      assert.isTrue(Either.isLeft(refused) && refused.left._tag === "ManagerWithoutCompany")
    })
  )

  it.effect("company e-mail domains are unique per organization; the default assignee must be a member", () =>
    Effect.gen(function* () {
      const companies = yield* Companies
      const org = yield* Fixtures.organization()
      const other = yield* Fixtures.organization()
      const id = org.organizationId
      const acme = yield* companies.create(id, {
        name: "Acme",
        email_domains: ["acme.test", "acme.example"],
        default_assignee_id: org.ownerId
      })
      assert.deepStrictEqual(acme.emailDomains, ["acme.example", "acme.test"])
      assert.strictEqual(acme.defaultAssignee?.id, org.ownerId)
      const clash = yield* Effect.either(companies.create(id, { name: "Acme 2", email_domains: ["acme.test"] }))
      assert.isTrue(Either.isLeft(clash) && clash.left._tag === "EmailDomainsTaken")
      if (Either.isLeft(clash) && clash.left._tag === "EmailDomainsTaken")
        assert.deepStrictEqual(clash.left.taken, [{ domain: "acme.test", companyName: "Acme" }])
      const sameName = yield* Effect.either(companies.create(id, { name: "ACME" }))
      assert.isTrue(Either.isLeft(sameName) && sameName.left._tag === "CompanyNameTaken")
      const elsewhere = yield* companies.create(other.organizationId, { name: "Acme", email_domains: ["acme.test"] })
      assert.deepStrictEqual(elsewhere.emailDomains, ["acme.test"])
      const outsider = yield* Effect.either(
        companies.create(id, { name: "Initech", default_assignee_id: other.ownerId })
      )
      assert.isTrue(Either.isLeft(outsider) && outsider.left._tag === "AssigneeNotMember")
      // Keeping its own domains is no clash.
      const updated = yield* companies.update(id, acme.id, { email_domains: ["acme.test"], default_assignee_id: null })
      assert.deepStrictEqual(updated.emailDomains, ["acme.test"])
      assert.isNull(updated.defaultAssignee)
      assert.isUndefined(yield* companies.findById(other.organizationId, acme.id))
    })
  )
})
