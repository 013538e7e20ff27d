import { SqlClient } from "@effect/sql"
import { describe, layer as testLayer, type Vitest } from "@effect/vitest"
import { ticketStreamId } from "@helpdesk/domain"
import { Context, type Duration, Effect, Layer, Redacted } from "effect"
import { clientOptions, MigrationsLive } from "../../src/Database/Database.js"
import * as PgPool from "../../src/Database/PgPool.js"
import { freshDatabase, usesRealPostgres } from "./TestDatabase.js"

/** A connection pool of a replica's own on `url`, named so that `pg_stat_activity` tells the replicas apart. */
export const replicaPool = (url: string, name: string, maxConnections: number) =>
  PgPool.layer({
    url: Redacted.make(url),
    maxConnections,
    namedStatements: true,
    ...clientOptions,
    applicationName: name
  })

/** The two built replicas, `a` and `b`. */
export interface Replicas<I> {
  readonly a: Context.Context<I>
  readonly b: Context.Context<I>
}

/**
 * Two app instances (each built afresh from `instance`, like two replicas) on one fresh migrated database. Their
 * pools are named `<name>-a` and `<name>-b`. Real PostgreSQL only: PGlite runs one session.
 *
 * Returns the layer of both, `on(replica)`, which runs an effect against one of them, and `twiceOnEach`, which
 * runs an effect twice on each replica, all four at once (as racing sweeps), answering a's two results and b's,
 * and `suite`, which runs its tests against both replicas under `describe(title)`, on real PostgreSQL only.
 */
export const twoReplicas = <I, E>(name: string, instance: (url: string, poolName: string) => Layer.Layer<I, E>) => {
  const tag = Context.GenericTag<Replicas<I>>(`test/Replicas/${name}`)
  const layer = Layer.scoped(
    tag,
    Effect.gen(function* () {
      const { url } = yield* freshDatabase
      yield* Layer.build(Layer.fresh(MigrationsLive.pipe(Layer.provide(replicaPool(url, `${name}-migrations`, 4)))))
      const a = yield* Layer.build(Layer.fresh(instance(url, `${name}-a`)))
      const b = yield* Layer.build(Layer.fresh(instance(url, `${name}-b`)))
      return { a, b }
    })
  )
  const on =
    (replica: "a" | "b") =>
    <A, E2>(effect: Effect.Effect<A, E2, I>): Effect.Effect<A, E2, Replicas<I>> =>
      Effect.flatMap(tag, (replicas) => Effect.provide(effect, replicas[replica]))
  const twiceOnEach = <A, E2>(effect: Effect.Effect<A, E2, I>) =>
    Effect.map(
      Effect.all([on("a")(effect), on("a")(effect), on("b")(effect), on("b")(effect)], { concurrency: "unbounded" }),
      ([a1, a2, b1, b2]) => ({ a: [a1, a2] as const, b: [b1, b2] as const })
    )
  const suite = (
    title: string,
    tests: (it: Vitest.MethodsNonLive<Replicas<I>, true>) => void,
    options: { readonly name?: string; readonly timeout?: Duration.DurationInput } = {}
  ) =>
    describe.runIf(usesRealPostgres)(title, () => {
      testLayer(layer, { timeout: options.timeout ?? "120 seconds", excludeTestServices: true })(
        options.name ?? "one database",
        tests
      )
    })
  return { layer, on, twiceOnEach, suite }
}

/** How many events of `type` each ticket's stream has, in the order of `ids` (0 for none). */
export const eventCounts = (ids: ReadonlyArray<number>, type: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ streamId: string; n: string }>`
      SELECT stream_id, count(*) AS n FROM hd_events
      WHERE event_type = ${type} AND stream_id = ANY(${ids.map(ticketStreamId)}::text[])
      GROUP BY stream_id`
    const counts = new Map(rows.map((row) => [row.streamId, Number(row.n)]))
    return ids.map((id) => counts.get(ticketStreamId(id)) ?? 0)
  }).pipe(Effect.orDie)
