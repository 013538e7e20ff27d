import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Option } from "effect"
import { migrations } from "../Database/migrations/index.js"

// What the administration commands list, read straight from the tables: no service of the API lists across
// organizations, and these lists are for the operator only.

const iso = (value: Date | string | null): string | null =>
  value === null ? null : (value instanceof Date ? value : new Date(value)).toISOString()

/** Every organization: public id, name, number of members, creation time (oldest first). */
export const listOrganizations = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string; publicId: string; name: string; members: string; createdAt: Date }>`
    SELECT o.id, o.public_id, o.name, o.created_at,
           (SELECT count(*) FROM memberships m WHERE m.organization_id = o.id) AS members
    FROM organizations o ORDER BY o.created_at, o.id`
  return rows.map((row) => ({
    id: Number(row.id),
    public_id: row.publicId,
    name: row.name,
    members: Number(row.members),
    created_at: iso(row.createdAt)
  }))
}).pipe(Effect.orDie)

/** Users (every one, or the members of one organization) with their memberships, by e-mail. */
export const listUsers = (organizationId: Option.Option<OrganizationId>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const only = Option.getOrNull(organizationId)
    const users = yield* sql<{ id: string; email: string; name: string; createdAt: Date }>`
      SELECT u.id, u.email, u.name, u.created_at FROM users u
      WHERE ${only === null ? sql`true` : sql`EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.organization_id = ${only})`}
      ORDER BY u.email`
    const memberships = yield* sql<{ userId: string; publicId: string; role: string }>`
      SELECT m.user_id, o.public_id, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id
      WHERE ${only === null ? sql`true` : sql`m.organization_id = ${only}`}
      ORDER BY o.public_id`
    return users.map((user) => ({
      id: Number(user.id),
      email: user.email,
      name: user.name,
      created_at: iso(user.createdAt),
      memberships: memberships
        .filter((m) => m.userId === user.id)
        .map((m) => ({ organization: m.publicId, role: m.role }))
    }))
  }).pipe(Effect.orDie)

/** Which tokens {@link listTokens} lists. */
export type TokenFilter =
  | { readonly _tag: "All" }
  | { readonly _tag: "Organization"; readonly id: OrganizationId }
  | { readonly _tag: "User"; readonly email: string }

/**
 * Tokens without their secrets (only the stored display prefix, `hd_pat_Ab12…`): for an organization, its
 * integration tokens and its members' personal tokens (which act in it); for a user, their personal tokens.
 */
export const listTokens = (filter: TokenFilter) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const where =
      filter._tag === "Organization"
        ? sql`t.organization_id = ${filter.id} OR t.user_id IN (SELECT user_id FROM memberships WHERE organization_id = ${filter.id})`
        : filter._tag === "User"
          ? sql`u.email = ${filter.email}`
          : sql`true`
    const rows = yield* sql<{
      id: string
      kind: string
      displayPrefix: string
      name: string
      email: string | null
      publicId: string | null
      createdAt: Date
      revokedAt: Date | null
    }>`
      SELECT t.id, t.kind, t.display_prefix, t.name, u.email, o.public_id, t.created_at, t.revoked_at
      FROM api_tokens t
      LEFT JOIN users u ON u.id = t.user_id
      LEFT JOIN organizations o ON o.id = t.organization_id
      WHERE ${where}
      ORDER BY t.id`
    return rows.map((row) => ({
      id: Number(row.id),
      kind: row.kind,
      prefix: row.displayPrefix,
      name: row.name,
      user: row.email,
      organization: row.publicId,
      created_at: iso(row.createdAt),
      revoked_at: iso(row.revokedAt)
    }))
  }).pipe(Effect.orDie)

/**
 * The service's migrations: those the migrator has recorded, and those it would run (every one numbered after
 * the latest recorded, as the migrator does). Runs none, and creates nothing.
 */
export const migrationStatus = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [table] = yield* sql<{ exists: boolean }>`SELECT to_regclass('effect_sql_migrations') IS NOT NULL AS exists`
  const applied = table?.exists
    ? yield* sql<{ migrationId: number; name: string; createdAt: Date }>`
        SELECT migration_id, name, created_at FROM effect_sql_migrations ORDER BY migration_id`
    : []
  const latest = applied.reduce((max, row) => Math.max(max, Number(row.migrationId)), 0)
  const known = Object.keys(migrations).map((key) => {
    const [, id, name] = /^(\d+)_(.+)$/.exec(key)!
    return { id: Number(id), name: name! }
  })
  return {
    applied: applied.map((row) => ({ id: Number(row.migrationId), name: row.name, applied_at: iso(row.createdAt) })),
    pending: known.filter((m) => m.id > latest)
  }
}).pipe(Effect.orDie)
