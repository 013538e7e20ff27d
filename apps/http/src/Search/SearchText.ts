/**
 * Text folded for searching: lower-cased with accents and other combining marks removed (`Ångström` →
 * `angstrom`), compatibility forms unified (`ﬁ` → `fi`). Computed in TypeScript and stored beside the text, so
 * search is accent-insensitive on any PostgreSQL (PGlite has no `unaccent`).
 */
export const fold = (text: string): string =>
  text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    // Letters that do not decompose into a base letter and a mark.
    .replace(/ß/g, "ss")
    .replace(/æ/g, "ae")
    .replace(/œ/g, "oe")
    .replace(/ø/g, "o")
    .replace(/đ/g, "d")
    .replace(/ł/g, "l")
    .replace(/ı/g, "i")

/** The whitespace-separated terms of a search, folded; every term must match (as DRF's SearchFilter). */
export const terms = (search: string): ReadonlyArray<string> =>
  fold(search)
    .split(/\s+/)
    .filter((t) => t !== "")

/** The whitespace-separated terms of a search in lower case, accents kept (for what is compared ignoring case only). */
export const lowerCaseTerms = (search: string): ReadonlyArray<string> =>
  search
    .toLowerCase()
    .split(/\s+/)
    .filter((t) => t !== "")

/** A `LIKE` pattern matching `term` anywhere, with `%`, `_` and `\` taken literally. */
export const containsPattern = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const WORD = /[\p{L}\p{N}]+/gu

/**
 * The folded words of `texts`, space-separated: what a read-model row stores for full-text search (`search_text`,
 * decision 0661). Punctuation goes, so an address `Jane.Doe@Example.com` is found by `jane`, `doe` or `example`.
 */
export const searchDocument = (...texts: ReadonlyArray<string>): string =>
  texts.flatMap((text) => fold(text).match(WORD) ?? []).join(" ")

/** A prefix `tsquery` of the folded words of `q` (`Réfund Örder` → `refund:* & order:*`); undefined: no words. */
export const prefixTsQuery = (q: string): string | undefined => {
  const words = fold(q).match(WORD)
  return words === null ? undefined : words.map((w) => `${w}:*`).join(" & ")
}
