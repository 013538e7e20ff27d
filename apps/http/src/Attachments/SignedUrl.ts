import { createHmac, timingSafeEqual } from "node:crypto"

/** A download link's signed part: when it expires and the signature over the attachment and expiry. */
export interface DownloadSignature {
  readonly expires: number
  readonly signature: string
}

const sign = (secret: string, attachmentId: string, expires: number) =>
  createHmac("sha256", secret).update(`${attachmentId}:${expires}`).digest("base64url")

/** Signs a download of `attachmentId` valid until `expiresAt` (epoch seconds, so links are short). */
export const signDownload = (secret: string, attachmentId: string, expiresAt: Date): DownloadSignature => {
  const expires = Math.floor(expiresAt.getTime() / 1000)
  return { expires, signature: sign(secret, attachmentId, expires) }
}

/** Whether a download signature is genuine for this attachment and not expired at `now`. */
export const verifyDownload = (
  secret: string,
  attachmentId: string,
  expires: number,
  signature: string,
  now: Date
): boolean => {
  if (!Number.isSafeInteger(expires) || expires * 1000 <= now.getTime()) return false
  const expected = Buffer.from(sign(secret, attachmentId, expires))
  const given = Buffer.from(signature)
  return expected.length === given.length && timingSafeEqual(expected, given)
}
