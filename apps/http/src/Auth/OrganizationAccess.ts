import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { NotFound, PermissionDenied } from "../Http/Errors.js"
import { CurrentCaller, canWrite, type Role } from "./CurrentCaller.js"

/** `{organization_id}` in paths is an organization's public id of this shape; anything else is 404. */
export const PUBLIC_ID_PATTERN = /^[-a-zA-Z0-9_]+$/

/** What an endpoint needs: to read, or to change (owners, admins and integration tokens). */
export type Access = "read" | "write"

/** The organization a request is scoped to, and the caller's role in it. */
export interface OrganizationScope {
  readonly organizationId: number
  readonly publicId: string
  readonly role: Role
}

/**
 * Resolves `{organization_id}` for the current caller. An organization the caller does not belong to is
 * `404 {"detail":"Not found."}` (its existence is not revealed); a role that may read but not write is `403`.
 */
export class OrganizationAccess extends Effect.Service<OrganizationAccess>()("@helpdesk/http/OrganizationAccess", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const require = (
      publicId: string,
      access: Access
    ): Effect.Effect<OrganizationScope, NotFound | PermissionDenied, CurrentCaller> =>
      Effect.gen(function* () {
        if (!PUBLIC_ID_PATTERN.test(publicId)) return yield* new NotFound()
        const caller = yield* CurrentCaller
        const rows =
          caller._tag === "Person"
            ? yield* sql<{ readonly id: string; readonly role: Role }>`
                SELECT o.id, m.role FROM organizations o
                JOIN memberships m ON m.organization_id = o.id AND m.user_id = ${caller.userId}
                WHERE o.public_id = ${publicId}`
            : yield* sql<{ readonly id: string; readonly role: Role }>`
                SELECT o.id, 'token' AS role FROM organizations o
                WHERE o.public_id = ${publicId} AND o.id = ${caller.organizationId}`
        const row = rows[0]
        if (row === undefined) return yield* new NotFound()
        if (access === "write" && !canWrite(row.role)) return yield* new PermissionDenied()
        return { organizationId: Number(row.id), publicId, role: row.role }
      }).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("OrganizationAccess.require", { captureStackTrace: false })
      )

    return { require } as const
  })
}) {}
