/**
 * Slugs of collections and articles: unique per organization (collections and articles apart), lowercase,
 * letters, digits, `-` and `_`. An empty slug is generated from the name or title (accents folded, other
 * characters turned into `-`), with `-2`, `-3`, … appended while taken. See docs/decisions/0602-help-center-portal-and-slugs.md.
 */

/** Longest slug, in characters. */
export const MAX_SLUG_LENGTH = 100

/** What an explicit slug may contain (it is lower-cased first). */
export const SLUG_PATTERN = /^[a-z0-9_-]+$/

/** The slug of a text: accents folded, lower-case, runs of other characters as one `-`, trimmed; may be empty. */
export const slugify = (text: string): string =>
  text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/g, "")

/**
 * The first free slug among `base`, `base-2`, `base-3`, … given the taken ones; `fallback` when the base is
 * empty. The base is shortened so that the suffix still fits in {@link MAX_SLUG_LENGTH}.
 */
export const uniqueSlug = (base: string, taken: ReadonlySet<string>, fallback: string): string => {
  const root = base === "" ? fallback : base
  if (!taken.has(root)) return root
  for (let n = 2; ; n++) {
    const suffix = `-${n}`
    const candidate = `${root.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/g, "")}${suffix}`
    if (!taken.has(candidate)) return candidate
  }
}
