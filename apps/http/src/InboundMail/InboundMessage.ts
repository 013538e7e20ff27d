import { Effect } from "effect"
import { type AddressObject, type Attachment, type HeaderValue, simpleParser } from "mailparser"
import { InboundMailRefused } from "./InboundMailErrors.js"

/** An address of a mail header: the address lower-cased at its domain, and the display name. */
export interface MailAddress {
  readonly address: string
  readonly name: string
}

/** One attached file of an inbound mail, decoded. */
export interface InboundAttachment {
  readonly fileName: string
  readonly contentType: string
  readonly content: Uint8Array
}

/** What the service reads of an inbound mail (RFC 5322), parsed once. */
export interface InboundMessage {
  readonly from: MailAddress | undefined
  /** `To`, `Cc`, `Delivered-To` and `X-Original-To`, in that order, without duplicates. */
  readonly recipients: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
  readonly html: string
  /** The mail's own `Message-ID`, angle brackets included; `undefined` when it has none. */
  readonly messageId: string | undefined
  /** `In-Reply-To` first, then `References` from the newest: the mails this one answers, most likely first. */
  readonly repliesTo: ReadonlyArray<string>
  readonly attachments: ReadonlyArray<InboundAttachment>
  /** Headers the loop guard and the bounce reader look at, by lower-case name. */
  readonly header: (name: string) => string
  /** Whether it is a delivery status notification (`multipart/report; report-type=delivery-status`). */
  readonly isDeliveryReport: boolean
}

const MESSAGE_ID = /<[^<>\s]+>/g

const headerText = (value: HeaderValue | undefined): string => {
  if (value === undefined) return ""
  if (typeof value === "string") return value
  if (Array.isArray(value)) return value.map((one) => headerText(one as HeaderValue)).join(", ")
  if (value instanceof Date) return value.toISOString()
  if ("text" in value && typeof value.text === "string") return value.text
  if ("value" in value && typeof value.value === "string") return value.value
  return ""
}

/** An address lower-cased at the domain (local parts may be case-sensitive, domains are not). */
export const normalizeAddress = (address: string): string => {
  const trimmed = address.trim()
  const at = trimmed.lastIndexOf("@")
  return at < 0 ? trimmed.toLowerCase() : `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`
}

const addresses = (value: AddressObject | ReadonlyArray<AddressObject> | undefined): Array<MailAddress> => {
  if (value === undefined) return []
  const objects = Array.isArray(value) ? value : [value as AddressObject]
  const found: Array<MailAddress> = []
  const walk = (list: AddressObject["value"]) => {
    for (const entry of list) {
      if (entry.group !== undefined) walk(entry.group)
      else if (entry.address?.includes("@"))
        found.push({ address: normalizeAddress(entry.address), name: (entry.name ?? "").trim() })
    }
  }
  for (const object of objects) walk(object.value)
  return found
}

/** Every Message-ID of a header value (`References` may list many, some clients fold them oddly). */
export const messageIdsIn = (value: string): ReadonlyArray<string> => value.match(MESSAGE_ID) ?? []

const plainAddresses = (value: string) =>
  value
    .split(",")
    .map((one) => /<([^<>\s]+@[^<>\s]+)>/.exec(one)?.[1] ?? one.trim())
    .filter((one) => one.includes("@"))
    .map(normalizeAddress)

const fileNameOf = (attachment: Attachment, index: number) =>
  attachment.filename !== undefined && attachment.filename.trim() !== ""
    ? attachment.filename
    : `attachment-${index + 1}`

/**
 * Parses a raw RFC 5322 message with `mailparser`. Attachments come decoded, in memory (the listener and the
 * endpoint bound the whole message first); inline images of an HTML body (`cid:`) are attachments like any other.
 * A source that is not a mail at all (no header) is refused as malformed.
 */
export const parseMessage = (raw: Uint8Array): Effect.Effect<InboundMessage, InboundMailRefused> =>
  Effect.gen(function* () {
    const parsed = yield* Effect.tryPromise({
      try: () => simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), { keepCidLinks: true }),
      catch: (error) => InboundMailRefused.malformed(`The message could not be parsed: ${String(error)}`)
    })
    if (parsed.headerLines.length === 0) return yield* InboundMailRefused.malformed("The message has no header.")
    const header = (name: string) => headerText(parsed.headers.get(name.toLowerCase()))
    const from = addresses(parsed.from)[0]
    const recipients = [
      ...new Set([
        ...addresses(parsed.to).map((a) => a.address),
        ...addresses(parsed.cc).map((a) => a.address),
        ...plainAddresses(header("delivered-to")),
        ...plainAddresses(header("x-original-to"))
      ])
    ]
    const references = messageIdsIn(
      typeof parsed.references === "string" ? parsed.references : (parsed.references ?? []).join(" ")
    )
    const repliesTo = [...new Set([...messageIdsIn(parsed.inReplyTo ?? ""), ...[...references].reverse()])]
    const contentType = parsed.headers.get("content-type") as { value?: unknown; params?: Record<string, string> }
    const isDeliveryReport =
      String(contentType?.value ?? "").toLowerCase() === "multipart/report" &&
      String(contentType?.params?.["report-type"] ?? "").toLowerCase() === "delivery-status"
    return {
      from,
      recipients,
      subject: (parsed.subject ?? "").trim(),
      text: parsed.text ?? "",
      html: typeof parsed.html === "string" ? parsed.html : "",
      messageId: messageIdsIn(parsed.messageId ?? "")[0],
      repliesTo,
      attachments: parsed.attachments.map((attachment, index) => ({
        fileName: fileNameOf(attachment, index),
        contentType: attachment.contentType,
        content: new Uint8Array(attachment.content.buffer, attachment.content.byteOffset, attachment.content.length)
      })),
      header,
      isDeliveryReport
    } satisfies InboundMessage
  })
