/**
 * Auto-reply templates: plain text with `{{placeholder}}`s (docs/decisions/0770-auto-replies-and-csat.md).
 * Whitespace inside the braces is allowed; names are lower-case.
 */

/** The placeholders a template may use, with what each becomes. */
export const AUTO_REPLY_PLACEHOLDERS = {
  customer_name: "the customer's name (their e-mail address when no name is known)",
  ticket_public_id: "the ticket's public id, e.g. 42",
  next_open: "the organization's next opening in its working language and time zone (empty when there is none)",
  organization_name: "the organization's name"
} as const

/** A placeholder name. */
export type AutoReplyPlaceholder = keyof typeof AUTO_REPLY_PLACEHOLDERS

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g

const isPlaceholder = (name: string): name is AutoReplyPlaceholder => Object.hasOwn(AUTO_REPLY_PLACEHOLDERS, name)

/** The placeholders of `template` that are not known, in order of appearance, each once. */
export const unknownPlaceholders = (template: string): ReadonlyArray<string> => {
  const unknown = new Set<string>()
  for (const match of template.matchAll(PLACEHOLDER)) if (!isPlaceholder(match[1]!)) unknown.add(match[1]!)
  return [...unknown]
}

/** The template with every known placeholder replaced (unknown ones are left as written). */
export const renderAutoReply = (template: string, values: Readonly<Record<AutoReplyPlaceholder, string>>): string =>
  template.replace(PLACEHOLDER, (whole, name: string) => (isPlaceholder(name) ? values[name] : whole))
