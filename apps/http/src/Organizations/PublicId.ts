import { randomBytes } from "node:crypto"
import { fold } from "../Search/SearchText.js"

const ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"

/** Random characters from an alphabet without look-alikes (no 0/o, 1/l). */
const randomSuffix = (length: number): string =>
  Array.from(randomBytes(length), (byte) => ALPHABET[byte % ALPHABET.length]).join("")

/**
 * A new public id for an organization: a slug of its name and a random suffix (`acme-support-x7k2p9`), so it
 * is readable in URLs, matches `^[-a-zA-Z0-9_]+$`, and does not change when the organization is renamed.
 */
export const generate = (name: string): string => {
  const slug = fold(name)
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/g, "")
  return `${slug === "" ? "org" : slug}-${randomSuffix(8)}`
}
