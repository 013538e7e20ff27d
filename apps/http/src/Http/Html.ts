import { compile } from "html-to-text"
import sanitize from "sanitize-html"

/** Text made safe to place in HTML, in element content or in a quoted attribute. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/*
 * HTML from callers (`description_html`, `content_html`) is kept to an allow-list fit for support e-mails
 * (docs/decisions/0804-html-sanitising.md): structure and emphasis, links, images, tables; no scripts, styles,
 * frames, forms, SVG or MathML, no event handlers, no `style`/`class`/`id`, and URLs only in safe schemes.
 */

/** Tags kept; every other tag is dropped and its text kept (or dropped with it, for {@link DROPPED_WITH_TEXT}). */
export const ALLOWED_TAGS: ReadonlyArray<string> = [
  ...["p", "br", "div", "span", "hr", "blockquote", "pre", "code"],
  ...["b", "strong", "i", "em", "u", "s", "del", "ins", "sub", "sup", "small", "mark"],
  ...["h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "a", "img"],
  ...["table", "caption", "colgroup", "col", "thead", "tbody", "tfoot", "tr", "th", "td"]
]

/** Tags removed together with everything inside them (their text is code, styling or a form control's). */
const DROPPED_WITH_TEXT = [
  ...["script", "style", "title", "template", "noscript", "noembed", "noframes", "xmp"],
  ...["textarea", "option", "select", "iframe", "object", "svg", "math"]
]

/** Schemes a link may use. */
export const LINK_SCHEMES: ReadonlyArray<string> = ["http", "https", "mailto"]

/** Schemes an image may use (`cid:` names an inline part of the same e-mail). */
export const IMAGE_SCHEMES: ReadonlyArray<string> = ["http", "https", "cid"]

// Browsers ignore ASCII whitespace and controls inside a scheme (`jav&#x09;ascript:`), so the check does too.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const schemeOf = (url: string) => /^([a-z][a-z0-9+.-]*):/i.exec(url.replace(/[\u0000-\u0020\u007f]+/g, ""))?.[1]

/** Whether `url` is absolute in one of `schemes` (relative and protocol-relative URLs are not: e-mail has no base). */
const hasScheme = (url: string, schemes: ReadonlyArray<string>) => {
  const scheme = schemeOf(url)
  return scheme !== undefined && schemes.includes(scheme.toLowerCase())
}

const SANITIZE_OPTIONS: sanitize.IOptions = {
  allowedTags: [...ALLOWED_TAGS],
  allowedAttributes: {
    "*": ["dir", "lang"],
    a: ["href", "title", "rel", "target"],
    img: ["src", "alt", "title", "width", "height"],
    ol: ["start"],
    td: ["colspan", "rowspan"],
    th: ["colspan", "rowspan", "scope"],
    col: ["span"],
    colgroup: ["span"]
  },
  allowedSchemes: [...LINK_SCHEMES],
  allowedSchemesByTag: { img: [...IMAGE_SCHEMES] },
  allowedSchemesAppliedToAttributes: ["href", "src"],
  allowProtocolRelative: false,
  allowVulnerableTags: false,
  disallowedTagsMode: "discard",
  nonTextTags: DROPPED_WITH_TEXT,
  transformTags: {
    // Only absolute links in a safe scheme; each opens apart from the page showing it, which it cannot reach.
    a: (tagName, { href, title }) => {
      const safe = href !== undefined && hasScheme(href, LINK_SCHEMES)
      const attribs: sanitize.Attributes = safe ? { href } : {}
      if (title !== undefined) attribs.title = title
      return { tagName, attribs: safe ? { ...attribs, rel: "noopener noreferrer", target: "_blank" } : attribs }
    },
    img: (tagName, attribs) => {
      const { src, ...rest } = attribs
      return { tagName, attribs: src !== undefined && hasScheme(src, IMAGE_SCHEMES) ? { src, ...rest } : rest }
    }
  },
  // An image without a (safe) source shows nothing; a link without one is just its text.
  exclusiveFilter: (frame) =>
    frame.tag === "img"
      ? frame.attribs.src === undefined
      : frame.tag === "a" && frame.attribs.href === undefined
        ? "excludeTag"
        : false
}

/** How deep caller HTML may nest elements (e-mail with many quoted replies stays far below). */
export const MAX_HTML_DEPTH = 256

const VOID_TAGS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"])
// Elements the parser closes when a sibling opens, so a run of them does not nest.
const SELF_CLOSING_SIBLINGS = new Set(["p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "rp", "rt"])
const TAG_START = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/g

/**
 * An upper estimate of how deep `html` nests elements, in one linear pass over its tag starts. The parsers' cost
 * grows with the square of the depth (and html-to-text recurses per level), so deeper input is refused first.
 */
export const nestingDepth = (html: string): number => {
  const stack: Array<string> = []
  const open = new Map<string, number>()
  let deepest = 0
  for (const [, closing, rawName] of html.matchAll(TAG_START)) {
    const name = rawName!.toLowerCase()
    if (VOID_TAGS.has(name) || SELF_CLOSING_SIBLINGS.has(name)) continue
    if (closing === "") {
      stack.push(name)
      open.set(name, (open.get(name) ?? 0) + 1)
      deepest = Math.max(deepest, stack.length)
    } else if ((open.get(name) ?? 0) > 0) {
      // A closing tag closes everything opened after its element; one for no open element is ignored.
      let popped: string | undefined
      do {
        popped = stack.pop()!
        open.set(popped, open.get(popped)! - 1)
      } while (popped !== name)
    }
  }
  return deepest
}

/** The refusal of HTML nesting deeper than {@link MAX_HTML_DEPTH}. */
export const HTML_TOO_DEEP = `HTML nesting elements more than ${MAX_HTML_DEPTH} deep is not accepted.`

/** Whether `html` nests deeper than {@link MAX_HTML_DEPTH}: callers refuse it before sanitising. */
export const htmlTooDeep = (html: string): boolean => nestingDepth(html) > MAX_HTML_DEPTH

/**
 * Caller-supplied HTML reduced to the allow-list: safe to store, return and e-mail. Idempotent, so HTML that was
 * sanitised when written can be sanitised again on its way out. HTML nesting deeper than {@link MAX_HTML_DEPTH}
 * (which writes refuse) becomes its escaped text.
 */
export const sanitizeHtml = (html: string): string =>
  html === ""
    ? ""
    : htmlTooDeep(html)
      ? escapeHtml(htmlToText(html)).replace(/\n/g, "<br />")
      : sanitize(html, SANITIZE_OPTIONS)

const toText = compile({
  // Stored as the plain `content`/`description` and sent as the text part: lines are not wrapped.
  wordwrap: false,
  // Deeper text is left out rather than overflowing the stack (writes refuse such HTML before).
  limits: { maxDepth: MAX_HTML_DEPTH * 2 },
  selectors: [
    { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
    { selector: "img", format: "skip" },
    ...(["h1", "h2", "h3", "h4", "h5", "h6"] as const).map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: "table", options: { uppercaseHeaderCells: false } }
  ]
})

/**
 * The plain text of HTML, for the plain `description`/`content` when only HTML is given: entities decoded, the
 * content of `<script>`/`<style>` dropped, links as `text [url]`, paragraphs apart by a blank line, not wrapped.
 */
export const htmlToText = (html: string): string =>
  html === ""
    ? ""
    : toText(html)
        .replace(/\n{3,}/g, "\n\n")
        .trim()
