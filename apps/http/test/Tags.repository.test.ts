import { assert, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { ServicesLive } from "../src/Services.js"
import { Tags } from "../src/Tags/Tags.js"
import * as Fixtures from "./support/Fixtures.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const RepositoriesLive = Layer.mergeAll(Tags.Default, ServicesLive).pipe(Layer.provideMerge(TestDatabaseLive))

layer(RepositoriesLive, { excludeTestServices: true })("Tags repository", (it) => {
  it.effect("findByIds keeps the order asked, once each, and leaves out unknown and foreign ids", () =>
    Effect.gen(function* () {
      const tags = yield* Tags
      const id = yield* Fixtures.organizationId()
      const otherId = yield* Fixtures.organizationId()
      const bug = yield* tags.create(id, { name: "bug", color: "#ff0000" })
      const vip = yield* tags.create(id, { name: "VIP" })
      const foreign = yield* tags.create(otherId, { name: "bug" })
      const found = yield* tags.findByIds(id, [vip.id, foreign.id, bug.id, vip.id, 999_999])
      assert.deepStrictEqual(found, [
        { id: vip.id, name: "VIP", color: "" },
        { id: bug.id, name: "bug", color: "#ff0000" }
      ])
      assert.deepStrictEqual(yield* tags.findByIds(id, []), [])
    })
  )

  it.effect("names are unique per organization ignoring case; findByNames matches ignoring case", () =>
    Effect.gen(function* () {
      const tags = yield* Tags
      const id = yield* Fixtures.organizationId()
      const billing = yield* tags.create(id, { name: "Billing" })
      const taken = yield* Effect.either(tags.create(id, { name: "BILLING" }))
      assert.isTrue(Either.isLeft(taken) && taken.left._tag === "TagNameTaken")
      const refund = yield* tags.create(id, { name: "refund" })
      const renameClash = yield* Effect.either(tags.update(id, refund.id, { name: "billing" }))
      assert.isTrue(Either.isLeft(renameClash) && renameClash.left._tag === "TagNameTaken")
      // Changing only the case of its own name is allowed.
      const recased = yield* tags.update(id, billing.id, { name: "BILLING", color: "#00aa00" })
      assert.deepStrictEqual(recased, { id: billing.id, name: "BILLING", color: "#00aa00" })
      const found = yield* tags.findByNames(id, [" refund ", "billing", "nope", "Refund"])
      assert.deepStrictEqual(
        found.map((t) => t.id),
        [refund.id, billing.id]
      )
    })
  )

  it.effect("remove deletes a tag of the organization only", () =>
    Effect.gen(function* () {
      const tags = yield* Tags
      const org = yield* Fixtures.organization()
      const otherId = yield* Fixtures.organizationId()
      const tag = yield* tags.create(org.organizationId, { name: "temp" })
      const foreign = yield* Effect.either(tags.remove(otherId, tag.id))
      assert.isTrue(Either.isLeft(foreign) && foreign.left._tag === "TagNotFound")
      yield* tags.remove(org.organizationId, tag.id)
      assert.isUndefined(yield* tags.findById(org.organizationId, tag.id))
      const again = yield* Effect.either(tags.update(org.organizationId, tag.id, { color: null }))
      assert.isTrue(Either.isLeft(again) && again.left._tag === "TagNotFound")
    })
  )
})
