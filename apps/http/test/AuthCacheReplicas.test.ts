import { SqlClient } from "@effect/sql"
import { assert } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AuthCache } from "../src/Auth/AuthCache.js"
import { Tokens } from "../src/Auth/Tokens.js"
import { ServicesLive } from "../src/Services.js"
import { Memberships } from "../src/Users/Memberships.js"
import * as Fixtures from "./support/Fixtures.js"
import { replicaPool, twoReplicas } from "./support/Replicas.js"
import { appServerLive, del, get, patch, post, type TestApp, type TestResponse } from "./support/TestApp.js"

/**
 * Two servers (each its own pool, services and cache of callers, like two replicas) on one database: a change
 * made through one reaches the other's cache within a second, through `LISTEN/NOTIFY` (decision 0658). Real
 * PostgreSQL only: PGlite runs one session, so it hosts one server (whose own changes apply at once).
 */

/** One server on its own port, with the services its requests use and its cache of callers. */
const instance = (url: string, name: string) =>
  appServerLive().pipe(
    Layer.provideMerge(ServicesLive),
    // The same layer value as the services' own dependency, so this build shares their one cache.
    Layer.provideMerge(AuthCache.Default),
    Layer.provideMerge(replicaPool(url, name, 4))
  )

const { on, suite } = twoReplicas("auth-replica", instance)

/** Polls until `done` holds (at most 5 s), and returns how long that took. */
const until = <A, E, R>(poll: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function* () {
    const started = Date.now()
    for (;;) {
      if (done(yield* poll)) return Date.now() - started
      if (Date.now() - started > 5_000) return Number.POSITIVE_INFINITY
      yield* Effect.sleep("20 millis")
    }
  })

const status = Effect.flatMap(AuthCache, (cache) => cache.status)
const answer = (expected: number) => (response: TestResponse) => response.status === expected

/** Replica `b` answers `request` from its cache, and hears changes. */
const cachedOnB = (request: Effect.Effect<TestResponse, never, TestApp>, expected: number) =>
  Effect.gen(function* () {
    assert.strictEqual((yield* on("b")(request)).status, expected)
    assert.isBelow(yield* on("b")(until(status, (s) => s.listening)), 5_000)
    // Listening began by forgetting everything: read again so that the answer is kept.
    assert.strictEqual((yield* on("b")(request)).status, expected)
    assert.isAbove((yield* on("b")(status)).callers, 0)
  })

suite(
  "replicas' caches of callers",
  (it) => {
    it.effect("a token revoked through one (as `helpdesk token revoke` does) is refused by the other within 1 s", () =>
      Effect.gen(function* () {
        const org = yield* on("a")(Fixtures.organization())
        const read = get(org.path, { token: org.ownerToken })
        assert.strictEqual((yield* on("a")(read)).status, 200)
        yield* cachedOnB(read, 200)
        yield* on("a")(Effect.flatMap(Tokens, (tokens) => tokens.revoke(org.ownerToken)))
        const elapsed = yield* on("b")(until(read, answer(401)))
        assert.isBelow(elapsed, 1_000)
        assert.isTrue((yield* on("b")(status)).listening)
      })
    )

    it.effect(
      "a personal token revoked and a member removed over the API of one are refused by the other within 1 s",
      () =>
        Effect.gen(function* () {
          const org = yield* on("a")(Fixtures.organization())
          const member = yield* on("a")(Fixtures.member(org, "member"))
          const issued = yield* on("a")(post(`${org.path}personal-tokens/`, { token: member.token, json: {} }))
          assert.strictEqual(issued.status, 201, issued.text)
          const withNew = get(org.path, { token: issued.body.token })
          const withOld = get(org.path, { token: member.token })
          yield* cachedOnB(withNew, 200)
          yield* cachedOnB(withOld, 200)
          const revoked = yield* on("a")(del(`${org.path}personal-tokens/${issued.body.id}/`, { token: member.token }))
          assert.strictEqual(revoked.status, 204)
          assert.strictEqual((yield* on("a")(withNew)).status, 401)
          assert.isBelow(yield* on("b")(until(withNew, answer(401))), 1_000)
          const removed = yield* on("a")(del(`${org.path}members/${member.userId}/`, { token: org.ownerToken }))
          assert.strictEqual(removed.status, 204)
          assert.strictEqual((yield* on("a")(withOld)).status, 404)
          assert.isBelow(yield* on("b")(until(withOld, answer(404))), 1_000)
        })
    )

    it.effect("a member made owner through one may change settings on the other within 1 s", () =>
      Effect.gen(function* () {
        const org = yield* on("a")(Fixtures.organization())
        const member = yield* on("a")(Fixtures.member(org, "member"))
        const rename = patch(org.path, { token: member.token, json: { name: "Renamed" } })
        yield* cachedOnB(rename, 403)
        yield* on("a")(Effect.flatMap(Memberships, (m) => m.put(org.organizationId, member.userId, "owner")))
        assert.isBelow(yield* on("b")(until(rename, answer(200))), 1_000)
      })
    )

    it.effect("a member removed from the organization (by SQL) is refused by both within 1 s", () =>
      Effect.gen(function* () {
        const org = yield* on("a")(Fixtures.organization())
        const member = yield* on("a")(Fixtures.member(org, "member"))
        const read = get(org.path, { token: member.token })
        assert.strictEqual((yield* on("a")(read)).status, 200)
        yield* cachedOnB(read, 200)
        yield* on("a")(
          Effect.flatMap(
            SqlClient.SqlClient,
            (sql) =>
              sql`DELETE FROM memberships WHERE organization_id = ${org.organization.id} AND user_id = ${member.userId}`
          )
        )
        assert.isBelow(yield* on("b")(until(read, answer(404))), 1_000)
        assert.isBelow(yield* on("a")(until(read, answer(404))), 1_000)
      })
    )

    it.effect("a replica that loses its listening connection forgets everything, listens again, and hears", () =>
      Effect.gen(function* () {
        const org = yield* on("a")(Fixtures.organization())
        const read = get(org.path, { token: org.ownerToken })
        yield* cachedOnB(read, 200)
        const terminated = yield* on("a")(
          Effect.flatMap(
            SqlClient.SqlClient,
            (sql) => sql`
              SELECT pg_terminate_backend(pid) FROM pg_stat_activity
              WHERE application_name = 'auth-replica-b auth listener' AND datname = current_database()`
          )
        )
        assert.strictEqual(terminated.length, 1)
        const { connections } = yield* on("b")(status)
        assert.isBelow(yield* on("b")(until(status, (s) => s.listening && s.connections > connections)), 5_000)
        // Nothing was read on b since: what it kept before the loss is gone.
        assert.strictEqual((yield* on("b")(status)).callers, 0)
        yield* cachedOnB(read, 200)
        yield* on("a")(Effect.flatMap(Tokens, (tokens) => tokens.revoke(org.ownerToken)))
        assert.isBelow(yield* on("b")(until(read, answer(401))), 1_000)
      })
    )
  },
  { name: "two servers, one database", timeout: "60 seconds" }
)
