import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { AuthCache } from "../Auth/AuthCache.js"
import type { MemberRole } from "../Auth/CurrentCaller.js"

/** Who belongs to which organization, with which role. */
export class Memberships extends Effect.Service<Memberships>()("@helpdesk/http/Memberships", {
  dependencies: [AuthCache.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = yield* AuthCache

    /** Adds the user to the organization, or changes their role when already a member. */
    const put = (organizationId: number, userId: number, role: MemberRole) =>
      sql`
        INSERT INTO memberships ${sql.insert({ organizationId, userId, role })}
        ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`.pipe(
        // A role changed here applies to this process's next request (others hear the table's trigger).
        Effect.zipRight(cache.invalidate({ _tag: "User", userId })),
        Effect.asVoid,
        Effect.orDie
      )

    /** The user's role in the organization, if a member. */
    const roleOf = (organizationId: number, userId: number) =>
      sql<{ readonly role: MemberRole }>`
        SELECT role FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`.pipe(
        Effect.map((rows) => rows[0]?.role),
        Effect.orDie
      )

    return { put, roleOf } as const
  })
}) {}
