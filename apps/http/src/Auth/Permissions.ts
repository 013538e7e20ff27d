import type { Role } from "./CurrentCaller.js"

/** Every role in the organization: its people, whatever their role, and its integration tokens. */
const EVERYONE = ["owner", "admin", "member", "token"] as const satisfies ReadonlyArray<Role>

/** The roles that change the organization's configuration (settings, inboxes, business hours, …). */
const MANAGERS = ["owner", "admin", "token"] as const satisfies ReadonlyArray<Role>

/**
 * Who works tickets and the customers they come from: every role, members (the agents) included (decision 0412).
 * Writes on tickets and the uploads they attach always go together (an upload nobody may attach is only bytes).
 */
const TICKET_WORKERS: ReadonlyArray<Role> = EVERYONE

/** The people of the organization: personal filters and personal tokens are theirs; integration tokens have none. */
const PEOPLE = ["owner", "admin", "member"] as const satisfies ReadonlyArray<Role>

/** One row of the roles table. */
export interface Permission {
  /** The roles allowed; any other role gets `403`. */
  readonly roles: ReadonlyArray<Role>
  /** The endpoints (under `/organizations/{organization_id}/`) that ask for this action, and any finer rule. */
  readonly endpoints: string
  /** What the action does, for a specific `403` detail ("Only … may <denied>."); else the generic detail. */
  readonly denied?: string
}

/**
 * The roles table: for every action an endpoint asks `OrganizationAccess.require` for, the roles allowed.
 * The one place roles are decided (docs/decisions/0807-roles-table.md); docs/api-conventions.md renders it
 * and test/RolesMatrix.test.ts checks both the rendering and every served endpoint against it.
 */
export const PERMISSIONS = {
  "organization.read": { roles: EVERYONE, endpoints: "`GET` (the organization and its settings)" },
  "organization.settings": { roles: MANAGERS, endpoints: "`PATCH` (settings, auto-replies, CSAT, limits)" },
  "tickets.read": {
    roles: EVERYONE,
    endpoints:
      "`GET tickets/`, `GET tickets/{id}/`, `GET tickets/{id}/messages/` and `…/messages/{id}/`, `GET pending-attachments/{id}/`, `GET tickets/{id}/attachments/{id}/`"
  },
  "internal_notes.read": {
    roles: EVERYONE,
    endpoints:
      "internal notes in `GET events/` and `GET tickets/{id}/events/` (left out for other roles; `GET tickets/{id}/messages/` lists them to every role)"
  },
  "events.read": {
    roles: EVERYONE,
    endpoints: "`GET events/` (the change feed), `GET tickets/{id}/events/` (a ticket's history)"
  },
  "tickets.write": {
    roles: TICKET_WORKERS,
    endpoints:
      "`POST tickets/`, `PATCH tickets/{id}/`, `POST tickets/{id}/messages/`, `…/snooze/`, `…/unsnooze/`, `…/merge/`, `…/resend-email/`"
  },
  "tickets.enrich": {
    roles: ["token"],
    endpoints: "`POST tickets/{id}/enrichment/` (machine output: people change tags by `PATCH`)",
    denied: "record enrichment"
  },
  "attachments.upload": {
    roles: TICKET_WORKERS,
    endpoints:
      "`POST pending-attachments/`, `POST tickets/{id}/attachments/` (as `tickets.write`: uploads are attached)"
  },
  "inbound_mail.deliver": {
    roles: ["token"],
    endpoints: "`POST /inbound/email/` (not under an organization: the integration token's own)",
    denied: "deliver inbound e-mail"
  },
  "customers.read": { roles: EVERYONE, endpoints: "`GET customers/`, `GET customers/{id}/`" },
  "customers.write": { roles: TICKET_WORKERS, endpoints: "`POST customers/`, `PATCH customers/{id}/`" },
  "companies.read": {
    roles: EVERYONE,
    endpoints: "`GET companies/`, `GET companies/{id}/`, `GET companies/{id}/suggested-members/`"
  },
  "companies.write": { roles: TICKET_WORKERS, endpoints: "`POST companies/`, `PATCH companies/{id}/`" },
  "inboxes.read": { roles: EVERYONE, endpoints: "`GET inboxes/`, `GET inboxes/{id}/`" },
  "inboxes.write": { roles: MANAGERS, endpoints: "`POST inboxes/`, `PATCH inboxes/{id}/`" },
  "tags.read": { roles: EVERYONE, endpoints: "`GET tags/`, `GET tags/{id}/`" },
  "tags.write": { roles: MANAGERS, endpoints: "`POST tags/`, `PATCH` and `DELETE tags/{id}/`" },
  "sla_policies.read": { roles: EVERYONE, endpoints: "`GET sla-policies/`, `GET sla-policies/{id}/`" },
  "sla_policies.write": {
    roles: MANAGERS,
    endpoints: "`POST sla-policies/`, `PATCH` and `DELETE sla-policies/{id}/`"
  },
  "business_hours.read": {
    roles: EVERYONE,
    endpoints: "`GET business-hours/`, `GET business-hours/exceptions/`, `GET business-hours/exceptions/{id}/`"
  },
  "business_hours.write": {
    roles: MANAGERS,
    endpoints: "`PUT business-hours/`, `POST business-hours/exceptions/`, `PATCH` and `DELETE …/exceptions/{id}/`"
  },
  "help_center.read": {
    roles: EVERYONE,
    endpoints: "`GET portal/`, `GET portal/collections/` (and `tree/`, `{id}/`), `GET portal/articles/` (and `{id}/`)"
  },
  "help_center.write": {
    roles: MANAGERS,
    endpoints: "`POST`, `PATCH` and `DELETE` on `portal/collections/` and `portal/articles/`"
  },
  "preset_filters.read": {
    roles: EVERYONE,
    endpoints: "`GET custom-preset-filters/` (and `{id}/`): shared filters and the caller's own personal ones"
  },
  "preset_filters.write_personal": {
    roles: PEOPLE,
    endpoints:
      "`POST`, `PATCH`, `DELETE` on `custom-preset-filters/` for one's own personal filters (tokens have none: `400` on `visibility`)",
    denied: "create or change personal filters"
  },
  "preset_filters.write_shared": {
    roles: MANAGERS,
    endpoints: "`POST`, `PATCH`, `DELETE` on `custom-preset-filters/` for organization-shared filters",
    denied: "create or change organization-shared filters"
  },
  "members.read": { roles: EVERYONE, endpoints: "`GET members/`, `GET members/{user_id}/`" },
  "members.write": {
    roles: ["owner", "admin"],
    endpoints: "`POST members/`, `PATCH` and `DELETE members/{user_id}/` (never the last owner: `409`)",
    denied: "add, change or remove members"
  },
  "members.owners": {
    roles: ["owner"],
    endpoints: "as `members.write`, when the member is or becomes an owner",
    denied: "make, change or remove owners"
  },
  "personal_tokens.manage": {
    roles: PEOPLE,
    endpoints: "`GET`, `POST personal-tokens/`, `GET` and `DELETE personal-tokens/{token_id}/`: the caller's own",
    denied: "have personal tokens"
  },
  // Webhook settings name where the organization's events go and their log shows the receivers' answers: not
  // for members, reads included.
  "webhooks.manage": {
    roles: MANAGERS,
    endpoints:
      "`GET`, `POST` on `webhooks/`; `GET`, `PATCH`, `DELETE` on `webhooks/{id}/`; `POST …/rotate-secret/`, `GET …/deliveries/`",
    denied: "see or change webhooks"
  }
} as const satisfies Record<string, Permission>

/** Something an endpoint does in an organization, e.g. `tickets.write`. */
export type Action = keyof typeof PERMISSIONS

/** Every action, in the table's order. */
export const ACTIONS = Object.keys(PERMISSIONS) as ReadonlyArray<Action>

/** Whether the role may perform the action. */
export const allows = (action: Action, role: Role): boolean => (PERMISSIONS[action] as Permission).roles.includes(role)

const ROLE_NAMES: Record<Role, string> = {
  owner: "owners",
  admin: "admins",
  member: "members",
  token: "integration tokens"
}

const listed = (names: ReadonlyArray<string>) =>
  names.length <= 1 ? (names[0] ?? "nobody") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`

/**
 * The `403` detail for a role refused the action: named from the table, so it cannot disagree with it; the
 * generic detail when the row names no `denied` phrase.
 */
export const deniedDetail = (action: Action): string | undefined => {
  const permission: Permission = PERMISSIONS[action]
  if (permission.denied === undefined) return undefined
  const who = listed(permission.roles.map((role) => ROLE_NAMES[role]))
  return `Only ${who} may ${permission.denied}.`
}
