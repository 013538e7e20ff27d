import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted } from "effect"

/**
 * A signing key every replica shares, read once and cached: the configured one, or else the one stored in
 * `hd_secrets` under `name` (the first process that asks stores a random one; the others read it). Replicas
 * must sign alike, so a key made up per process would not do.
 */
export const replicaSecret = (
  configured: Option.Option<Redacted.Redacted<string>>,
  name: string
): Effect.Effect<Effect.Effect<string>, never, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.cached(
      Option.isSome(configured)
        ? Effect.succeed(Redacted.value(configured.value))
        : Effect.gen(function* () {
            yield* sql`INSERT INTO hd_secrets (name, value) VALUES (${name}, ${randomBytes(32).toString("base64url")})
                       ON CONFLICT (name) DO NOTHING`
            const rows = yield* sql<{ value: string }>`SELECT value FROM hd_secrets WHERE name = ${name}`
            return rows[0]!.value
          }).pipe(Effect.orDie)
    )
  )
