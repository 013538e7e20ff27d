import type { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, Option } from "effect"
import * as Repository from "../Database/Repository.js"

/**
 * Each organization has exactly one help-center portal, created the first time something is written to it; its
 * id is the `portal` of collections and articles (docs/decisions/0602-help-center-portal-and-slugs.md).
 *
 * Every help-center write runs in a transaction that first locks the organization's portal row, so writes of one
 * organization are serialized: two concurrent moves cannot make a cycle, and slug generation cannot race.
 */

/** Creates the organization's portal when missing and locks it for the current transaction; returns its id. */
export const lockPortal = (sql: SqlClient.SqlClient, organizationId: OrganizationId) =>
  Effect.gen(function* () {
    yield* sql`INSERT INTO hc_portals (organization_id) VALUES (${organizationId}) ON CONFLICT (organization_id) DO NOTHING`
    return yield* sql`SELECT id FROM hc_portals WHERE organization_id = ${organizationId} FOR UPDATE`.pipe(
      Repository.returnedId("hc_portals"),
      Effect.map(Option.getOrThrow)
    )
  })

/** The organization's portal id, creating the portal when missing. */
export const ensurePortal = (sql: SqlClient.SqlClient, organizationId: OrganizationId) =>
  Effect.gen(function* () {
    return yield* sql`
      INSERT INTO hc_portals (organization_id) VALUES (${organizationId})
      ON CONFLICT (organization_id) DO UPDATE SET organization_id = EXCLUDED.organization_id
      RETURNING id`.pipe(Repository.returnedId("hc_portals"), Effect.map(Option.getOrThrow))
  })
