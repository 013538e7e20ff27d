import { HttpApiBuilder } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Api } from "../Api.js"
import { NotReady } from "./Api.js"

/** Handlers of the probes. */
export const HealthLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return handlers
      .handle("healthz", () => Effect.succeed({ status: "ok" as const }))
      .handle("readyz", () =>
        sql`SELECT 1`.pipe(
          Effect.timeout("2 seconds"),
          Effect.as({ status: "ok" as const }),
          Effect.catchAll(() => new NotReady({ status: "unavailable", detail: "The database is not reachable." }))
        )
      )
  })
)
