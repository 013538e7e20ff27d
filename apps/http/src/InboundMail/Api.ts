import { HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import * as Endpoint from "../Http/Endpoint.js"
import * as Resource from "../Http/Resource.js"

/** What became of an inbound mail, as `POST /inbound/email/` answers it. */
export class InboundMailResult extends Schema.Class<InboundMailResult>("InboundMailResult")({
  outcome: Schema.Literal("ticket", "message", "bounce", "ignored").annotations({
    description:
      "`ticket`: a new ticket was opened for the sender; `message`: the mail was added to a ticket as the customer's reply; `bounce`: a delivery status notification recorded `failed` on the ticket or message of the mail it returns; `ignored`: nothing was written (an auto-reply, our own mail, a bounce for mail not ours; `reason` says which)."
  }),
  reason: Schema.String.annotations({ description: "Why, in words (diagnostic: do not branch on it)." }),
  ticket_id: Schema.NullOr(Schema.Number),
  ticket_public_id: Schema.NullOr(Schema.String),
  message_id: Schema.NullOr(Schema.Number).annotations({ description: "The message added, for `message`." }),
  duplicate: Schema.Boolean.annotations({
    description: "`true` when a mail with the same `Message-ID` was received before: nothing was done again."
  })
}) {}

const RawMessage = HttpApiSchema.withEncoding(Schema.Uint8ArrayFromSelf, {
  kind: "Uint8Array",
  contentType: "message/rfc822"
}).annotations({ description: "The whole message as received (RFC 5322), at most 72 MB (75,497,472 bytes)." })

/** Inbound e-mail over HTTP: what mail providers' inbound webhooks forward. */
export class InboundMailApi extends Resource.guarded(
  HttpApiGroup.make("inboundMail").add(
    Endpoint.post("receive", "/inbound/email/", {
      summary: "Deliver an inbound e-mail",
      description:
        "Files a raw e-mail (`Content-Type: message/rfc822`) for the organization of the integration token (personal tokens → 403): a reply to a ticket (by `In-Reply-To` / `References` against the Message-IDs of the organization's mail, else a `[#{public_id}]` in the subject from that ticket's customer) is added as the customer's message without the quoted history; any other mail opens a ticket for the sender (found or created as a customer by address), in the inbox a recipient names (`{email_prefix}@…`), else the default inbox. A delivery status notification for one of our mails records `failed` on that ticket or message. Mail sent by machines (`Auto-Submitted`, `Precedence: bulk|junk|list`) and our own mail are ignored. The same `Message-ID` twice changes nothing. Always 200 with what became of the mail. A message over 72 MB, or with an attachment over 50 MB (52,428,800 bytes) → 413; an HTML or SVG attachment, or a body that is not a mail → 400 (nothing is stored). See docs/operations.md, \"Inbound e-mail\"."
    })
      .setPayload(RawMessage)
      .addSuccess(InboundMailResult)
  ),
  "Inbound e-mail"
) {}
