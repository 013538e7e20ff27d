import { addFieldError, type FieldErrors, ValidationError } from "./Errors.js"
import { untrustedRecord } from "./UntrustedKeys.js"

/**
 * Text from the wire is refused at the boundary when PostgreSQL could not store it or would store something else:
 * U+0000 (refused in `text` and `jsonb`), lone UTF-16 surrogates (not Unicode; `\ud800` in JSON), and bytes that
 * are not UTF-8 (which a lenient decoder would silently turn into U+FFFD). Bodies (`RequestBody`) and query
 * strings (`Query`) check every key and value here once, so no endpoint meets such text.
 * (`docs/decisions/0801-text-refused-at-the-boundary.md`)
 */

/** The message for a string holding U+0000 (Django REST Framework's own). */
export const NUL_MESSAGE = "Null characters are not allowed."

/** The message for a string holding a lone UTF-16 surrogate. */
export const SURROGATE_MESSAGE = "Text must be valid Unicode (lone surrogate)."

/** The message for a field whose bytes are not UTF-8. */
export const UTF8_MESSAGE = "Text must be valid UTF-8."

/** The `detail` of a body that is not UTF-8 where no single field can be named. */
export const BODY_NOT_UTF8 = "Request body is not valid UTF-8."

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** What is wrong with a string from the wire, or undefined when it may be stored. */
export const textProblem = (text: string): string | undefined =>
  text.includes("\u0000") ? NUL_MESSAGE : LONE_SURROGATE.test(text) ? SURROGATE_MESSAGE : undefined

const strictDecoder = new TextDecoder("utf-8", { fatal: true })
const lenientDecoder = new TextDecoder("utf-8")

/** The bytes as UTF-8 text, or undefined when they are not UTF-8. (A leading byte order mark is dropped.) */
export const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return strictDecoder.decode(bytes)
  } catch {
    return undefined
  }
}

/** The bytes as UTF-8 text, invalid sequences as U+FFFD: only to name something in an error message. */
export const decodeUtf8Lenient = (bytes: Uint8Array): string => lenientDecoder.decode(bytes)

const hexValue = (byte: number) =>
  byte >= 0x30 && byte <= 0x39
    ? byte - 0x30
    : (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66
      ? (byte | 0x20) - 0x57
      : -1

/**
 * One name or value of `application/x-www-form-urlencoded` bytes (a query string, a form body) as the WHATWG
 * parser reads it (`+` is a space, `%XX` a byte, a `%` without two hex digits itself), but strict: undefined when
 * the bytes it spells are not UTF-8 (`%FF`), where `URLSearchParams` would answer U+FFFD.
 */
export const decodeFormComponent = (bytes: Uint8Array): string | undefined => {
  const out = new Uint8Array(bytes.length)
  let length = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!
    if (byte === 0x2b) out[length++] = 0x20
    else if (byte === 0x25 && i + 2 < bytes.length && hexValue(bytes[i + 1]!) >= 0 && hexValue(bytes[i + 2]!) >= 0) {
      out[length++] = hexValue(bytes[i + 1]!) * 16 + hexValue(bytes[i + 2]!)
      i += 2
    } else out[length++] = byte
  }
  return decodeUtf8(out.subarray(0, length))
}

/** One pair of form-encoded bytes; `undefined` marks the part that is not UTF-8. */
export interface FormPair {
  readonly name: string | undefined
  readonly value: string | undefined
  /** The name for error messages even when it is not UTF-8 (invalid sequences as U+FFFD). */
  readonly displayName: string
}

/** The pairs of form-encoded bytes (`a=1&b=2`), in order, empty pieces skipped as the WHATWG parser does. */
export const formPairs = (bytes: Uint8Array): ReadonlyArray<FormPair> => {
  const pairs: Array<FormPair> = []
  let start = 0
  for (let end = 0; end <= bytes.length; end++) {
    if (end < bytes.length && bytes[end] !== 0x26) continue
    const piece = bytes.subarray(start, end)
    start = end + 1
    if (piece.length === 0) continue
    const equals = piece.indexOf(0x3d)
    const rawName = equals < 0 ? piece : piece.subarray(0, equals)
    const rawValue = equals < 0 ? new Uint8Array(0) : piece.subarray(equals + 1)
    const name = decodeFormComponent(rawName)
    pairs.push({
      name,
      value: decodeFormComponent(rawValue),
      displayName: name ?? decodeUtf8Lenient(rawName).replaceAll("+", " ")
    })
  }
  return pairs
}

/** A refused string: where it is (a field path) and why. */
export interface TextIssue {
  readonly path: ReadonlyArray<string>
  readonly message: string
}

/** At most this many text issues are reported for one request (a body may hold thousands). */
export const MAX_TEXT_ISSUES = 50

/** A place in a JSON value: its key and its parent's place (paths are spelled out only for an issue). */
interface Place {
  readonly key: string
  readonly parent: Place | undefined
}

const pathOf = (place: Place | undefined): ReadonlyArray<string> => {
  const path: Array<string> = []
  for (let at = place; at !== undefined; at = at.parent) path.push(at.key)
  return path.reverse()
}

/**
 * Every key and string of a parsed JSON value that may not be stored, with its path (array items by index).
 * Iterative, so a deeply nested body cannot exhaust the stack. `problem` decides what is wrong with a string.
 */
export const jsonTextIssues = (
  value: unknown,
  problem: (text: string) => string | undefined = textProblem
): ReadonlyArray<TextIssue> => {
  const issues: Array<TextIssue> = []
  const stack: Array<{ readonly value: unknown; readonly place: Place | undefined }> = [{ value, place: undefined }]
  while (stack.length > 0 && issues.length < MAX_TEXT_ISSUES) {
    const { value: current, place } = stack.pop()!
    if (typeof current === "string") {
      const message = problem(current)
      if (message !== undefined) issues.push({ path: pathOf(place), message })
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--)
        stack.push({ value: current[i], place: { key: String(i), parent: place } })
    } else if (current !== null && typeof current === "object") {
      const keys = Object.keys(current)
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        const child: Place = { key, parent: place }
        const message = problem(key)
        if (message !== undefined) issues.push({ path: pathOf(child), message })
        else stack.push({ value: (current as Record<string, unknown>)[key], place: child })
      }
    }
  }
  return issues.slice(0, MAX_TEXT_ISSUES)
}

/** The issues of form-encoded pairs: names and values that are not UTF-8, hold U+0000 or a lone surrogate. */
export const formPairIssues = (pairs: ReadonlyArray<FormPair>): ReadonlyArray<TextIssue> => {
  const issues: Array<TextIssue> = []
  for (const pair of pairs) {
    const path = [pair.displayName]
    if (pair.name === undefined || pair.value === undefined) issues.push({ path, message: UTF8_MESSAGE })
    else {
      const message = textProblem(pair.name) ?? textProblem(pair.value)
      if (message !== undefined) issues.push({ path, message })
    }
    if (issues.length >= MAX_TEXT_ISSUES) break
  }
  return issues
}

/** A 400 naming each refused field, nested paths as nested objects. */
export const textIssuesError = (issues: ReadonlyArray<TextIssue>): ValidationError => {
  const tree = untrustedRecord<unknown>()
  for (const issue of issues) addFieldError(tree, issue.path, [issue.message])
  return new ValidationError({ errors: tree as FieldErrors })
}
