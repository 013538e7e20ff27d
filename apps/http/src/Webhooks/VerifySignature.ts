// The receiver's side of `X-Helpdesk-Signature`, self-contained (node:crypto only) so it can be copied as is:
// docs/webhooks.md shows this file, and test/Webhooks.test.ts verifies real deliveries with it.
import { createHmac, timingSafeEqual } from "node:crypto"

/** Why a delivery was refused. */
export type SignatureProblem = "malformed header" | "timestamp outside tolerance" | "no matching signature"

/**
 * Checks a delivery's `X-Helpdesk-Signature` header (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`) against the raw
 * request body (the exact bytes received, before any JSON parsing) and the webhook's secret. Answers `null` when a
 * `v1` signature matches HMAC-SHA256(secret, `${t}.${body}`) and `t` is within `toleranceSeconds` of `now`, else
 * the problem. Rejecting old timestamps stops replays of a captured request; also remember the
 * `X-Helpdesk-Event-Id`s you have handled, since the same event may be delivered more than once.
 */
export function verifySignature(
  header: string,
  rawBody: string,
  secret: string,
  toleranceSeconds = 300,
  now: Date = new Date()
): SignatureProblem | null {
  let timestamp: number | undefined
  const signatures: Array<string> = []
  for (const part of header.split(",")) {
    const [key, value] = part.trim().split("=", 2)
    if (key === "t" && value !== undefined && /^\d+$/.test(value)) timestamp = Number(value)
    if (key === "v1" && value !== undefined && /^[0-9a-f]{64}$/.test(value)) signatures.push(value)
  }
  if (timestamp === undefined || signatures.length === 0) return "malformed header"
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return "timestamp outside tolerance"
  const expected = createHmac("sha256", secret).update(`${timestamp}.${rawBody}`, "utf8").digest()
  const matches = signatures.some((signature) => timingSafeEqual(Buffer.from(signature, "hex"), expected))
  return matches ? null : "no matching signature"
}
