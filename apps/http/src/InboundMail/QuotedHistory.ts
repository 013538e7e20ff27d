/**
 * Lines that open the quoted history of a reply in the common mail clients: "On … wrote:" (Gmail, Apple Mail,
 * Thunderbird; also split over two lines), Outlook's "-----Original Message-----" and its "From: … Sent: …"
 * block, and the localised "Le … a écrit :" / "Am … schrieb …:" forms.
 */
const OPENERS: ReadonlyArray<RegExp> = [
  /^-{2,}\s*Original Message\s*-{2,}\s*$/i,
  /^-{2,}\s*Forwarded message\s*-{2,}\s*$/i,
  /^_{10,}\s*$/,
  /^On\b.{0,300}\bwrote:\s*$/i,
  /^Le\b.{0,300}\ba écrit\s*:\s*$/i,
  /^Am\b.{0,300}\bschrieb\b.{0,200}:\s*$/i,
  /^El\b.{0,300}\bescribió:\s*$/i
]

const OUTLOOK_HEADER = /^\*?(From|De|Von|Van):\*?\s.+$/i
const OUTLOOK_NEXT = /^\*?(Sent|Date|Envoyé|Gesendet|Verzonden|To|Subject|Objet|Betreff):\*?\s/i

const isQuote = (line: string) => /^\s*>/.test(line)

/**
 * The reply without the history quoted below it: everything from the first line that opens a quote (see
 * {@link OPENERS}, or an Outlook header block), else the trailing block of `>` lines with the attribution line
 * just above it. Quotes interleaved with the answer (inline replies) are kept, since the answer is between them. The
 * whole text is kept when cutting would leave nothing.
 */
export const withoutQuotedHistory = (text: string): string => {
  const lines = text.replace(/\r\n?/g, "\n").split("\n")
  let cut = lines.length
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    const joined = i + 1 < lines.length ? `${line} ${lines[i + 1]!.trim()}` : line
    if (OPENERS.some((opener) => opener.test(line))) {
      cut = i
      break
    }
    // "On Tue, 3 Mar 2026 at 10:00, Jane <jane@…>\nwrote:" folded by the client.
    if (/^On\b/i.test(line) && /\bwrote:\s*$/i.test(joined) && !/\bwrote:\s*$/i.test(line)) {
      cut = i
      break
    }
    if (OUTLOOK_HEADER.test(line) && i + 1 < lines.length && OUTLOOK_NEXT.test(lines[i + 1]!.trim())) {
      cut = i
      break
    }
  }
  if (cut === lines.length) {
    // A trailing block of quoted lines (blank lines allowed inside), and its attribution line.
    let end = lines.length
    while (end > 0 && lines[end - 1]!.trim() === "") end--
    let start = end
    while (start > 0 && (isQuote(lines[start - 1]!) || lines[start - 1]!.trim() === "")) start--
    while (start < end && lines[start]!.trim() === "") start++
    if (start < end && isQuote(lines[start]!)) {
      cut = start
      if (cut > 0 && /:\s*$/.test(lines[cut - 1]!.trim())) cut--
    }
  }
  const reply = lines.slice(0, cut).join("\n").trim()
  return reply === "" ? text.trim() : reply
}
