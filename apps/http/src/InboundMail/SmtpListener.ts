import type { OrganizationId } from "@helpdesk/domain"
import { Config, Effect, Layer, Option, Runtime } from "effect"
import { SMTPServer } from "smtp-server"
import { InboundMail, InboundMailLive, MAX_MESSAGE_BYTES } from "./InboundMail.js"
import type { InboundMailRefused } from "./InboundMailErrors.js"
import { InboundRouting } from "./InboundRouting.js"

/** Recipients one message may name (RFC 5321 asks servers to take at least 100; inboxes are few). */
const MAX_RECIPIENTS = 100

/** An SMTP reply to a command: `responseCode` is what smtp-server answers with. */
const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code })

/** The SMTP reply for a mail the service refuses (permanent: the sending server bounces it to its sender). */
const refusal = (refused: InboundMailRefused) => {
  switch (refused.kind) {
    case "too_large":
      return smtpError(552, `5.3.4 ${refused.detail}`)
    case "content_refused":
      return smtpError(554, `5.6.0 ${refused.detail}`)
    case "no_recipient":
      return smtpError(550, `5.1.1 ${refused.detail}`)
    case "malformed":
      return smtpError(554, `5.6.0 ${refused.detail}`)
  }
}

/** Where the listener listens: `SMTP_INBOUND_PORT` (unset: no listener) on `SMTP_INBOUND_HOST`. */
export const SmtpInboundConfig = Config.all({
  port: Config.option(Config.port("SMTP_INBOUND_PORT")),
  host: Config.string("SMTP_INBOUND_HOST").pipe(Config.withDefault("127.0.0.1")),
  hostname: Config.string("SMTP_INBOUND_HOSTNAME").pipe(Config.withDefault(""))
})

/**
 * Starts an SMTP server for inbound mail (docs/decisions/0751-inbound-mail.md) on `port` of `host` and answers its
 * port (0: any free one). Each `RCPT TO` must name an inbox address of ours (`550 5.1.1` otherwise: no open relay);
 * `SIZE` is announced ({@link MAX_MESSAGE_BYTES}) and enforced on the data; the message is filed by
 * {@link InboundMail} once per organization its recipients name, and only then answered `250`, so a mail the
 * service could not file (a database outage: `451`) stays with the sending server, which retries.
 */
export const startSmtpListener = (options: {
  readonly port: number
  readonly host: string
  readonly hostname?: string
}) =>
  Effect.gen(function* () {
    const inbound = yield* InboundMail
    const routing = yield* InboundRouting
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runPromise(runtime)
    // Per session: the organization and inbox each accepted recipient named.
    const targets = new Map<string, Map<OrganizationId, number>>()

    const server = new SMTPServer({
      ...(options.hostname === undefined || options.hostname === "" ? {} : { name: options.hostname }),
      banner: "Helpdesk inbound mail",
      size: MAX_MESSAGE_BYTES,
      rejectOversized: true,
      authOptional: true,
      // TLS and authentication belong to the relay in front when there is one (docs/operations.md).
      disabledCommands: ["AUTH", "STARTTLS"],
      disableReverseLookup: true,
      maxClients: 20,
      logger: false,
      onConnect: (session, callback) => {
        targets.set(session.id, new Map())
        callback()
      },
      onClose: (session) => {
        targets.delete(session.id)
      },
      onMailFrom: (_address, session, callback) => {
        targets.set(session.id, new Map())
        callback()
      },
      onRcptTo: (address, session, callback) => {
        if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
          return callback(smtpError(452, "4.5.3 Too many recipients"))
        run(routing.resolveAddress(address.address)).then(
          (resolved) => {
            if (resolved === undefined) return callback(smtpError(550, "5.1.1 No such mailbox here"))
            const byOrganization = targets.get(session.id) ?? new Map<OrganizationId, number>()
            if (!byOrganization.has(resolved.organizationId))
              byOrganization.set(resolved.organizationId, resolved.inboxId)
            targets.set(session.id, byOrganization)
            callback()
          },
          () => callback(smtpError(451, "4.3.0 Temporary failure, try again later"))
        )
      },
      onData: (stream, session, callback) => {
        const chunks: Array<Buffer> = []
        let size = 0
        stream.on("data", (chunk: Buffer) => {
          size += chunk.length
          // Past the limit the data is read to its end and dropped; the server answers 552 itself.
          if (size <= MAX_MESSAGE_BYTES) chunks.push(chunk)
        })
        stream.on("error", () => callback(smtpError(451, "4.3.0 Temporary failure, try again later")))
        stream.on("end", () => {
          if (stream.sizeExceeded) return callback(smtpError(552, `5.3.4 The message is too large.`))
          const raw = Buffer.concat(chunks)
          const byOrganization = [...(targets.get(session.id) ?? new Map<OrganizationId, number>()).entries()]
          const nullSender = session.envelope.mailFrom === false || session.envelope.mailFrom.address === ""
          const file = Effect.forEach(
            byOrganization,
            ([organizationId, inboxId]) =>
              inbound.receive({
                raw: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength),
                organizationId,
                inboxId,
                nullSender
              }),
            { discard: true }
          ).pipe(
            Effect.map(() => undefined),
            Effect.catchTag("InboundMailRefused", (refused) => Effect.succeed(refusal(refused))),
            Effect.catchAllCause((cause) =>
              Effect.as(
                Effect.logError("Inbound mail: not filed, the sender is told to retry", cause),
                smtpError(451, "4.3.0 Temporary failure, try again later")
              )
            )
          )
          run(file).then(
            (error) => (error === undefined ? callback(null, "2.0.0 Message accepted") : callback(error)),
            () => callback(smtpError(451, "4.3.0 Temporary failure, try again later"))
          )
        })
      }
    })
    server.on("error", (error) => {
      Runtime.runFork(runtime)(Effect.logWarning("Inbound SMTP: connection error", error))
    })
    return yield* Effect.acquireRelease(
      Effect.async<number, Error>((resume) => {
        const onError = (error: Error) => resume(Effect.fail(error))
        server.server.once("error", onError)
        server.listen(options.port, options.host, () => {
          server.server.off("error", onError)
          const address = server.server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : options.port))
        })
      }).pipe(Effect.orDie),
      () => Effect.async<void>((resume) => server.close(() => resume(Effect.void)))
    )
  })

/**
 * The inbound SMTP listener when `SMTP_INBOUND_PORT` is set (off by default); needs the ticket services and the
 * `SqlClient`. Closed on shutdown: open sessions are answered first (smtp-server's `close`).
 */
export const SmtpInboundLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* SmtpInboundConfig.pipe(Effect.orDie)
    if (Option.isNone(config.port)) return
    const port = yield* startSmtpListener({ port: config.port.value, host: config.host, hostname: config.hostname })
    yield* Effect.logInfo(`Inbound SMTP listening on ${config.host}:${port}`)
  })
).pipe(Layer.provide(Layer.mergeAll(InboundMailLive, InboundRouting.Default)))
