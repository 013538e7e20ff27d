import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"

/** Longest tag name. */
export const MAX_TAG_NAME_LENGTH = 100

/** A tag's id. */
export const TagId = Schema.Int.pipe(Schema.brand("TagId"))

/** A tag's id. */
export type TagId = typeof TagId.Type

/** A ticket tag of an organization: its name (unique ignoring case) and color (`#rrggbb` lowercase, or `""`). */
export const Tag = Schema.Struct({ id: TagId, name: Schema.String, color: Schema.String })

/** A ticket tag of an organization. */
export type Tag = typeof Tag.Type

const COLOR = /^#[0-9a-f]{6}$/i

/** The stored form of a color: `#rrggbb` lower-cased, `""` for none; undefined when it is not one. */
export const normalizeColor = (input: string): string | undefined => {
  const value = input.trim()
  return value === "" ? "" : COLOR.test(value) ? value.toLowerCase() : undefined
}

/** The `color` body field: `#rrggbb` in any case, or `""`/`null` for none; decodes to the stored form. */
export const color = Fields.nullable(
  Fields.make(
    Schema.String,
    { type: "string", pattern: "^(#[0-9a-fA-F]{6})?$", description: '`#rrggbb`; `""` or null for none.' },
    (input) => {
      const value = typeof input === "string" ? normalizeColor(input) : undefined
      return value === undefined
        ? { ok: false, message: 'Enter a color as "#rrggbb" (six hexadecimal digits), or "" for none.' }
        : { ok: true, value }
    }
  )
)

/** The key under which tag names are unique in an organization. */
export const tagNameKey = (name: string): string => name.trim().toLowerCase()

/** Body of `POST /organizations/{organization_id}/tags/`. */
export const TagCreate = Schema.Struct({
  name: Fields.text({ maxLength: MAX_TAG_NAME_LENGTH }),
  color: Fields.optional(color)
}).annotations({ identifier: "TagCreate" })

/** A decoded create body. */
export type TagCreate = typeof TagCreate.Type

/** Body of `PATCH /organizations/{organization_id}/tags/{pk}/`. */
export const TagUpdate = Schema.Struct({
  name: Fields.optional(Fields.text({ maxLength: MAX_TAG_NAME_LENGTH })),
  color: Fields.optional(color)
}).annotations({ identifier: "TagUpdate" })

/** A decoded update body. */
export type TagUpdate = typeof TagUpdate.Type
