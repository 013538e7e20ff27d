import { Schema } from "effect"

/**
 * An inbound mail the service will not take, and why: `malformed` (not a mail), `too_large` (the message or one of
 * its attachments past the limits), `content_refused` (an HTML or SVG attachment, refused as uploads are),
 * `no_recipient` (no recipient names an inbox). The SMTP listener answers it as a permanent failure, the endpoint
 * as a 4xx.
 */
export class InboundMailRefused extends Schema.TaggedError<InboundMailRefused>()("InboundMailRefused", {
  kind: Schema.Literal("malformed", "too_large", "content_refused", "no_recipient"),
  detail: Schema.String
}) {
  static readonly malformed = (detail: string) => new InboundMailRefused({ kind: "malformed", detail })
  static readonly tooLarge = (detail: string) => new InboundMailRefused({ kind: "too_large", detail })
  static readonly contentRefused = (detail: string) => new InboundMailRefused({ kind: "content_refused", detail })
  static readonly noRecipient = (detail: string) => new InboundMailRefused({ kind: "no_recipient", detail })

  override get message() {
    return this.detail
  }
}
