import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A person who can hold memberships and personal tokens. */
export interface User {
  readonly id: number
  readonly email: string
  readonly name: string
  readonly profilePictureUrl: string
  readonly createdAt: Date
}

interface UserRow {
  readonly id: string
  readonly email: string
  readonly name: string
  readonly profilePictureUrl: string
  readonly createdAt: Date
}

const toUser = (row: UserRow): User => ({ ...row, id: Number(row.id) })

/** E-mail addresses identify users case-insensitively; they are stored lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/** Users, identified by e-mail address. */
export class Users extends Effect.Service<Users>()("@helpdesk/http/Users/Users", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The user with this e-mail address, created when new (a given name fills an empty one). */
    const ensure = (email: string, name = "") =>
      sql<UserRow>`
        INSERT INTO users ${sql.insert({ email: normalizeEmail(email), name })}
        ON CONFLICT (email) DO UPDATE SET name = CASE WHEN users.name = '' THEN EXCLUDED.name ELSE users.name END
        RETURNING *`.pipe(
        Effect.map((rows) => toUser(rows[0]!)),
        Effect.orDie
      )

    const findByEmail = (email: string) =>
      sql<UserRow>`SELECT * FROM users WHERE email = ${normalizeEmail(email)}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : toUser(rows[0]))),
        Effect.orDie
      )

    return { ensure, findByEmail } as const
  })
}) {}
