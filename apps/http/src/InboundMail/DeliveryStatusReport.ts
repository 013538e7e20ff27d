import { messageIdsIn } from "./InboundMessage.js"

/** What a delivery status notification (RFC 3464) says about one of our mails. */
export interface DeliveryStatusReport {
  /** `failed`, `delayed`, `delivered`, `relayed` or `expanded` (the first recipient's `Action`). */
  readonly action: string
  /** The enhanced status code (`5.1.1`), or empty. */
  readonly status: string
  /** `Diagnostic-Code`, unfolded, or empty. */
  readonly diagnostic: string
  /** The recipient it is about (`Final-Recipient`), or empty. */
  readonly recipient: string
  /** The Message-IDs of the returned mail (its headers in the report's third part), then the report's own references. */
  readonly originalMessageIds: ReadonlyArray<string>
}

const field = (text: string, name: string): string => {
  const match = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t]+.*)*)`, "im").exec(text)
  return match === null ? "" : match[1]!.replace(/\r?\n[ \t]+/g, " ").trim()
}

/**
 * Reads a delivery status notification from its raw source: the per-recipient fields of the
 * `message/delivery-status` part (the first recipient's, as the one we sent to), and the `Message-ID` of the mail
 * it returns, from the `message/rfc822` or `text/rfc822-headers` part. Fields are read from the body as text, so
 * the parts' exact nesting (and how a parser would file them) does not matter.
 */
export const readDeliveryStatus = (raw: string, repliesTo: ReadonlyArray<string>): DeliveryStatusReport => {
  const bodyStart = raw.search(/\r?\n\r?\n/)
  const body = bodyStart < 0 ? "" : raw.slice(bodyStart)
  const recipientBlock = body.search(/^(Final-Recipient|Original-Recipient|Action):/im)
  const perRecipient = recipientBlock < 0 ? "" : body.slice(recipientBlock)
  const returned = [...body.matchAll(/^Message-ID:[ \t]*((?:.*)(?:\r?\n[ \t]+.*)*)/gim)].flatMap((match) =>
    messageIdsIn(match[1]!)
  )
  const status = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(field(perRecipient, "Status"))?.[1] ?? ""
  return {
    action: field(perRecipient, "Action").toLowerCase(),
    status,
    diagnostic: field(perRecipient, "Diagnostic-Code"),
    recipient: field(perRecipient, "Final-Recipient").replace(/^rfc822;\s*/i, ""),
    originalMessageIds: [...new Set([...returned, ...repliesTo])]
  }
}

/** The failure reason a bounce records: the status code, then the diagnostic (the domain trims it). */
export const failureReason = (report: DeliveryStatusReport): string =>
  [
    report.status,
    report.diagnostic === "" ? "" : report.diagnostic,
    report.recipient === "" ? "" : `(${report.recipient})`
  ]
    .filter((part) => part !== "")
    .join(" ") || "Bounced (delivery status notification without a status)"
