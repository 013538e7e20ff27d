import { Context, Effect, Layer, Redacted } from "effect"
import { clientOptions, MigrationsLive } from "../../src/Database/Database.js"
import * as PgPool from "../../src/Database/PgPool.js"
import { freshDatabase } from "./TestDatabase.js"

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
 * Returns the layer of both, and `on(replica)`, which runs an effect against one of them.
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
  return { layer, on }
}
