import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"

/** A company's id: a UUID, stored and answered in canonical (lowercase, hyphenated) form ({@link parseUuid}). */
export const CompanyId = Schema.UUID.pipe(Schema.brand("CompanyId"))

/** A company's id. */
export type CompanyId = typeof CompanyId.Type

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i

/** The canonical (lowercase, hyphenated) form of a UUID, or undefined when `input` is not one. */
export const parseUuid = (input: string): string | undefined => {
  const value = input.trim()
  if (!UUID.test(value)) return undefined
  const hex = value.replace(/-/g, "").toLowerCase()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A UUID body field (DRF's UUIDField: hyphens optional, any case); decodes to the canonical lowercase form. */
export const uuid = Fields.make(Schema.String, { type: "string", format: "uuid" }, (input) => {
  const value = typeof input === "string" ? parseUuid(input) : undefined
  return value === undefined ? { ok: false, message: "Must be a valid UUID." } : { ok: true, value }
})

/** The company id a path segment names, or undefined when it is not a UUID. */
export const parseCompanyId = (input: string): CompanyId | undefined => {
  const value = parseUuid(input)
  return value === undefined ? undefined : CompanyId.make(value)
}
