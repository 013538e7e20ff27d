import { describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { mailSubject, threadRootId, withPixel } from "../src/Mail/MailComposer.js"
import { defaultMailOutboxOptions, retryDelay } from "../src/Mail/MailOutbox.js"
import { classifySmtpError, emlFileName } from "../src/Mail/MailTransport.js"

describe("mail primitives", () => {
  it("subjects: prefix, subject, public id; Re: for replies; one line whatever the input", () => {
    expect(mailSubject("ticket_created", "[Acme]", "Parcel missing", "12")).toBe("[Acme] Parcel missing [#12]")
    expect(mailSubject("ticket_created", "", "Parcel missing", "12")).toBe("Parcel missing [#12]")
    expect(mailSubject("message", "", "Parcel missing", "12")).toBe("Re: Parcel missing [#12]")
    expect(mailSubject("csat_survey", " ", "  ", "a7")).toBe("(no subject) [#a7]")
    expect(mailSubject("ticket_created", "", "Hi\r\nBcc: evil@example.com", "1")).toBe("Hi Bcc: evil@example.com [#1]")
  })

  it("the pixel goes at the end of <body>, or after the text made HTML", () => {
    expect(withPixel("<html><body><p>Hi</p></body></html>", "Hi", "https://x/p/")).toBe(
      '<html><body><p>Hi</p><img src="https://x/p/" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0"></body></html>'
    )
    expect(withPixel("", "a < b\nc", "https://x/p/")).toMatch(
      /^<div style="white-space:pre-wrap">a &lt; b\nc<\/div><img src="https:\/\/x\/p\/"/
    )
  })

  it("thread roots and .eml names", () => {
    expect(threadRootId(42, "Acme_Support-x7k2p9ab", "helpdesk.localhost")).toBe(
      "<ticket-42@acme-support-x7k2p9ab.helpdesk.localhost>"
    )
    expect(emlFileName("<ticket-42.7@acme.helpdesk.localhost>")).toBe("ticket-42.7@acme.helpdesk.localhost.eml")
    expect(emlFileName("<../../etc/passwd>")).toBe(".._.._etc_passwd.eml")
  })

  it("SMTP errors: 5xx permanent (not 503), 4xx and connection errors transient, auth transient", () => {
    const reply = (responseCode: number, code = "EENVELOPE") => ({ code, responseCode, response: `${responseCode} x` })
    expect(classifySmtpError(reply(550)).permanent).toBe(true)
    expect(classifySmtpError(reply(552, "EMESSAGE")).permanent).toBe(true)
    expect(classifySmtpError(reply(503)).permanent).toBe(false)
    expect(classifySmtpError(reply(451)).permanent).toBe(false)
    expect(classifySmtpError(reply(535, "EAUTH")).permanent).toBe(false)
    expect(classifySmtpError({ code: "ECONNECTION", message: "Connection closed" }).permanent).toBe(false)
    expect(classifySmtpError({ code: "ETIMEDOUT", message: "Timeout" }).permanent).toBe(false)
    expect(classifySmtpError({ code: "EENVELOPE", message: "No recipients defined" }).permanent).toBe(true)
    expect(classifySmtpError(new Error("boom")).permanent).toBe(false)
    expect(classifySmtpError(reply(550)).reason).toBe("550 x")
  })

  it("retry delays double from the base, are capped, and jitter between half and all of it", () => {
    const options = { ...defaultMailOutboxOptions, retryBase: Duration.seconds(30), retryCap: Duration.hours(1) }
    const ms = (attempt: number, random: number) => Duration.toMillis(retryDelay(options, attempt, random))
    expect(ms(1, 1)).toBe(30_000)
    expect(ms(1, 0)).toBe(15_000)
    expect(ms(2, 1)).toBe(60_000)
    expect(ms(5, 1)).toBe(480_000)
    expect(ms(20, 1)).toBe(3_600_000)
    expect(ms(20, 0)).toBe(1_800_000)
  })
})
