import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import type { OrganizationId } from "@helpdesk/domain"
import { Effect, ParseResult, Schema } from "effect"
import { Timestamptz } from "../Database/Columns.js"
import * as Repository from "../Database/Repository.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { fold, terms } from "../Search/SearchText.js"
import { JoinedUser, joinedUser } from "../Users/JoinedUser.js"
import { Company, type CompanyCreate, type CompanyUpdate } from "./Company.js"
import { AssigneeNotMember, CompanyNameTaken, CompanyNotFound, EmailDomainsTaken } from "./CompanyErrors.js"
import { CompanyId } from "./CompanyId.js"

/** Orderings of the company list. */
export const CompanyOrdering = Ordering.make({
  columns: { name: "c.search_name", created_at: "c.created_at", updated_at: "c.updated_at" },
  defaults: ["name"],
  tieBreaker: "c.id"
})

/** The columns of the company select below: its own, its default assignee's and its e-mail domains. */
const CompanyColumns = Schema.Struct({
  id: CompanyId,
  name: Schema.String,
  createdAt: Timestamptz,
  updatedAt: Timestamptz,
  emailDomains: Schema.NullOr(Schema.Array(Schema.String)),
  defaultAssignee: JoinedUser
})

/** A row of the company select as a {@link Company}, its domains sorted (rows are only read). */
const CompanyRow = Schema.transformOrFail(CompanyColumns, Schema.typeSchema(Company), {
  strict: true,
  decode: ({ emailDomains, ...row }) => ParseResult.succeed({ ...row, emailDomains: [...(emailDomains ?? [])].sort() }),
  encode: (company, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, company, "company rows are only read"))
})

/** The key under which company names are unique in an organization. */
export const companyNameKey = (name: string): string => name.trim().toLowerCase()

type CompanyWriteError = CompanyNameTaken | EmailDomainsTaken | AssigneeNotMember

/**
 * Companies: groupings of an organization's customers, with a default assignee (a member of the organization)
 * and e-mail domains unique in the organization (docs/decisions/0553-companies.md).
 */
export class Companies extends Effect.Service<Companies>()("@helpdesk/http/Companies/Companies", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const companyRows = Repository.table("companies", CompanyRow)

    // A default assignee who left the organization shows as null (the stored id stays, in case they return).
    const select = sql`
      SELECT c.id, c.name, c.created_at, c.updated_at, ${joinedUser(sql, "u")} AS default_assignee,
             ARRAY(SELECT d.domain FROM company_email_domains d WHERE d.company_id = c.id ORDER BY d.domain)
               AS email_domains
      FROM companies c
      LEFT JOIN memberships m ON m.organization_id = c.organization_id AND m.user_id = c.default_assignee_id
      LEFT JOIN users u ON u.id = m.user_id`

    /** The company with this id in the organization, or undefined. */
    const findById = companyRows.findById(
      "Companies.findById",
      (organizationId, id: CompanyId) => sql`${select} WHERE c.organization_id = ${organizationId} AND c.id = ${id}`
    )

    const requireMember = (organizationId: OrganizationId, userId: number | null | undefined) =>
      userId === null || userId === undefined
        ? Effect.void
        : sql`SELECT 1 FROM memberships WHERE organization_id = ${organizationId} AND user_id = ${userId}`.pipe(
            Effect.flatMap((rows) => (rows.length === 0 ? new AssigneeNotMember({ userId }) : Effect.void))
          )

    const requireFreeDomains = (organizationId: OrganizationId, companyId: string, domains: ReadonlyArray<string>) =>
      domains.length === 0
        ? Effect.void
        : sql<{ readonly domain: string; readonly companyName: string }>`
            SELECT d.domain, c.name AS company_name
            FROM company_email_domains d JOIN companies c ON c.id = d.company_id
            WHERE d.organization_id = ${organizationId} AND d.company_id <> ${companyId}
              AND d.domain IN ${sql.in(domains)}
            ORDER BY d.domain`.pipe(
            Effect.flatMap((rows) => (rows.length === 0 ? Effect.void : new EmailDomainsTaken({ taken: rows })))
          )

    const replaceDomains = (organizationId: OrganizationId, companyId: string, domains: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        yield* sql`DELETE FROM company_email_domains WHERE company_id = ${companyId}`
        if (domains.length > 0)
          yield* sql`INSERT INTO company_email_domains ${sql.insert(
            domains.map((domain) => ({ organizationId, companyId, domain }))
          )}`
      })

    // Races lose at the unique constraints; report them as the checks before would have.
    const write = (span: string, name: string | undefined, domains: ReadonlyArray<string> | undefined) =>
      Repository.write<CompanyNameTaken | EmailDomainsTaken>(span, {
        transaction: sql,
        unique: {
          companies_name_unique: name === undefined ? undefined : () => new CompanyNameTaken({ name }),
          company_email_domains_unique:
            domains === undefined
              ? undefined
              : () =>
                  new EmailDomainsTaken({
                    taken: domains.map((domain) => ({ domain, companyName: "another company" }))
                  })
        }
      })

    /** Creates a company. */
    const create = (
      organizationId: OrganizationId,
      input: CompanyCreate
    ): Effect.Effect<Company, CompanyWriteError> => {
      const id = CompanyId.make(randomUUID())
      return Effect.gen(function* () {
        yield* requireMember(organizationId, input.default_assignee_id)
        const domains = input.email_domains ?? []
        yield* requireFreeDomains(organizationId, id, domains)
        yield* sql`INSERT INTO companies ${sql.insert({
          id,
          organizationId,
          name: input.name,
          nameKey: companyNameKey(input.name),
          searchName: fold(input.name),
          defaultAssigneeId: input.default_assignee_id ?? null
        })}`
        yield* replaceDomains(organizationId, id, domains)
        return (yield* findById(organizationId, id))!
      }).pipe(write("Companies.create", input.name, input.email_domains))
    }

    /** Applies changes; `email_domains` replaces the whole list. */
    const update = (organizationId: OrganizationId, id: CompanyId, changes: CompanyUpdate) =>
      Effect.gen(function* () {
        const current = yield* sql`
          SELECT 1 FROM companies WHERE organization_id = ${organizationId} AND id = ${id} FOR UPDATE`
        if (current.length === 0) return yield* new CompanyNotFound({ id })
        yield* requireMember(organizationId, changes.default_assignee_id)
        if (changes.email_domains !== undefined) yield* requireFreeDomains(organizationId, id, changes.email_domains)
        const columns: Record<string, unknown> = {}
        if (changes.name !== undefined) {
          columns.name = changes.name
          columns.nameKey = companyNameKey(changes.name)
          columns.searchName = fold(changes.name)
        }
        if (changes.default_assignee_id !== undefined) columns.defaultAssigneeId = changes.default_assignee_id
        if (changes.email_domains !== undefined) yield* replaceDomains(organizationId, id, changes.email_domains)
        if (Object.keys(columns).length > 0 || changes.email_domains !== undefined)
          yield* sql`UPDATE companies SET ${sql.update({ ...columns, updatedAt: yield* Repository.now })}
                     WHERE organization_id = ${organizationId} AND id = ${id}`
        return (yield* findById(organizationId, id))!
      }).pipe(write("Companies.update", changes.name, changes.email_domains))

    /** The organization's companies whose name matches every search term, one page in the requested order. */
    const list = (organizationId: OrganizationId, options: Repository.Search) => {
      const where = Repository.everyTerm(
        sql,
        sql`c.organization_id = ${organizationId}`,
        terms(options.search),
        (pattern) => sql`c.search_name LIKE ${pattern}`
      )
      return Pagination.page(sql, {
        from: sql`companies c`,
        select,
        where,
        ordering: options.ordering,
        rows: companyRows
      })
    }

    return { findById, create, update, list } as const
  })
}) {}
