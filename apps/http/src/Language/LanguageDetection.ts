import { franc } from "franc"
import { iso6393To1 } from "iso-639-3"

/**
 * Fewest characters (after collapsing whitespace) a text must have before its language is guessed. Trigram
 * identification of shorter texts ("Hi", "Thanks!", an order number) is mostly noise, and a wrong language is
 * worse than none (docs/decisions/0652-language-detection.md).
 */
export const MIN_DETECTION_LENGTH = 20

const HTML_TAG = /<[^>]*>/g
const URL_OR_EMAIL = /\b(?:https?:\/\/\S+|\S+@\S+\.\S+)/g

/** The text franc should read: markup, links and e-mail addresses removed, whitespace collapsed. */
export const detectableText = (text: string): string =>
  text.replace(HTML_TAG, " ").replace(URL_OR_EMAIL, " ").replace(/\s+/g, " ").trim()

/**
 * The languages detection chooses among (ISO 639-3): the languages support teams commonly work in. franc knows
 * 187 languages; letting it pick among all of them turns short English or Spanish messages into Galician, Scots
 * or Tagalog guesses far more often than it finds a rare language correctly.
 */
export const DETECTABLE_LANGUAGES: ReadonlyArray<string> = [
  "eng",
  "fra",
  "deu",
  "spa",
  "por",
  "ita",
  "nld",
  "swe",
  "dan",
  "nob",
  "fin",
  "isl",
  "pol",
  "ces",
  "slk",
  "hun",
  "ron",
  "bul",
  "hrv",
  "srp",
  "slv",
  "ell",
  "tur",
  "rus",
  "ukr",
  "bel",
  "arb",
  "heb",
  "pes",
  "hin",
  "ben",
  "urd",
  "jpn",
  "cmn",
  "kor",
  "vie",
  "tha",
  "ind",
  "zlm",
  "tgl",
  "cat",
  "lit",
  "swh",
  "afr"
]

/**
 * franc answers some individual languages whose macrolanguage holds the two-letter code (Standard Arabic is
 * `arb`, ISO 639-1 `ar` belongs to the macrolanguage `ara`).
 */
const MACROLANGUAGE: Readonly<Record<string, string>> = { arb: "ar", pes: "fa", cmn: "zh", zlm: "ms", swh: "sw" }

/**
 * The ISO 639-1 code (`en`, `de`, …) of the language `text` is written in, or `""` when it cannot be told:
 * too short, undetermined (`und`), or a language without a two-letter code.
 */
export const detectLanguage = (text: string): string => {
  const cleaned = detectableText(text)
  if ([...cleaned].length < MIN_DETECTION_LENGTH) return ""
  const code = franc(cleaned, { minLength: MIN_DETECTION_LENGTH, only: [...DETECTABLE_LANGUAGES] })
  if (code === "und") return ""
  return MACROLANGUAGE[code] ?? (iso6393To1 as Record<string, string | undefined>)[code] ?? ""
}
