import { SqlClient } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Option } from "effect"
import { NotFound, PermissionDenied } from "../Http/Errors.js"
import { withSpan } from "../Observability/Spans.js"
import { AuthCache } from "./AuthCache.js"
import { CurrentCaller, type Role } from "./CurrentCaller.js"
import { type Action, allows, deniedDetail } from "./Permissions.js"

/** `{organization_id}` in paths is an organization's public id of this shape; anything else is 404. */
export const PUBLIC_ID_PATTERN = /^[-a-zA-Z0-9_]+$/

/** The organization a request is scoped to, and the caller's role in it. */
export interface OrganizationScope {
  readonly organizationId: OrganizationId
  readonly publicId: string
  readonly role: Role
}

/**
 * Resolves `{organization_id}` for the current caller and checks the action against the roles table
 * (`Permissions.ts`). An organization the caller does not belong to is `404 {"detail":"Not found."}` (its
 * existence is not revealed); a role the table does not allow is `403`. Memberships found are kept in the
 * {@link AuthCache} (decision 0658).
 */
export class OrganizationAccess extends Effect.Service<OrganizationAccess>()("@helpdesk/http/Auth/OrganizationAccess", {
  dependencies: [AuthCache.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cache = yield* AuthCache

    /** `action`, or a list of actions of which the role must be allowed at least one (finer checks follow). */
    const require = (
      publicId: string,
      action: Action | ReadonlyArray<Action>
    ): Effect.Effect<OrganizationScope, NotFound | PermissionDenied, CurrentCaller> =>
      Effect.gen(function* () {
        if (!PUBLIC_ID_PATTERN.test(publicId)) return yield* new NotFound()
        const caller = yield* CurrentCaller
        const found = yield* cache.membership(
          caller,
          publicId,
          (caller._tag === "Person"
            ? sql<{ readonly id: string; readonly role: Role }>`
                SELECT o.id, m.role FROM organizations o
                JOIN memberships m ON m.organization_id = o.id AND m.user_id = ${caller.userId}
                WHERE o.public_id = ${publicId}`
            : sql<{ readonly id: string; readonly role: Role }>`
                SELECT o.id, 'token' AS role FROM organizations o
                WHERE o.public_id = ${publicId} AND o.id = ${caller.organizationId}`
          ).pipe(
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) => ({
                organizationId: OrganizationId.make(String(row.id)),
                role: row.role
              }))
            )
          )
        )
        if (Option.isNone(found)) return yield* new NotFound()
        const { organizationId, role } = found.value
        const actions: ReadonlyArray<Action> = typeof action === "string" ? [action] : action
        if (!actions.some((one) => allows(one, role))) {
          const detail = actions.length === 1 ? deniedDetail(actions[0]!) : undefined
          return yield* new PermissionDenied(detail === undefined ? {} : { detail })
        }
        return { organizationId, publicId, role }
      }).pipe(Effect.catchTag("SqlError", Effect.die), withSpan("OrganizationAccess.require"))

    return { require } as const
  })
}) {}
