import { createHmac, randomBytes } from "node:crypto"

/** The header carrying the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>` (one `v1` per valid secret). */
export const SIGNATURE_HEADER = "X-Helpdesk-Signature"

/** The header carrying the event's id: the same on every attempt of the event, for the receiver's deduplication. */
export const EVENT_ID_HEADER = "X-Helpdesk-Event-Id"

/** A new webhook secret: `whsec_` and 32 random bytes, base64url (the whole string is the HMAC key). */
export const newSecret = (): string => `whsec_${randomBytes(32).toString("base64url")}`

/**
 * The `X-Helpdesk-Signature` value of `body` sent at `at`: the scheme Stripe documents, HMAC-SHA256 over
 * `${t}.${body}` with each secret (the current one, and the previous one while a rotation's overlap lasts).
 */
export const signatureHeader = (body: string, secrets: ReadonlyArray<string>, at: Date): string => {
  const t = Math.floor(at.getTime() / 1000)
  const signed = `${t}.${body}`
  return [
    `t=${t}`,
    ...secrets.map((secret) => `v1=${createHmac("sha256", secret).update(signed, "utf8").digest("hex")}`)
  ].join(",")
}
