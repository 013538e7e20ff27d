import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { NullableTimestamp, Timestamp, withSecret } from "../Http/Representation.js"

/** Longest token label. */
export const MAX_TOKEN_NAME_LENGTH = 100

/** One of the caller's personal tokens, without its secret. */
export const PersonalToken = Schema.Struct({
  id: Schema.Int,
  name: Schema.String.annotations({ description: "The label given at creation." }),
  prefix: Schema.String.annotations({ description: "The token's first characters, e.g. `hd_pat_Ab12…`." }),
  created_at: Timestamp,
  revoked_at: NullableTimestamp
}).annotations({ identifier: "PersonalToken" })

/** A personal token as the API shows it. */
export type PersonalToken = typeof PersonalToken.Type

/** A personal token just created, with its secret: the only time the secret is shown. */
export const IssuedPersonalToken = withSecret(PersonalToken, {
  key: "token",
  description: "The secret (`hd_pat_…`), shown this once: only its SHA-256 is stored. Send it as `X-Service-Token`.",
  identifier: "IssuedPersonalToken"
})

/** A created personal token as the API shows it. */
export type IssuedPersonalToken = typeof IssuedPersonalToken.Type

/** Body of `POST /organizations/{organization_id}/personal-tokens/`. */
export const PersonalTokenCreate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: MAX_TOKEN_NAME_LENGTH, allowBlank: true }))
}).annotations({ identifier: "PersonalTokenCreate" })

/** A decoded create body. */
export type PersonalTokenCreate = typeof PersonalTokenCreate.Type
