import * as net from "node:net"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import nodemailer from "nodemailer"
import type Mail from "nodemailer/lib/mailer"
import { InboundMailLive } from "../src/InboundMail/InboundMail.js"
import { InboundRouting } from "../src/InboundMail/InboundRouting.js"
import { startSmtpListener } from "../src/InboundMail/SmtpListener.js"
import { ServicesLive } from "../src/Services.js"
import { TicketServicesLive } from "../src/Tickets/TicketServices.js"
import { TestApp, type TestResponse } from "./support/TestApp.js"
import type { TicketOrg } from "./TicketsSupport.js"

/** Helpers of the inbound mail tests: the SMTP listener on a free port, real clients for both ways in. */

/** The port of the inbound SMTP listener under test. */
export class InboundSmtp extends Context.Tag("test/InboundSmtp")<InboundSmtp, { readonly port: number }>() {}

/** The listener on a free port of 127.0.0.1, over the test app's database and services. */
export const InboundSmtpLive = Layer.scoped(
  InboundSmtp,
  Effect.map(startSmtpListener({ port: 0, host: "127.0.0.1" }), (port) => ({ port }))
).pipe(
  Layer.provide(Layer.mergeAll(InboundMailLive, InboundRouting.Default)),
  Layer.provide(TicketServicesLive),
  Layer.provide(ServicesLive)
)

/** The organization's part of inbox addresses (as `INBOX_EMAIL_DOMAIN` is left at its default). */
export const addressOf = (org: TicketOrg, prefix: string) =>
  `${prefix}@${org.organization.public_id.toLowerCase().replace(/_/g, "-")}.helpdesk.localhost`

/** A whole message as a mail client would write it (nodemailer's composer, CRLF line ends). */
export const compose = (mail: Mail.Options) =>
  Effect.promise(async () => {
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" })
    const info = await transport.sendMail(mail)
    return info.message as Buffer
  })

/** What an SMTP client was told: accepted, or the server's reply code and text. */
export type SmtpAnswer =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly code: number; readonly text: string }

/** Sends a raw message over SMTP to the listener with nodemailer, envelope as given. */
export const sendSmtp = (
  envelope: { readonly from: string; readonly to: ReadonlyArray<string> },
  raw: Buffer | string
) =>
  Effect.flatMap(InboundSmtp, ({ port }) =>
    Effect.promise(async (): Promise<SmtpAnswer> => {
      const transport = nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true })
      try {
        await transport.sendMail({ envelope: { from: envelope.from, to: [...envelope.to] }, raw })
        return { accepted: true }
      } catch (error) {
        const e = error as { responseCode?: number; response?: string; message: string }
        return { accepted: false, code: e.responseCode ?? 0, text: e.response ?? e.message }
      } finally {
        transport.close()
      }
    })
  )

/** Posts a raw message to `POST /inbound/email/` (with the organization's integration token unless told). */
export const postMail = (
  org: TicketOrg,
  raw: Buffer | string,
  options: { readonly token?: string; readonly contentType?: string } = {}
) =>
  Effect.flatMap(TestApp, ({ baseUrl }) =>
    Effect.promise(async (): Promise<TestResponse> => {
      const response = await fetch(new URL("/inbound/email/", baseUrl), {
        method: "POST",
        headers: {
          "x-service-token": options.token ?? org.integration,
          "content-type": options.contentType ?? "message/rfc822"
        },
        body: typeof raw === "string" ? raw : new Blob([new Uint8Array(raw)])
      })
      const text = await response.text()
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      return { status: response.status, headers: response.headers, text, body }
    })
  )

/** The record of an inbound mail by its Message-ID. */
export const inboundRecord = (org: TicketOrg, messageId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{
        outcome: string
        reason: string
        ticketId: string | null
        messageId: string | null
        rawKey: string | null
      }>`
      SELECT outcome, reason, ticket_id, message_id, raw_key FROM hd_inbound_mail
      WHERE organization_id = ${org.organization.id} AND rfc_message_id = ${messageId}`
  ).pipe(
    Effect.map((rows) => rows[0]),
    Effect.orDie
  )

/** One SMTP conversation by hand, to see what the listener announces: the replies to each line. */
export const smtpDialogue = (port: number, lines: ReadonlyArray<string>) =>
  Effect.promise(
    () =>
      new Promise<Array<string>>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1")
        const replies: Array<string> = []
        let buffer = ""
        let next = 0
        socket.setEncoding("utf8")
        socket.on("error", reject)
        socket.on("data", (chunk: string) => {
          buffer += chunk
          // A reply ends with a line whose code is followed by a space.
          while (/^\d{3} .*\r\n/m.test(buffer)) {
            const end = buffer.search(/^\d{3} .*\r\n/m)
            const lineEnd = buffer.indexOf("\r\n", end) + 2
            replies.push(buffer.slice(0, lineEnd))
            buffer = buffer.slice(lineEnd)
            if (next < lines.length) socket.write(`${lines[next++]}\r\n`)
            else {
              socket.end()
              resolve(replies)
            }
          }
        })
      })
  )

/** What a delivery status notification reports: its own headers, the recipient's status, the returned headers. */
export interface DeliveryReport {
  readonly to: string
  readonly messageId: string
  readonly date?: Date
  readonly boundary: string
  readonly recipient: string
  readonly action: string
  readonly status: string
  /** The `Diagnostic-Code` field, folded over as many lines as given. */
  readonly diagnostic: ReadonlyArray<string>
  readonly returnedHeaders: ReadonlyArray<string>
}

/** A delivery status notification (RFC 3464) as an MTA writes it, CRLF line ends. */
export const deliveryStatusNotification = (report: DeliveryReport) =>
  [
    `From: Mail Delivery System <MAILER-DAEMON@mx.example.net>`,
    `To: ${report.to}`,
    `Subject: Undelivered Mail Returned to Sender`,
    `Message-ID: ${report.messageId}`,
    ...(report.date === undefined ? [] : [`Date: ${report.date.toUTCString()}`]),
    `Auto-Submitted: auto-replied`,
    `MIME-Version: 1.0`,
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${report.boundary}"`,
    ``,
    `--${report.boundary}`,
    `Content-Type: text/plain; charset=us-ascii`,
    ``,
    `Your message could not be delivered.`,
    ``,
    `--${report.boundary}`,
    `Content-Type: message/delivery-status`,
    ``,
    `Reporting-MTA: dns; mx.example.net`,
    ``,
    `Final-Recipient: rfc822; ${report.recipient}`,
    `Action: ${report.action}`,
    `Status: ${report.status}`,
    ...report.diagnostic,
    ``,
    `--${report.boundary}`,
    `Content-Type: text/rfc822-headers`,
    ``,
    ...report.returnedHeaders,
    ``,
    `--${report.boundary}--`,
    ``
  ].join("\r\n")
