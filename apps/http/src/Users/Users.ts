import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { BigInt8, Timestamptz } from "../Database/Columns.js"
import { dieUndecodable } from "../Database/Rows.js"

/** A person who can hold memberships and personal tokens. */
export const User = Schema.Struct({
  id: Schema.Int,
  email: Schema.String,
  name: Schema.String,
  profilePictureUrl: Schema.String,
  createdAt: Timestamptz
})

/** A person who can hold memberships and personal tokens. */
export type User = typeof User.Type

/** A row of `users` (`id, email, name, profile_picture_url, created_at`): a {@link User}. */
const UserRow = Schema.Struct({ ...User.fields, id: BigInt8 })

/** E-mail addresses identify users case-insensitively; they are stored lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/** Users, identified by e-mail address. */
export class Users extends Effect.Service<Users>()("@helpdesk/http/Users/Users", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const upsert = SqlSchema.single({
      Request: Schema.Struct({ email: Schema.String, name: Schema.String }),
      Result: UserRow,
      execute: ({ email, name }) => sql`
        INSERT INTO users ${sql.insert({ email, name })}
        ON CONFLICT (email) DO UPDATE SET name = CASE WHEN users.name = '' THEN EXCLUDED.name ELSE users.name END
        RETURNING id, email, name, profile_picture_url, created_at`
    })

    /** The user with this e-mail address, created when new (a given name fills an empty one). */
    const ensure = (email: string, name = ""): Effect.Effect<User> =>
      upsert({ email: normalizeEmail(email), name }).pipe(dieUndecodable("users"), Effect.orDie)

    const findOne = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (email) => sql`SELECT id, email, name, profile_picture_url, created_at FROM users WHERE email = ${email}`
    })

    /** The user with this e-mail address, or undefined. */
    const findByEmail = (email: string): Effect.Effect<User | undefined> =>
      findOne(normalizeEmail(email)).pipe(Effect.map(Option.getOrUndefined), dieUndecodable("users"), Effect.orDie)

    return { ensure, findByEmail } as const
  })
}) {}
