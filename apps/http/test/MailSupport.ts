import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import { SMTPServer, type SMTPServerSession } from "smtp-server"
import { BlobStoreLive } from "../src/Attachments/BlobStore.js"
import {
  defaultMailOutboxOptions,
  MailOutbox,
  type MailOutboxOptions,
  mailOutboxLayer
} from "../src/Mail/MailOutbox.js"
import { type MailSendFailed, MailTransport, type SendReceipt, smtpTransport } from "../src/Mail/MailTransport.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import { uniqueEmail } from "./support/Fixtures.js"
import { listenOnFreePort } from "./support/SmtpListener.js"
import { organizationWithTicket } from "./TicketsSupport.js"

/** Helpers of the mail tests: a real SMTP server in the test process, a header reader, the worker. */

/** A message the test SMTP server accepted. */
export interface Received {
  readonly envelope: { readonly from: string; readonly to: ReadonlyArray<string> }
  readonly raw: string
  /** Header values by lower-case name, unfolded. */
  readonly headers: ReadonlyMap<string, ReadonlyArray<string>>
  readonly body: string
}

/** The first value of a header, or undefined. */
export const header = (message: Received, name: string) => message.headers.get(name.toLowerCase())?.[0]

/** Splits a raw RFC 5322 message into unfolded headers and body (mailparser is not available here). */
export const parseMessage = (raw: string): Pick<Received, "headers" | "body"> => {
  const split = raw.indexOf("\r\n\r\n")
  const head = split === -1 ? raw : raw.slice(0, split)
  const body = split === -1 ? "" : raw.slice(split + 4)
  const headers = new Map<string, Array<string>>()
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":")
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()])
  }
  return { headers, body }
}

/** What the test server answers to a recipient or a message: accept, refuse with a reply, or cut the connection. */
export type Verdict = "accept" | "drop" | { readonly code: number; readonly message: string }

export interface SmtpBehaviour {
  /** Per recipient (`RCPT TO`). */
  readonly onRcptTo?: (address: string) => Verdict
  /** Per message, after its first chunk arrives: "drop" destroys the socket in the middle of `DATA`. */
  readonly onData?: (attempt: number) => Verdict
  /** How long the server takes to answer a complete message (a slow relay); default at once. */
  readonly answerAfter?: Duration.DurationInput
}

const smtpError = (verdict: { readonly code: number; readonly message: string }) =>
  Object.assign(new Error(verdict.message), { responseCode: verdict.code })

/**
 * A real SMTP server (smtp-server) on a free port of 127.0.0.1, collecting what it accepts; closed with the scope.
 * `url` is for nodemailer.
 */
export const testSmtpServer = (behaviour: SmtpBehaviour = {}) =>
  Effect.gen(function* () {
    const received: Array<Received> = []
    let dataAttempts = 0
    const server: SMTPServer = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      disableReverseLookup: true,
      logger: false,
      onRcptTo: (address, _session, callback) => {
        const verdict = behaviour.onRcptTo?.(address.address) ?? "accept"
        if (verdict === "accept") return callback()
        if (verdict === "drop") return dropConnection(server, _session)
        return callback(smtpError(verdict))
      },
      onData: (stream, session, callback) => {
        dataAttempts += 1
        const verdict = behaviour.onData?.(dataAttempts) ?? "accept"
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => {
          if (verdict === "drop" && chunks.length === 0) dropConnection(server, session)
          chunks.push(chunk)
        })
        stream.on("end", () => {
          if (verdict === "drop") return
          if (behaviour.answerAfter !== undefined)
            return void setTimeout(answer, Duration.toMillis(behaviour.answerAfter))
          answer()
        })
        const answer = () => {
          if (typeof verdict === "object") return callback(smtpError(verdict))
          const raw = Buffer.concat(chunks).toString("utf8")
          received.push({
            envelope: {
              from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
              to: session.envelope.rcptTo.map((r) => r.address)
            },
            raw,
            ...parseMessage(raw)
          })
          callback()
        }
      }
    })
    const port = yield* listenOnFreePort(server)
    return {
      url: `smtp://127.0.0.1:${port}`,
      received,
      /** The messages whose `Message-ID` is this one. */
      withMessageId: (messageId: string) => received.filter((m) => header(m, "message-id") === messageId),
      /** The messages sent to this address (envelope). */
      to: (address: string) => received.filter((m) => m.envelope.to.includes(address))
    }
  })

/** Cuts the connection of a session (smtp-server keeps its sockets on the connection objects). */
const dropConnection = (server: SMTPServer, session: SMTPServerSession) => {
  for (const connection of server.connections) {
    const c = connection as unknown as { id: string; _socket: { destroy: () => void } }
    if (c.id === session.id) c._socket.destroy()
  }
}

/** A new organization's ticket to a new customer (`label-…@example.com`): its create-email is queued. */
export const ticketToNewCustomer = (label: string) =>
  Effect.gen(function* () {
    const { org, t } = yield* organizationWithTicket({ customer_email: uniqueEmail(label) })
    return { org, t }
  })

/** A {@link testSmtpServer} behaving as told, and a {@link ticketToNewCustomer}. */
export const smtpAndTicket = (label: string, behaviour?: SmtpBehaviour) =>
  Effect.gen(function* () {
    const smtp = yield* testSmtpServer(behaviour)
    const { org, t } = yield* ticketToNewCustomer(label)
    return { org, smtp, t }
  })

/** Worker options for tests: one round handles everything in view; no background loop runs. */
export const testOptions = (overrides: Partial<MailOutboxOptions> = {}): MailOutboxOptions => ({
  ...defaultMailOutboxOptions,
  batchSize: 50,
  ...overrides
})

/**
 * The {@link MailOutbox} over a transport, on the test's database (`SqlClient`) and the app's directory services,
 * built per use so each test picks its own transport and options.
 */
export const outboxWith = (transport: Layer.Layer<MailTransport>, options: MailOutboxOptions = testOptions()) =>
  mailOutboxLayer(options).pipe(
    Layer.provide(transport),
    Layer.provide(BlobStoreLive),
    Layer.provide(TicketServicesLive)
  )

/** `real` as a transport layer whose every send, once it went out, is followed by `after(receipt)` in its place. */
export const afterEachSend = <E, R>(
  real: Effect.Effect<MailTransport["Type"], E, R>,
  after: (receipt: SendReceipt) => Effect.Effect<SendReceipt, MailSendFailed>
) =>
  Layer.scoped(
    MailTransport,
    Effect.map(real, (transport) =>
      MailTransport.of({ ...transport, send: (mail) => Effect.flatMap(transport.send(mail), after) })
    )
  )

/**
 * `real` whose first send crashes (a defect) after the mail went out, as a worker dying before its commit; `sends()`
 * counts the sends that went out.
 */
export const crashingAfterFirstSend = <E, R>(real: Effect.Effect<MailTransport["Type"], E, R>, message: string) => {
  let sends = 0
  const layer = afterEachSend(real, (receipt) =>
    Effect.suspend(() => {
      sends += 1
      return sends === 1 ? Effect.die(new Error(message)) : Effect.succeed(receipt)
    })
  )
  return { layer, sends: () => sends }
}

/** An SMTP transport layer to `url`. */
export const smtpLayer = (url: string) => Layer.scoped(MailTransport, smtpTransport(url))

/** Runs `f` with a {@link MailOutbox} over SMTP to `url`. */
export const withOutbox = <A, E, R>(
  transport: Layer.Layer<MailTransport>,
  f: (outbox: MailOutbox["Type"]) => Effect.Effect<A, E, R>,
  options?: MailOutboxOptions
) => Effect.scoped(Effect.flatMap(MailOutbox, f).pipe(Effect.provide(outboxWith(transport, options))))

/** The outbox rows of a ticket with the worker's columns. */
export const outboxRows = (ticketId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      id: string
      kind: string
      status: string
      attempts: number
      rfcMessageId: string | null
      outcome: string | null
      failureReason: string
      lastError: string
      readAt: Date | null
    }>`SELECT id, kind, status, attempts, rfc_message_id, outcome, failure_reason, last_error, read_at
       FROM hd_outbox WHERE ticket_id = ${ticketId} ORDER BY id`
  ).pipe(Effect.orDie)

/** A moment well after any lease or retry delay the tests use. */
export const later = (hours = 3) => new Date(Date.now() + hours * 3_600_000)
