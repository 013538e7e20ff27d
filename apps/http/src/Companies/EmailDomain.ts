import { Schema } from "effect"
import * as Fields from "../Http/Fields.js"

/** Longest domain name (RFC 1035). */
export const MAX_DOMAIN_LENGTH = 253

/** Most e-mail domains one company may list. */
export const MAX_DOMAINS_PER_COMPANY = 50

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * The domain lower-cased, or undefined when it is not a domain name of at least two labels (`example.com`),
 * each of letters, digits and inner hyphens, the last not all digits. A leading `@` is accepted and dropped,
 * since people paste `@example.com`.
 */
export const normalizeDomain = (input: string): string | undefined => {
  const value = input.trim().toLowerCase().replace(/^@/, "").replace(/\.$/, "")
  if (value.length === 0 || value.length > MAX_DOMAIN_LENGTH) return undefined
  const labels = value.split(".")
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined
  return /^\d+$/.test(labels[labels.length - 1]!) ? undefined : value
}

/** The domain of an e-mail address, lower-cased. */
export const domainOfEmail = (email: string): string => email.slice(email.lastIndexOf("@") + 1).toLowerCase()

/** One e-mail domain in a body. */
export const emailDomain = Fields.make(
  Schema.String,
  { type: "string", format: "hostname", maxLength: MAX_DOMAIN_LENGTH },
  (input) => {
    const value = typeof input === "string" ? normalizeDomain(input) : undefined
    return value === undefined
      ? { ok: false, message: `"${Fields.shown(input)}" is not a valid domain name (e.g. example.com).` }
      : { ok: true, value }
  }
)

/** The `email_domains` body field: a list of domains, duplicates dropped after lower-casing. */
export const emailDomains = Schema.transform(
  Fields.list(emailDomain, { maxItems: MAX_DOMAINS_PER_COMPANY }),
  Schema.Array(Schema.String),
  { strict: true, decode: (domains) => [...new Set(domains)], encode: (domains) => domains }
).annotations({
  [Fields.ListFieldId]: true,
  jsonSchema: {
    type: "array",
    items: { type: "string", format: "hostname", maxLength: MAX_DOMAIN_LENGTH },
    maxItems: MAX_DOMAINS_PER_COMPANY
  }
})
