import { Config, Schema } from "effect"
import * as Fields from "../Http/Fields.js"

/** Longest e-mail prefix: the longest local part an e-mail address may have. */
export const MAX_EMAIL_PREFIX_LENGTH = 64

const SLUG = /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/

/**
 * The prefix after lower-casing, or undefined when it is not one: lowercase letters and digits, with single
 * `-`, `_` or `.` between them, at most 64 characters, so `{prefix}@…` is always a valid address.
 */
export const normalizeEmailPrefix = (input: string): string | undefined => {
  const value = input.trim().toLowerCase()
  return value.length <= MAX_EMAIL_PREFIX_LENGTH && SLUG.test(value) ? value : undefined
}

/** The `email_prefix` body field. */
export const emailPrefix = Fields.make(
  Schema.String,
  {
    type: "string",
    pattern: SLUG.source,
    maxLength: MAX_EMAIL_PREFIX_LENGTH,
    description: "Lowercase letters and digits with single `-`, `_` or `.` between them; unique in the organization."
  },
  (input) => {
    if (typeof input !== "string") return { ok: false, message: "Not a valid string." }
    if (input.trim() === "") return { ok: false, message: "This field may not be blank." }
    if (input.trim().length > MAX_EMAIL_PREFIX_LENGTH)
      return { ok: false, message: `Ensure this field has no more than ${MAX_EMAIL_PREFIX_LENGTH} characters.` }
    const value = normalizeEmailPrefix(input)
    return value === undefined
      ? {
          ok: false,
          message: "Enter a valid email prefix: lowercase letters and digits, with single '-', '_' or '.' between them."
        }
      : { ok: true, value }
  }
)

/** Default domain of inbox addresses when `INBOX_EMAIL_DOMAIN` is not set. */
export const DEFAULT_INBOX_EMAIL_DOMAIN = "helpdesk.localhost"

/** `INBOX_EMAIL_DOMAIN`, the domain inbox addresses are under: lower-cased, the default when unset or blank. */
export const inboxEmailDomain: Config.Config<string> = Config.string("INBOX_EMAIL_DOMAIN").pipe(
  Config.withDefault(DEFAULT_INBOX_EMAIL_DOMAIN),
  Config.map((value) => value.trim().toLowerCase() || DEFAULT_INBOX_EMAIL_DOMAIN)
)

/**
 * The address customers write to: `{prefix}@{organization public id}.{domain}`. The organization's own
 * subdomain keeps prefixes unique per organization yet addresses unique across the service.
 */
export const inboxEmailAddress = (prefix: string, organizationPublicId: string, domain: string): string =>
  `${prefix}@${organizationPublicId.toLowerCase().replace(/_/g, "-")}.${domain}`
