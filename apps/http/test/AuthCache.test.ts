import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { OrganizationId } from "@helpdesk/domain"
import { ConfigProvider, Effect, Layer, Option } from "effect"
import type pg from "pg"
import { AuthCache, DEAF_TTL_MS, parseChange } from "../src/Auth/AuthCache.js"
import type { Caller } from "../src/Auth/CurrentCaller.js"
import { Tokens } from "../src/Auth/Tokens.js"
import { PgPool } from "../src/Database/PgPool.js"
import { Memberships } from "../src/Users/Memberships.js"
import * as Fixtures from "./support/Fixtures.js"
import { get, patch, TestAppLive, type TestResponse } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

/**
 * Callers and memberships are kept in the process (decision 0658): a change made by this process applies to its
 * next request, and one made elsewhere (another process, an operator's SQL) within a second, on both databases.
 */

/** Polls `request` until `done`, and returns how long that took. */
const untilAnswer = <E, R>(request: Effect.Effect<TestResponse, E, R>, done: (r: TestResponse) => boolean) =>
  Effect.gen(function* () {
    const started = Date.now()
    for (;;) {
      const response = yield* request
      if (done(response)) return Date.now() - started
      if (Date.now() - started > 5_000) return Number.POSITIVE_INFINITY
      yield* Effect.sleep("20 millis")
    }
  })

layer(TestAppLive, { excludeTestServices: true })("the cache of callers and memberships", (it) => {
  it.effect("a token revoked by this process (as `helpdesk token revoke` does) is refused at its next request", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).status, 200)
      assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).status, 200)
      yield* (yield* Tokens).revoke(org.ownerToken)
      const refused = yield* get(org.path, { token: org.ownerToken })
      assert.strictEqual(refused.status, 401)
      assert.deepStrictEqual(refused.body, { detail: "Invalid token." })
    })
  )

  it.effect("a member made owner by this process may change settings at their next request", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const member = yield* Fixtures.member(org, "member")
      const rename = patch(org.path, { token: member.token, json: { name: "Renamed" } })
      assert.strictEqual((yield* get(org.path, { token: member.token })).status, 200)
      assert.strictEqual((yield* rename).status, 403)
      yield* (yield* Memberships).put(org.organizationId, member.userId, "owner")
      assert.strictEqual((yield* rename).status, 200)
      yield* (yield* Memberships).put(org.organizationId, member.userId, "member")
      assert.strictEqual((yield* rename).status, 403)
    })
  )

  it.effect("a removal from the organization made elsewhere (SQL, no call into this process) applies within 1 s", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const member = yield* Fixtures.member(org, "member")
      assert.strictEqual((yield* get(org.path, { token: member.token })).status, 200)
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM memberships WHERE organization_id = ${org.organization.id} AND user_id = ${member.userId}`
      const elapsed = yield* untilAnswer(get(org.path, { token: member.token }), (r) => r.status === 404)
      assert.isBelow(elapsed, 1_000)
    })
  )

  it.effect("a token revoked elsewhere (SQL, no call into this process) is refused within 1 s", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      const token = yield* Fixtures.integrationToken(org)
      assert.strictEqual((yield* get(org.path, { token })).status, 200)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE api_tokens SET revoked_at = now() WHERE organization_id = ${org.organization.id}`
      const elapsed = yield* untilAnswer(get(org.path, { token }), (r) => r.status === 401)
      assert.isBelow(elapsed, 1_000)
    })
  )

  it.effect(
    "a profile changed elsewhere (SQL, no call into this process) signs the writer's next reply within 1 s",
    () =>
      Effect.gen(function* () {
        const { org, t } = yield* Tickets.organizationWithTicket()
        const reply = Tickets.postMessage(org, t.id, { content: "On it." })
        const first = yield* reply
        assert.strictEqual(first.body.author.name, "Owner")
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE users SET name = 'Renamed Owner' WHERE id = ${org.ownerId}`
        const elapsed = yield* untilAnswer(reply, (r) => r.body.author?.name === "Renamed Owner")
        assert.isBelow(elapsed, 1_000)
      })
  )

  it.effect("an organization's new public id is not served under its old one", () =>
    Effect.gen(function* () {
      const org = yield* Fixtures.organization()
      assert.strictEqual((yield* get(org.path, { token: org.ownerToken })).status, 200)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE organizations SET public_id = ${`${org.organization.public_id}-x`} WHERE id = ${org.organization.id}`
      const elapsed = yield* untilAnswer(get(org.path, { token: org.ownerToken }), (r) => r.status === 404)
      assert.isBelow(elapsed, 1_000)
      assert.strictEqual((yield* get(`${org.path.slice(0, -1)}-x/`, { token: org.ownerToken })).status, 200)
    })
  )
})

/** The cache alone, on a pool that cannot listen (as on the embedded database). */
const cacheOfSize = (size: number) =>
  AuthCache.Default.pipe(
    Layer.provide(Layer.succeed(PgPool, { pool: {} as pg.Pool, namedStatements: false })),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({ AUTH_CACHE_SIZE: size })))
  )

const person = (userId: number): Caller => ({ _tag: "Person", userId, tokenId: userId })
const hashOf = (n: number) => n.toString(16).padStart(64, "0")

describe("AuthCache", () => {
  it.live("keeps at most AUTH_CACHE_SIZE callers, forgetting the least recently used", () =>
    Effect.gen(function* () {
      const cache = yield* AuthCache
      const loads: Array<number> = []
      const caller = (n: number) =>
        cache.caller(
          hashOf(n),
          Effect.sync(() => {
            loads.push(n)
            return Option.some(person(n))
          })
        )
      for (const n of [1, 2, 3]) yield* caller(n)
      yield* caller(1) // kept, and now the most recently used
      yield* caller(4) // forgets 2
      for (let n = 5; n < 50; n++) yield* caller(n)
      assert.strictEqual((yield* cache.status).callers, 3)
      loads.length = 0
      yield* caller(49)
      yield* caller(1)
      assert.deepStrictEqual(loads, [1])
      assert.deepStrictEqual(Option.getOrThrow(yield* caller(49)), person(49))
    }).pipe(Effect.provide(cacheOfSize(3)))
  )

  it.live("keeps nothing with AUTH_CACHE_SIZE=0, nor unknown tokens, and trusts an entry DEAF_TTL_MS unheard", () =>
    Effect.gen(function* () {
      const counting = (cache: AuthCache, found: boolean) => {
        let loads = 0
        const once = cache.caller(
          hashOf(7),
          Effect.sync(() => {
            loads++
            return found ? Option.some(person(7)) : Option.none()
          })
        )
        return { once, loads: () => loads }
      }
      const off = counting(yield* Effect.provide(AuthCache, cacheOfSize(0)), true)
      yield* off.once
      yield* off.once
      assert.strictEqual(off.loads(), 2)
      const cache = yield* Effect.provide(AuthCache, cacheOfSize(10))
      const unknown = counting(cache, false)
      yield* unknown.once
      yield* unknown.once
      assert.strictEqual(unknown.loads(), 2)
      const known = counting(cache, true)
      yield* known.once
      yield* known.once
      assert.strictEqual(known.loads(), 1)
      yield* Effect.sleep(DEAF_TTL_MS + 50)
      yield* known.once
      assert.strictEqual(known.loads(), 2)
    })
  )

  it.live("a lookup that read before an invalidation does not keep what it read", () =>
    Effect.gen(function* () {
      const cache = yield* AuthCache
      let loads = 0
      const racing = cache.caller(
        hashOf(8),
        Effect.zipRight(
          cache.invalidate({ _tag: "User", userId: 8 }), // committed while the row was being read
          Effect.sync(() => {
            loads++
            return Option.some(person(8))
          })
        )
      )
      yield* racing
      yield* racing
      assert.strictEqual(loads, 2)
    }).pipe(Effect.provide(cacheOfSize(10)))
  )

  it("reads the notifications of the database's triggers; anything else forgets everything", () => {
    assert.deepStrictEqual(parseChange(`token:${"ab".repeat(32)}`), { _tag: "Token", hashHex: "ab".repeat(32) })
    assert.deepStrictEqual(parseChange("user:42"), { _tag: "User", userId: 42 })
    assert.deepStrictEqual(parseChange("org:7"), { _tag: "Organization", organizationId: OrganizationId.make("7") })
    for (const payload of ["", "token:xyz", "user:", "org:-1", "group:3"])
      assert.deepStrictEqual(parseChange(payload), { _tag: "Everything" })
  })
})
