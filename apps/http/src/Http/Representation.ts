import { Schema, String as Str } from "effect"

/** A timestamp on the wire: ISO-8601 UTC with milliseconds and `Z` (`2026-11-22T09:30:00.000Z`). */
export const Timestamp = Schema.Date.annotations({
  identifier: "Timestamp",
  jsonSchema: { type: "string", format: "date-time", examples: ["2026-11-22T09:30:00.000Z"] }
})

/** A timestamp or `null` where unset. */
export const NullableTimestamp = Schema.NullOr(Timestamp)

/** `<user_ref>`: a user as other resources show them. */
export class UserRef extends Schema.Class<UserRef>("UserRef")({
  id: Schema.Int,
  email: Schema.String,
  profile_picture_url: Schema.String,
  name: Schema.String
}) {}

/** A stored user (the domain's `UserRef`: `profilePictureUrl`) as a `<user_ref>`, or null for none. */
export const userRefWire = (
  user: {
    readonly id: number
    readonly email: string
    readonly profilePictureUrl: string
    readonly name: string
  } | null
): UserRef | null =>
  user === null
    ? null
    : { id: user.id, email: user.email, profile_picture_url: user.profilePictureUrl, name: user.name }

/**
 * An item with a secret shown once (the answer that creates or rotates it; only a digest is kept): the item's
 * fields and the secret's, a string under `key`.
 */
export const withSecret = <Fields extends Schema.Struct.Fields, const Key extends string>(
  item: Schema.Struct<Fields>,
  secret: { readonly key: Key; readonly description: string; readonly identifier: string }
) =>
  Schema.Struct({ ...item.fields, [secret.key]: Schema.String.annotations({ description: secret.description }) } as {
    readonly [K in keyof Fields | Key]: K extends Key ? typeof Schema.String : Fields[K & keyof Fields]
  }).annotations({ identifier: secret.identifier })

/** `first_reply_minutes` → `firstReplyMinutes`: a wire key as the stored model names it. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S

/** The fields a model needs to show as a wire struct of type `T`: the same values under camelCase names. */
export type CamelCased<T> = { readonly [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] }

/**
 * The mapper of a stored model to the wire struct `wire` whose snake_case keys are the model's camelCase ones with
 * the same values (`inbox_ids` is `inboxIds`): it copies exactly the wire's fields, in the wire's order, so a
 * model's other fields (an organization id, a secret) never reach the answer.
 */
export const fromModel = <Fields extends Schema.Struct.Fields>(wire: Schema.Struct<Fields>) => {
  const keys = Object.keys(wire.fields).map((key) => [key, Str.snakeToCamel(key)] as const)
  return (model: CamelCased<Schema.Struct.Type<Fields>>): Schema.Struct.Type<Fields> =>
    Object.fromEntries(
      keys.map(([wireKey, modelKey]) => [wireKey, (model as Record<string, unknown>)[modelKey]])
    ) as Schema.Struct.Type<Fields>
}
