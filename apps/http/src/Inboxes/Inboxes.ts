import { SqlClient, SqlSchema } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Option, ParseResult, Schema, Struct } from "effect"
import * as Repository from "../Database/Repository.js"
import { dieUndecodable, int8 } from "../Database/Rows.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { inboxEmailAddress, inboxEmailDomain } from "./EmailPrefix.js"
import { Inbox, type InboxCreate, InboxId, type InboxUpdate } from "./Inbox.js"
import { DefaultInboxRequired, EmailPrefixTaken, InboxNotFound } from "./InboxErrors.js"

/** Orderings of the inbox list (default: the default inbox first, then by name). */
export const InboxOrdering = Ordering.make({
  columns: {
    is_default: "i.is_default",
    name: "lower(i.name)",
    email_prefix: "i.email_prefix",
    created_at: "i.created_at"
  },
  defaults: ["-is_default", "name"],
  tieBreaker: "i.id"
})

/** The columns of an inbox row as the select below reads them (its own and its organization's periods). */
const InboxColumns = Schema.Struct({
  ...Struct.omit(
    Inbox.fields,
    "emailAddress",
    "customerMaxInactivityPeriod",
    "customerInactivityReminderPeriod",
    "customerMaxInactivityPeriodInherited",
    "customerInactivityReminderPeriodInherited"
  ),
  id: int8(InboxId),
  ownMaxInactivityPeriod: Schema.NullOr(Schema.Int),
  ownInactivityReminderPeriod: Schema.NullOr(Schema.Int),
  orgMaxInactivityPeriod: Schema.Int,
  orgInactivityReminderPeriod: Schema.Int,
  publicId: Schema.String
})

/** A row of the inbox select as an {@link Inbox}, its address under `domain` (rows are only read). */
const InboxRow = (domain: string) =>
  Schema.transformOrFail(InboxColumns, Schema.typeSchema(Inbox), {
    strict: true,
    decode: ({
      ownMaxInactivityPeriod,
      ownInactivityReminderPeriod,
      orgMaxInactivityPeriod,
      orgInactivityReminderPeriod,
      publicId,
      ...row
    }) =>
      ParseResult.succeed({
        ...row,
        emailAddress: inboxEmailAddress(row.emailPrefix, publicId, domain),
        customerMaxInactivityPeriod: ownMaxInactivityPeriod ?? orgMaxInactivityPeriod,
        customerInactivityReminderPeriod: ownInactivityReminderPeriod ?? orgInactivityReminderPeriod,
        customerMaxInactivityPeriodInherited: ownMaxInactivityPeriod === null,
        customerInactivityReminderPeriodInherited: ownInactivityReminderPeriod === null
      }),
    encode: (inbox, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, inbox, "inbox rows are only read"))
  })

/** Name and prefix of the inbox provisioned for an organization that has none when a default is needed. */
export const PROVISIONED_INBOX = { name: "Support", emailPrefix: "support" } as const

/**
 * The inboxes of organizations: their settings, the one default inbox each organization has, and the address
 * derived from the e-mail prefix (docs/decisions/0551-inboxes.md).
 */
export class Inboxes extends Effect.Service<Inboxes>()("@helpdesk/http/Inboxes/Inboxes", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const domain = yield* Effect.orDie(inboxEmailDomain)

    const Row = InboxRow(domain)
    const inboxRows = Repository.table("inboxes", Row)
    const select = sql`
      SELECT i.id, i.name, i.email_prefix, i.is_default, i.auto_reply_during_enabled, i.auto_reply_outside_enabled,
             i.auto_reply_during_template, i.auto_reply_outside_template, i.enable_inactivity_reminders,
             i.enable_auto_close_inactive_tickets, i.signature, i.email_from_name, i.customer_interaction_style,
             i.created_at, i.updated_at,
             i.customer_max_inactivity_period AS own_max_inactivity_period,
             i.customer_inactivity_reminder_period AS own_inactivity_reminder_period,
             o.customer_max_inactivity_period AS org_max_inactivity_period,
             o.customer_inactivity_reminder_period AS org_inactivity_reminder_period,
             o.public_id
      FROM inboxes i JOIN organizations o ON o.id = i.organization_id`

    /** The inbox with this id in the organization, or undefined (another organization's inbox is not found). */
    const findById = inboxRows.findById(
      "Inboxes.findById",
      (organizationId, id: InboxId) => sql`${select} WHERE i.organization_id = ${organizationId} AND i.id = ${id}`
    )

    // Moving the default flag is serialised per organization on its row, so two concurrent moves never both
    // find "no other default" and trip the partial unique index.
    const lockOrganization = (organizationId: OrganizationId) =>
      sql`SELECT 1 FROM organizations WHERE id = ${organizationId} FOR NO KEY UPDATE`

    const hasInboxes = (organizationId: OrganizationId) =>
      sql`SELECT 1 FROM inboxes WHERE organization_id = ${organizationId} LIMIT 1`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const columnsOf = (changes: Partial<InboxUpdate>): Record<string, unknown> => {
      const out: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined || key === "is_default") continue
        out[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = value
      }
      return out
    }

    // A race lost at the unique prefix is refused as the prefix taken.
    const write = (span: string, emailPrefix: string) =>
      Repository.write(span, {
        transaction: sql,
        unique: { inboxes_email_prefix_idx: () => new EmailPrefixTaken({ emailPrefix }) }
      })

    /**
     * Creates an inbox. The organization's first inbox is its default whatever `is_default` says; a later one
     * with `is_default: true` takes the flag from the previous default.
     */
    const create = (organizationId: OrganizationId, input: InboxCreate): Effect.Effect<Inbox, EmailPrefixTaken> =>
      Effect.gen(function* () {
        yield* lockOrganization(organizationId)
        const first = !(yield* hasInboxes(organizationId))
        const isDefault = first || input.is_default === true
        if (isDefault && !first)
          yield* sql`UPDATE inboxes SET is_default = false, updated_at = ${yield* Repository.now}
                     WHERE organization_id = ${organizationId} AND is_default`
        const id = yield* sql`
          INSERT INTO inboxes ${sql.insert({ ...columnsOf(input), organizationId, isDefault })}
          RETURNING id`.pipe(Repository.returnedId("inboxes"), Effect.map(Option.getOrThrow))
        return (yield* findById(organizationId, InboxId.make(id)))!
      }).pipe(write("Inboxes.create", input.email_prefix))

    /**
     * Applies changes. `is_default: true` moves the flag here from the previous default in one transaction;
     * `is_default: false` on the default inbox is refused (make another inbox the default instead).
     */
    const update = (organizationId: OrganizationId, id: InboxId, changes: InboxUpdate) =>
      Effect.gen(function* () {
        yield* lockOrganization(organizationId)
        const current = yield* findById(organizationId, id)
        if (current === undefined) return yield* new InboxNotFound({ id })
        if (changes.is_default === false && current.isDefault) return yield* new DefaultInboxRequired({ id })
        const at = yield* Repository.now
        if (changes.is_default === true && !current.isDefault) {
          yield* sql`UPDATE inboxes SET is_default = false, updated_at = ${at}
                     WHERE organization_id = ${organizationId} AND is_default`
          yield* sql`UPDATE inboxes SET is_default = true WHERE id = ${id}`
        }
        const columns = columnsOf(changes)
        const touched = Object.keys(columns).length > 0 || (changes.is_default === true && !current.isDefault)
        if (touched)
          yield* sql`UPDATE inboxes SET ${sql.update({ ...columns, updatedAt: at })}
                     WHERE organization_id = ${organizationId} AND id = ${id}`
        return (yield* findById(organizationId, id))!
      }).pipe(write("Inboxes.update", changes.email_prefix ?? ""))

    /**
     * The organization's default inbox. An organization without inboxes gets one first ("Support", prefix
     * `support`), so a ticket always has an inbox to land in.
     */
    const findDefault = SqlSchema.findOne({
      Request: OrganizationId,
      Result: Row,
      execute: (organizationId) => sql`${select} WHERE i.organization_id = ${organizationId} AND i.is_default`
    })

    const defaultFor = (organizationId: OrganizationId): Effect.Effect<Inbox> =>
      Effect.gen(function* () {
        const existing = yield* findDefault(organizationId)
        if (Option.isSome(existing)) return existing.value
        // Only an organization without inboxes lacks a default; concurrent provisioners insert one row between them.
        yield* sql`
          INSERT INTO inboxes ${sql.insert({
            organizationId,
            name: PROVISIONED_INBOX.name,
            emailPrefix: PROVISIONED_INBOX.emailPrefix,
            isDefault: true
          })}
          ON CONFLICT DO NOTHING`
        return Option.getOrThrow(yield* findDefault(organizationId))
      }).pipe(dieUndecodable("inboxes"), Effect.orDie, withSpan("Inboxes.defaultFor"))

    /** The organization's inboxes, one page in the requested order. */
    const list = (organizationId: OrganizationId, options: { readonly ordering: Ordering.Ordering<string> }) =>
      Pagination.page(sql, {
        from: sql`inboxes i`,
        select,
        where: sql`i.organization_id = ${organizationId}`,
        ordering: options.ordering,
        rows: inboxRows
      })

    return { findById, defaultFor, create, update, list } as const
  })
}) {}
