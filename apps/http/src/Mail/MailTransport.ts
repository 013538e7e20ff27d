import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import nodemailer, { type SendMailOptions, type SMTPPoolOptions } from "nodemailer"
import { claimEmlOutbox } from "./EmlOutboxWriter.js"

/** One e-mail, ready for a transport: nodemailer's message options (addresses, headers, parts, attachments). */
export type OutgoingMail = SendMailOptions & { readonly messageId: string }

/** What a transport did with a mail it took. */
export interface SendReceipt {
  /** Recipients the server accepted (every one for `.eml` files). */
  readonly accepted: ReadonlyArray<string>
  /** Recipients the server refused while others were accepted (the mail still went out). */
  readonly rejected: ReadonlyArray<string>
  /** Why each of `rejected` was refused (the server's reply), when the transport knows it. */
  readonly refusals?: ReadonlyArray<{ readonly address: string; readonly reason: string }>
  /** The server's last reply, or where the file was written. */
  readonly response: string
}

/**
 * A transport did not take the mail. `permanent`: sending the same mail again would be refused again (an SMTP
 * 5xx other than 503, no valid recipient, a message that cannot be built); otherwise (4xx, connection lost,
 * timeout, authentication) it may go through later.
 */
export class MailSendFailed extends Schema.TaggedError<MailSendFailed>()("MailSendFailed", {
  permanent: Schema.Boolean,
  reason: Schema.String
}) {}

/** Where mail goes: an SMTP server, or `.eml` files. */
export class MailTransport extends Context.Tag("@helpdesk/http/Mail/MailTransport")<
  MailTransport,
  {
    /** `smtp` or `eml` (logs, docs). */
    readonly kind: string
    /**
     * Whether a mail with this Message-ID is known to have been handed over already. `.eml` files answer from the
     * file system; SMTP servers cannot be asked, so SMTP answers false (the outbox row's recorded outcome is the
     * only check there).
     */
    readonly alreadySent: (messageId: string) => Effect.Effect<boolean>
    readonly send: (mail: OutgoingMail) => Effect.Effect<SendReceipt, MailSendFailed>
  }
>() {}

interface NodemailerError {
  readonly code?: string
  readonly responseCode?: number
  readonly response?: string
  readonly permanent?: boolean
  readonly message?: string
}

/** An SMTP error as the worker sees it: permanent or worth retrying, with a short reason. */
export const classifySmtpError = (error: unknown): MailSendFailed => {
  const e = (typeof error === "object" && error !== null ? error : { message: String(error) }) as NodemailerError
  const code = e.responseCode
  const reason = (e.response ?? e.message ?? "unknown error").replace(/\s+/g, " ").trim()
  // A configuration problem (credentials, TLS) is not the message's fault: retry, so fixing it delivers the backlog.
  if (e.code === "EAUTH" || e.code === "ENOAUTH" || e.code === "ETLS" || e.code === "ECONFIG")
    return new MailSendFailed({ permanent: false, reason: `${e.code}: ${reason}` })
  // 5yz is a permanent refusal (RFC 5321), except 503 (bad sequence: the session, not the message).
  if (code !== undefined) return new MailSendFailed({ permanent: code >= 500 && code !== 503, reason })
  // No server reply: a message nodemailer cannot build or an envelope without recipients is permanent; every
  // connection-level error (ECONNECTION, ETIMEDOUT, ESOCKET, EDNS, EPROTOCOL, …) is transient.
  const permanent = e.code === "EMESSAGE" || e.code === "EENVELOPE" || e.code === "EMAXRECIPIENTS"
  return new MailSendFailed({ permanent, reason: e.code === undefined ? reason : `${e.code}: ${reason}` })
}

/** Timeouts of SMTP sessions (nodemailer's defaults allow 10 minutes of silence). */
export const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 } as const

/**
 * An SMTP transport: a pool of up to `maxConnections` sessions to the server of `url` (a nodemailer URL,
 * `smtp://user:pass@host:587`, `smtps://…`; its query string may set any nodemailer SMTP option). Closed with
 * the scope.
 */
export const smtpTransport = (url: string, options: { readonly maxConnections?: number } = {}) =>
  Effect.gen(function* () {
    const transporter = yield* Effect.acquireRelease(
      Effect.sync(() =>
        nodemailer.createTransport({
          url,
          pool: true,
          maxConnections: options.maxConnections ?? 4,
          ...SMTP_TIMEOUTS,
          // Parts come from the outbox and the blob store; never let a message make nodemailer read a file or URL.
          disableFileAccess: true,
          disableUrlAccess: true
        } as SMTPPoolOptions & { url: string; pool: true })
      ),
      (t) => Effect.sync(() => t.close())
    )
    return MailTransport.of({
      kind: "smtp",
      alreadySent: () => Effect.succeed(false),
      send: (mail) =>
        Effect.tryPromise({
          try: () => transporter.sendMail({ ...mail, disableFileAccess: true, disableUrlAccess: true }),
          catch: classifySmtpError
        }).pipe(
          Effect.map((info) => ({
            accepted: (info.accepted ?? []).map(String),
            rejected: (info.rejected ?? []).map(String),
            refusals: (
              (info as { rejectedErrors?: ReadonlyArray<NodemailerError & { recipient?: string }> }).rejectedErrors ??
              []
            ).map((e) => ({
              address: String(e.recipient ?? ""),
              reason: (e.response ?? e.message ?? "").replace(/\s+/g, " ").trim()
            })),
            response: String(info.response ?? "")
          }))
        )
    })
  })

type AddressInput = OutgoingMail["to"] | OutgoingMail["from"]

/** The bare addresses of an address field (a string, `{ name, address }`, or a list of them). */
const addressList = (field: AddressInput): Array<string> => {
  if (field === undefined || field === null || field === "") return []
  if (Array.isArray(field)) return field.flatMap((f) => addressList(f as AddressInput))
  const address = typeof field === "string" ? field : field.address
  return address === undefined || address === "" ? [] : [address]
}

/** The file name of a Message-ID: `<a.b@c>` → `a.b@c.eml`, characters other than `[A-Za-z0-9._@+-]` as `_`. */
export const emlFileName = (messageId: string): string =>
  `${messageId.replace(/^<|>$/g, "").replace(/[^A-Za-z0-9._@+-]/g, "_")}.eml`

/** The file beside a mail's `.eml` that records its envelope: `<a.b@c>` → `a.b@c.envelope.json`. */
export const emlEnvelopeFileName = (messageId: string): string =>
  emlFileName(messageId).replace(/\.eml$/, ".envelope.json")

/**
 * A transport that writes each mail to `directory/{Message-ID}.eml` (CRLF line ends, as on the wire, without a
 * `Bcc` header, like SMTP), and its envelope beside it, `{Message-ID}.envelope.json`: `{"mail_from", "rcpt_to"}`,
 * every recipient an SMTP server would have been given, BCC included (decision 0662). A file that exists means the
 * mail was written: the envelope first, then the mail, each written to a temporary name, synced, then renamed, so a
 * crash never leaves a partial file under a final name.
 */
export const emlTransport = (directory: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const composer = nodemailer.createTransport({
      streamTransport: true,
      buffer: true,
      newline: "windows",
      disableFileAccess: true,
      disableUrlAccess: true
    })
    const fileOf = (messageId: string) => path.join(directory, emlFileName(messageId))
    const exists = (file: string) => fs.exists(file).pipe(Effect.orDie)
    const write = (file: string, content: Uint8Array) =>
      Effect.gen(function* () {
        yield* fs.makeDirectory(directory, { recursive: true })
        const partial = path.join(directory, `.${path.basename(file)}.${randomBytes(6).toString("hex")}.partial`)
        yield* Effect.scoped(
          Effect.gen(function* () {
            const handle = yield* fs.open(partial, { flag: "w" })
            yield* handle.writeAll(content)
            yield* handle.sync
          })
        ).pipe(Effect.tapError(() => fs.remove(partial, { force: true }).pipe(Effect.ignore)))
        yield* fs.rename(partial, file)
      }).pipe(Effect.mapError((error) => new MailSendFailed({ permanent: false, reason: error.message })))
    return MailTransport.of({
      kind: "eml",
      alreadySent: (messageId) => exists(fileOf(messageId)),
      send: (mail) =>
        Effect.gen(function* () {
          const file = fileOf(mail.messageId)
          // nodemailer's stream transport keeps the Bcc header; the envelope carries BCC instead, as over SMTP.
          const { bcc, ...visible } = mail
          const recipients = [mail.to, mail.cc, bcc].flatMap(addressList)
          if (yield* exists(file)) return { accepted: recipients, rejected: [], response: file }
          const info = yield* Effect.tryPromise({
            try: () =>
              composer.sendMail({
                ...visible,
                envelope: { from: addressList(mail.from)[0] ?? "", to: recipients },
                disableFileAccess: true,
                disableUrlAccess: true
              }),
            catch: (error) =>
              new MailSendFailed({ permanent: true, reason: `Cannot build the message: ${String(error)}` })
          })
          const envelope = { mail_from: addressList(mail.from)[0] ?? "", rcpt_to: info.envelope.to.map(String) }
          yield* write(
            path.join(directory, emlEnvelopeFileName(mail.messageId)),
            new TextEncoder().encode(`${JSON.stringify(envelope, null, 2)}\n`)
          )
          yield* write(file, info.message as Buffer)
          return { accepted: envelope.rcpt_to, rejected: [], response: file }
        })
    })
  })

/**
 * The transport of the service: SMTP to `SMTP_URL` when set (`MAIL_CONCURRENCY` pooled sessions), otherwise
 * `.eml` files under `DATA_DIR/outbox` (default `.data/outbox`), refused while a process of another machine or
 * directory writes them for the same database ({@link claimEmlOutbox}). Needs the `SqlClient`.
 */
export const MailTransportLive = Layer.scoped(
  MailTransport,
  Effect.gen(function* () {
    const url = yield* Config.option(Config.redacted("SMTP_URL"))
    const concurrency = yield* Config.integer("MAIL_CONCURRENCY").pipe(Config.withDefault(4))
    if (Option.isSome(url) && Redacted.value(url.value).trim() !== "") {
      return yield* smtpTransport(Redacted.value(url.value).trim(), { maxConnections: concurrency })
    }
    const dataDir = yield* Config.string("DATA_DIR").pipe(Config.withDefault(".data"))
    const directory = path.resolve(dataDir, "outbox")
    // Files on this machine only: refused while another machine's process writes them (decision 0702).
    yield* claimEmlOutbox(directory)
    return yield* emlTransport(directory)
  }).pipe(Effect.orDie)
).pipe(Layer.provide(NodeFileSystem.layer))
