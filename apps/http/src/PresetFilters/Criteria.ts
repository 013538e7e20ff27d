import {
  Classification,
  type PresetFilterCriteria as DomainCriteria,
  Priority,
  TicketStatus,
  WaitingOn
} from "@helpdesk/domain"
import { ParseResult, Schema } from "effect"
import * as Fields from "../Http/Fields.js"
import { jsonTextIssues } from "../Http/UntrustedText.js"

/**
 * The `criteria` of a custom preset filter, as the API accepts and shows it.
 *
 * Validation is strict, because a typo in a saved filter silently matches everything: unknown criterion names are
 * refused, every list item is checked against its allowed values, and each offending criterion gets its messages
 * under its own name (`{"criteria":{"statuses":["\"bogus\" is not a valid choice. Allowed: …"]}}`), not under an
 * item index. See docs/decisions/0601-preset-filter-criteria.md.
 */

/** Ticket channel types a filter may name (the ticket's `channel.type`; the same names as `origin`). */
export const CHANNELS = ["email", "api", "telegram", "whatsapp"] as const

/** A channel type a filter may name. */
export type ChannelType = (typeof CHANNELS)[number]

/** Most values one criterion list may hold. */
export const MAX_CRITERION_VALUES = 100

/** Longest tag name a filter may name, in characters. */
export const MAX_TAG_NAME_LENGTH = 100

/** Fewest minutes `sla_due_within` takes. */
export const MIN_SLA_DUE_WITHIN = 1

/** Most minutes `sla_due_within` takes: a year (365 days). */
export const MAX_SLA_DUE_WITHIN = 525_600

/** The criteria as stored and shown: every list present (empty puts no constraint), the others null for "any". */
export interface Criteria {
  readonly tags_include: ReadonlyArray<string>
  readonly tags_exclude: ReadonlyArray<string>
  readonly assignee_ids: ReadonlyArray<number>
  readonly statuses: ReadonlyArray<TicketStatus>
  readonly waiting_on: ReadonlyArray<WaitingOn>
  readonly inbox_ids: ReadonlyArray<number>
  readonly channels: ReadonlyArray<ChannelType>
  readonly classifications: ReadonlyArray<Classification>
  readonly priorities: ReadonlyArray<Priority>
  readonly is_snoozed: boolean | null
  /** `true`: tickets that breached an SLA target (a `TicketSlaBreached` recorded); `false`: the others. */
  readonly sla_breached: boolean | null
  /** Minutes: tickets whose earliest pending SLA due time is before now + this many minutes, or already past. */
  readonly sla_due_within: number | null
}

/** Criteria that constrain nothing: the filter matches every ticket. */
export const EMPTY_CRITERIA: Criteria = {
  tags_include: [],
  tags_exclude: [],
  assignee_ids: [],
  statuses: [],
  waiting_on: [],
  inbox_ids: [],
  channels: [],
  classifications: [],
  priorities: [],
  is_snoozed: null,
  sla_breached: null,
  sla_due_within: null
}

/** Names of the criteria, in the order the API shows them. */
export const CRITERION_NAMES = Object.keys(EMPTY_CRITERIA) as ReadonlyArray<keyof Criteria>

type ItemCheck = (
  value: unknown
) => { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string }

const choiceOf =
  (values: ReadonlyArray<string>): ItemCheck =>
  (value) =>
    typeof value === "string" && values.includes(value)
      ? { ok: true, value }
      : {
          ok: false,
          message: `${JSON.stringify(typeof value === "string" ? value : (value ?? null))} is not a valid choice. Allowed: ${values.map((v) => (v === "" ? '"" (empty)' : v)).join(", ")}.`
        }

// The same rule and messages as every other id field; whether the object exists is checked by the service.
const positiveId: ItemCheck = Fields.parseId

const tagName: ItemCheck = (value) => {
  if (typeof value !== "string") return { ok: false, message: "Tag names must be strings." }
  const name = value.trim()
  if (name === "") return { ok: false, message: "Tag names may not be blank." }
  if ([...name].length > MAX_TAG_NAME_LENGTH)
    return { ok: false, message: `Tag names have at most ${MAX_TAG_NAME_LENGTH} characters.` }
  return { ok: true, value: name }
}

/** The criteria that take one value (or null for "any") rather than a list. */
type ScalarCriterion = "is_snoozed" | "sla_breached" | "sla_due_within"

const nullableBoolean =
  (anyMessage: string): ItemCheck =>
  (value) => {
    const parsed =
      typeof value === "boolean" ? value : typeof value === "string" ? Fields.parseBooleanText(value) : undefined
    return parsed === undefined
      ? { ok: false, message: `Must be a boolean (true/false), or null for ${anyMessage}.` }
      : { ok: true, value: parsed }
  }

// Whole minutes, as a JSON number or form digits; the messages of every other integer field.
const dueWithinMinutes: ItemCheck = (value) => {
  const minutes =
    typeof value === "number"
      ? value
      : typeof value === "string" && /^[-+]?[0-9]+$/.test(value)
        ? Number(value)
        : Number.NaN
  if (!Number.isSafeInteger(minutes)) return { ok: false, message: "A valid integer is required." }
  if (minutes < MIN_SLA_DUE_WITHIN)
    return { ok: false, message: `Ensure this value is greater than or equal to ${MIN_SLA_DUE_WITHIN}.` }
  if (minutes > MAX_SLA_DUE_WITHIN)
    return { ok: false, message: `Ensure this value is less than or equal to ${MAX_SLA_DUE_WITHIN}.` }
  return { ok: true, value: minutes }
}

// `null` or `""` (an empty form value) puts no constraint.
const SCALAR_CHECKS: Record<ScalarCriterion, ItemCheck> = {
  is_snoozed: nullableBoolean("snoozed and not snoozed alike"),
  sla_breached: nullableBoolean("breached and not breached alike"),
  sla_due_within: dueWithinMinutes
}

const LIST_CHECKS: Record<Exclude<keyof Criteria, ScalarCriterion>, ItemCheck> = {
  tags_include: tagName,
  tags_exclude: tagName,
  assignee_ids: positiveId,
  statuses: choiceOf(TicketStatus.literals),
  waiting_on: choiceOf(WaitingOn.literals),
  inbox_ids: positiveId,
  channels: choiceOf(CHANNELS),
  classifications: choiceOf(Classification.literals),
  priorities: choiceOf(Priority.literals)
}

/** The outcome of validating a criteria value: the normalized criteria, or messages per criterion name. */
export type CriteriaResult =
  | { readonly ok: true; readonly criteria: Criteria }
  | { readonly ok: false; readonly errors: Readonly<Record<string, ReadonlyArray<string>>> }

const describe = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "list" : typeof value)

/**
 * Validates a `criteria` value from a request: a JSON object (or, from a form body, a string holding one). Absent
 * criteria keep their empty default; lists lose duplicates (first occurrence kept); tag names are trimmed.
 */
export const validateCriteria = (input: unknown): CriteriaResult => {
  let value = input
  if (typeof value === "string") {
    try {
      value = value.trim() === "" ? {} : JSON.parse(value)
    } catch {
      return { ok: false, errors: { non_field_errors: ["Invalid JSON. Expected an object of criteria."] } }
    }
    // JSON text of a form field, checked as a JSON body is (no U+0000, no lone surrogates): the boundary saw a string.
    const refused = jsonTextIssues(value)
    if (refused.length > 0) {
      const errors: Record<string, Array<string>> = Object.create(null)
      for (const { path, message } of refused) errors[path[0] ?? "non_field_errors"] = [message]
      return { ok: false, errors }
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return {
      ok: false,
      errors: { non_field_errors: [`Invalid data. Expected an object of criteria, but got ${describe(value)}.`] }
    }
  // Keyed by the client's criterion names: no prototype, so "__proto__" is reported like any unknown name.
  const errors: Record<string, Array<string>> = Object.create(null)
  const out: Record<string, unknown> = { ...EMPTY_CRITERIA }
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    if (Object.hasOwn(SCALAR_CHECKS, key)) {
      if (raw === null || raw === "") out[key] = null
      else {
        const result = SCALAR_CHECKS[key as ScalarCriterion](raw)
        if (result.ok) out[key] = result.value
        else errors[key] = [result.message]
      }
      continue
    }
    const check = Object.hasOwn(LIST_CHECKS, key) ? LIST_CHECKS[key as keyof typeof LIST_CHECKS] : undefined
    if (check === undefined) {
      errors[key] = [`Unknown criterion. Allowed: ${CRITERION_NAMES.join(", ")}.`]
      continue
    }
    if (raw === null) continue
    if (!Array.isArray(raw)) {
      errors[key] = [`Expected a list of items but got type "${describe(raw)}".`]
      continue
    }
    if (raw.length > MAX_CRITERION_VALUES) {
      errors[key] = [`Ensure this field has no more than ${MAX_CRITERION_VALUES} elements.`]
      continue
    }
    const messages: Array<string> = []
    const values: Array<unknown> = []
    for (const item of raw) {
      const result = check(item)
      if (!result.ok) {
        if (!messages.includes(result.message)) messages.push(result.message)
      } else if (!values.includes(result.value)) values.push(result.value)
    }
    if (messages.length > 0) errors[key] = messages
    else out[key] = values
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, criteria: out as unknown as Criteria }
}

/** The criteria in the shape of `@helpdesk/domain`'s `PresetFilterCriteria` (what `matches` takes). */
export const toDomainCriteria = (criteria: Criteria): DomainCriteria => criteria

/** Stored criteria (jsonb) read back; anything missing or malformed falls back to "no constraint". */
export const fromStored = (stored: unknown): Criteria => {
  const result = validateCriteria(stored ?? {})
  return result.ok ? result.criteria : EMPTY_CRITERIA
}

const CriteriaWire = Schema.Struct({
  tags_include: Schema.Array(Schema.String),
  tags_exclude: Schema.Array(Schema.String),
  assignee_ids: Schema.Array(Schema.Int),
  statuses: Schema.Array(TicketStatus),
  waiting_on: Schema.Array(WaitingOn),
  inbox_ids: Schema.Array(Schema.Int),
  channels: Schema.Array(Schema.Literal(...CHANNELS)),
  classifications: Schema.Array(Classification),
  priorities: Schema.Array(Priority),
  is_snoozed: Schema.NullOr(Schema.Boolean),
  sla_breached: Schema.NullOr(Schema.Boolean),
  sla_due_within: Schema.NullOr(Schema.Int)
})

const description = `Every given criterion must hold (AND); within a list any value matches (OR); an empty list or a null \`is_snoozed\`, \`sla_breached\` or \`sla_due_within\` constrains nothing. Tags compare by name, case-insensitively. \`channels\`: ${CHANNELS.join(", ")}. \`sla_breached\`: whether the ticket breached an SLA target (its \`sla_breached\` field; a ticket without SLA has not). \`sla_due_within\` (${MIN_SLA_DUE_WITHIN}–${MAX_SLA_DUE_WITHIN} minutes): the ticket's earliest pending due time (first reply, next reply, resolution) is at most that many minutes away or already past, breach recorded or not; tickets without SLA, closed or with paused clocks have none. Unknown criteria are refused. In a form body, send criteria as a JSON string.`

/** The criteria as responses show them: every key present. */
export const CriteriaSchema = CriteriaWire.annotations({ identifier: "PresetFilterCriteria", description })

/**
 * The `criteria` field of a request body. Decodes with {@link validateCriteria}; each criterion's messages land
 * under `criteria.<name>` in the field errors.
 */
export const CriteriaField: Schema.Schema<Criteria, unknown> = Schema.transformOrFail(
  Schema.Unknown,
  Schema.typeSchema(CriteriaWire) as unknown as Schema.Schema<Criteria>,
  {
    strict: true,
    decode: (input, _, ast) => {
      const result = validateCriteria(input)
      if (result.ok) return ParseResult.succeed(result.criteria)
      // One pointer per message, so the kernel's error formatter nests them as `criteria.<name>: [messages]`.
      const issues = Object.entries(result.errors).flatMap(([key, messages]) =>
        messages.map((message) => new ParseResult.Pointer(key, input, new ParseResult.Type(ast, input, message)))
      )
      const [first, ...rest] = issues
      return ParseResult.fail(new ParseResult.Composite(ast, input, [first!, ...rest]))
    },
    encode: ParseResult.succeed
  }
).annotations({
  jsonSchema: {
    type: "object",
    description,
    properties: {
      tags_include: { type: "array", items: { type: "string", maxLength: MAX_TAG_NAME_LENGTH } },
      tags_exclude: { type: "array", items: { type: "string", maxLength: MAX_TAG_NAME_LENGTH } },
      assignee_ids: { type: "array", items: { type: "integer", minimum: 1 } },
      statuses: { type: "array", items: { type: "string", enum: [...TicketStatus.literals] } },
      waiting_on: { type: "array", items: { type: "string", enum: [...WaitingOn.literals] } },
      inbox_ids: { type: "array", items: { type: "integer", minimum: 1 } },
      channels: { type: "array", items: { type: "string", enum: [...CHANNELS] } },
      classifications: { type: "array", items: { type: "string", enum: [...Classification.literals] } },
      priorities: { type: "array", items: { type: "string", enum: [...Priority.literals] } },
      is_snoozed: { type: ["boolean", "null"] },
      sla_breached: { type: ["boolean", "null"] },
      sla_due_within: { type: ["integer", "null"], minimum: MIN_SLA_DUE_WITHIN, maximum: MAX_SLA_DUE_WITHIN }
    },
    additionalProperties: false
  }
})
