import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Scope } from "effect"
import { claimEmlOutbox } from "../src/Mail/EmlOutboxWriter.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

const timing = { heartbeat: Duration.hours(1), staleAfter: Duration.seconds(1) }

/** Claims the outbox for `directory` in a scope of its own; closing the scope releases it. */
const claimIn = (directory: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const exit = yield* claimEmlOutbox(directory, timing).pipe(Scope.extend(scope), Effect.exit)
    return { exit, close: Scope.close(scope, Exit.void) }
  })

layer(TestDatabaseLive, { excludeTestServices: true, timeout: "60 seconds" })("the .eml outbox writer", (it) => {
  it.effect("one directory at a time: another is refused with the reason, the same one is shared", () =>
    Effect.gen(function* () {
      const first = yield* claimIn("/srv/a/outbox")
      expect(Exit.isSuccess(first.exit)).toBe(true)
      const same = yield* claimIn("/srv/a/outbox")
      expect(Exit.isSuccess(same.exit)).toBe(true)
      const other = yield* claimIn("/srv/b/outbox")
      expect(Exit.isFailure(other.exit)).toBe(true)
      const refusal = yield* Effect.flip(other.exit)
      expect(refusal._tag).toBe("EmlOutboxTaken")
      expect(refusal.message).toContain("/srv/b/outbox")
      expect(refusal.message).toContain(":/srv/a/outbox")
      expect(refusal.message).toContain("set SMTP_URL on every replica")
      yield* same.close
      yield* first.close
    })
  )

  it.effect("a clean stop releases it at once", () =>
    Effect.gen(function* () {
      const first = yield* claimIn("/srv/c/outbox")
      expect(Exit.isSuccess(first.exit)).toBe(true)
      yield* first.close
      const next = yield* claimIn("/srv/d/outbox")
      expect(Exit.isSuccess(next.exit)).toBe(true)
      yield* next.close
    })
  )

  it.effect("a writer silent for longer than staleAfter (a crashed machine) is taken over", () =>
    Effect.gen(function* () {
      const crashed = yield* claimIn("/srv/e/outbox")
      expect(Exit.isSuccess(crashed.exit)).toBe(true)
      expect(Exit.isFailure((yield* claimIn("/srv/f/outbox")).exit)).toBe(true)
      yield* Effect.sleep("1500 millis")
      const next = yield* claimIn("/srv/f/outbox")
      expect(Exit.isSuccess(next.exit)).toBe(true)
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ writer: string }>`SELECT writer FROM hd_eml_outbox_writer`
      expect(rows.map((row) => row.writer.endsWith(":/srv/f/outbox"))).toEqual([true])
      // The crashed one's late release does not remove the new writer's claim.
      yield* crashed.close
      expect((yield* sql<{ writer: string }>`SELECT writer FROM hd_eml_outbox_writer`).length).toBe(1)
      yield* next.close
      expect((yield* sql<{ writer: string }>`SELECT writer FROM hd_eml_outbox_writer`).length).toBe(0)
    })
  )
})
