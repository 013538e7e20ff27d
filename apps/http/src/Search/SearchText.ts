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

/** A `LIKE` pattern matching `term` anywhere, with `%`, `_` and `\` taken literally. */
export const containsPattern = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
