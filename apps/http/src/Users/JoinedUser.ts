import type { SqlClient } from "@effect/sql"
import { UserRef } from "@helpdesk/domain"
import { Schema } from "effect"

/**
 * The user a row names, read in the row's own statement (`LEFT JOIN users <alias>`) as one JSON column: the
 * reference as the domain keeps it, or null where the join found no user (four nullable columns would have to be
 * put back together by every reader).
 */
export const joinedUser = (sql: SqlClient.SqlClient, alias: string) => {
  const user = sql(alias)
  return sql`CASE WHEN ${user}.id IS NULL THEN NULL ELSE json_build_object(
    'id', ${user}.id, 'email', ${user}.email, 'name', ${user}.name, 'profilePictureUrl', ${user}.profile_picture_url
  ) END`
}

/** The column {@link joinedUser} selects, decoded. */
export const JoinedUser = Schema.NullOr(UserRef)
