/**
 * Content types that uploads may never carry: a browser opening the download would render them as a page
 * of our origin (stored XSS).
 */
export const isRefusedContentType = (contentType: string): boolean => {
  const essence = contentType.split(";")[0]!.trim().toLowerCase()
  return essence.startsWith("text/html") || essence === "image/svg+xml"
}

// Tags whose appearance at the start of a file makes browsers sniff it as HTML (WHATWG MIME Sniffing §7.1).
const HTML_TAGS = [
  "!doctype html",
  "html",
  "head",
  "script",
  "iframe",
  "h1",
  "div",
  "font",
  "table",
  "a",
  "style",
  "title",
  "b",
  "body",
  "br",
  "p",
  "!--"
]

const isWhitespace = (byte: number) => byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20

/** How many leading bytes {@link sniffMarkup} needs to decide. */
export const SNIFF_LENGTH = 1024

/**
 * Whether the first bytes of a file are HTML or SVG, whatever its declared type: HTML by the WHATWG sniffing
 * patterns (a known tag after optional whitespace and BOM), SVG by an `<svg` root (after an optional XML
 * declaration, comments or doctype).
 */
export const sniffMarkup = (head: Uint8Array): "html" | "svg" | null => {
  let start = 0
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) start = 3
  while (start < head.length && isWhitespace(head[start]!)) start++
  if (head[start] !== 0x3c /* < */) return null
  const text = new TextDecoder("latin1").decode(head.subarray(start, start + SNIFF_LENGTH)).toLowerCase()
  for (const tag of HTML_TAGS) {
    if (!text.startsWith(`<${tag}`)) continue
    const after = text.charCodeAt(tag.length + 1)
    // The tag must end there: a space or `>` (comments need nothing after `<!--`).
    if (tag === "!--" || after === 0x20 || after === 0x3e || Number.isNaN(after) || isWhitespace(after)) return "html"
  }
  return /^(?:<\?xml[^>]*>|<!--[\s\S]*?-->|<!doctype[^>]*>|\s)*<svg[\s>/]/.test(text) ? "svg" : null
}
