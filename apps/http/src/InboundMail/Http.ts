import type { IncomingMessage } from "node:http"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { Api } from "../Api.js"
import { CurrentCaller } from "../Auth/CurrentCaller.js"
import { allows, deniedDetail } from "../Auth/Permissions.js"
import { BadRequest, PayloadTooLarge, PermissionDenied, UnsupportedMediaType } from "../Http/Errors.js"
import { TicketServicesLive } from "../Tickets/TicketServices.js"
import { InboundMailResult } from "./Api.js"
import { InboundMail, InboundMailLive, MAX_MESSAGE_BYTES } from "./InboundMail.js"
import type { InboundMailRefused } from "./InboundMailErrors.js"

const MEDIA_TYPE = "message/rfc822"

const tooLarge = () =>
  new PayloadTooLarge({
    detail: `The message is too large. The limit is 72 MB (${MAX_MESSAGE_BYTES.toLocaleString("en")} bytes).`
  })

/**
 * The whole body, refused past {@link MAX_MESSAGE_BYTES} as it arrives. Chunks are joined once at the end (the
 * platform's `arrayBuffer` joins at every chunk: quadratic, minutes for a 70 MB body).
 */
const readBody = (incoming: IncomingMessage) =>
  Effect.async<Uint8Array, PayloadTooLarge | BadRequest>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    const finish = (result: Effect.Effect<Uint8Array, PayloadTooLarge | BadRequest>) => {
      if (done) return
      done = true
      incoming.off("data", onData)
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_MESSAGE_BYTES) {
        chunks.length = 0
        // Read the rest to the end so the refusal reaches the client, and keep none of it.
        incoming.resume()
        return finish(Effect.fail(tooLarge()))
      }
      chunks.push(chunk)
    }
    incoming.on("data", onData)
    incoming.once("end", () => finish(Effect.succeed(new Uint8Array(Buffer.concat(chunks, size)))))
    incoming.once("error", () => finish(Effect.fail(new BadRequest({ detail: "Could not read the request body." }))))
  })

const asWireError = (refused: InboundMailRefused) =>
  refused.kind === "too_large"
    ? new PayloadTooLarge({ detail: refused.detail })
    : new BadRequest({ detail: refused.detail })

/**
 * Handlers of the `inboundMail` group: `POST /inbound/email/` for the organization of the integration token
 * (docs/decisions/0751-inbound-mail.md). The role is checked before the body is read; the body is read whole,
 * bounded by {@link MAX_MESSAGE_BYTES}.
 */
export const InboundMailHttpLive = HttpApiBuilder.group(Api, "inboundMail", (handlers) =>
  Effect.gen(function* () {
    const inbound = yield* InboundMail
    return handlers.handleRaw("receive", ({ request }) =>
      Effect.gen(function* () {
        const caller = yield* CurrentCaller
        if (caller._tag !== "Integration" || !allows("inbound_mail.deliver", "token"))
          return yield* new PermissionDenied({ detail: deniedDetail("inbound_mail.deliver") })
        const mediaType = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase() ?? ""
        if (mediaType !== MEDIA_TYPE) return yield* UnsupportedMediaType.of(mediaType)
        const length = Number(request.headers["content-length"])
        if (Number.isFinite(length) && length > MAX_MESSAGE_BYTES) return yield* tooLarge()
        const body = yield* readBody(NodeHttpServerRequest.toIncomingMessage(request))
        if (body.byteLength === 0)
          return yield* new BadRequest({ detail: "The body is empty: send the whole message." })
        const outcome = yield* inbound
          .receive({ raw: new Uint8Array(body), organizationId: caller.organizationId })
          .pipe(Effect.mapError(asWireError))
        const encoded = yield* Schema.encode(InboundMailResult)(
          new InboundMailResult({
            outcome: outcome.outcome,
            reason: outcome.reason,
            ticket_id: outcome.ticketId,
            ticket_public_id: outcome.ticketPublicId,
            message_id: outcome.messageId,
            duplicate: outcome.duplicate
          })
        ).pipe(Effect.orDie)
        return HttpServerResponse.unsafeJson(encoded)
      })
    )
  })
).pipe(Layer.provide(InboundMailLive), Layer.provide(TicketServicesLive))
