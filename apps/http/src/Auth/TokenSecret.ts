import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

/**
 * Plain tokens and their hashes. A token is a kind prefix and 32 random bytes in base64url
 * (`hd_pat_…` personal, `hd_int_…` integration): recognizable in logs and secret scanners, 256 bits of entropy.
 * Only the SHA-256 of a token is stored; a fast hash is right here because the input is random, not a password.
 */

/** The kinds of token and their prefixes. */
export const TOKEN_PREFIX = { personal: "hd_pat_", integration: "hd_int_" } as const

/** A kind of token. */
export type TokenKind = keyof typeof TOKEN_PREFIX

const SHAPE = /^hd_(pat|int)_[A-Za-z0-9_-]{43}$/

/** A new random token of a kind. */
export const generate = (kind: TokenKind): string => `${TOKEN_PREFIX[kind]}${randomBytes(32).toString("base64url")}`

/** True when `value` has the shape of a token (cheap check before any database work). */
export const isWellFormed = (value: string): boolean => SHAPE.test(value)

/** The SHA-256 of a token, as stored. */
export const hash = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()

/** Constant-time comparison of two hashes. */
export const hashesEqual = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b)

/** What may be shown of a token after creation: its prefix and first characters, e.g. `hd_pat_Ab12…`. */
export const displayPrefix = (token: string): string => `${token.slice(0, 11)}…`
