import { SqlClient } from "@effect/sql"
import { OrganizationId } from "@helpdesk/domain"
import { Effect, Option, ParseResult, Schema } from "effect"
import { CompanyNotFound } from "../Companies/CompanyErrors.js"
import { CompanyId } from "../Companies/CompanyId.js"
import { domainOfEmail } from "../Companies/EmailDomain.js"
import * as Repository from "../Database/Repository.js"
import { int8 } from "../Database/Rows.js"
import * as Ordering from "../Http/Ordering.js"
import * as Pagination from "../Http/Pagination.js"
import { withSpan } from "../Observability/Spans.js"
import { containsPattern, fold, terms } from "../Search/SearchText.js"
import { Customer, type CustomerCreate, CustomerId, type CustomerUpdate } from "./Customer.js"
import { CustomerEmailTaken, CustomerNotFound, ManagerWithoutCompany } from "./CustomerErrors.js"

/** Orderings of the customer list. */
export const CustomerOrdering = Ordering.make({
  columns: { id: "c.id", name: "lower(c.name)", email: "c.email_key", created_at: "c.created_at" },
  defaults: ["-id"],
  tieBreaker: "c.id"
})

/** The columns of the customer select below: its own and its company's name. */
const CustomerColumns = Schema.Struct({
  id: int8(CustomerId),
  name: Schema.String,
  email: Schema.String,
  isSpam: Schema.Boolean,
  isCompanyManager: Schema.Boolean,
  companyId: Schema.NullOr(CompanyId),
  companyName: Schema.NullOr(Schema.String)
})

/** A row of the customer select as a {@link Customer} (rows are only read). */
const CustomerRow = Schema.transformOrFail(CustomerColumns, Schema.typeSchema(Customer), {
  strict: true,
  decode: ({ companyId, companyName, ...row }) =>
    ParseResult.succeed({ ...row, company: companyId === null ? null : { id: companyId, name: companyName ?? "" } }),
  encode: (customer, _, ast) =>
    ParseResult.fail(new ParseResult.Forbidden(ast, customer, "customer rows are only read"))
})

/** An address as stored: trimmed, its domain lower-cased (the local part keeps its case, as people typed it). */
export const normalizeCustomerEmail = (email: string): string => {
  const value = email.trim()
  const at = value.lastIndexOf("@")
  return at < 0 ? value : `${value.slice(0, at)}@${value.slice(at + 1).toLowerCase()}`
}

/** The key under which customer addresses are unique in an organization: the whole address lower-cased. */
export const customerEmailKey = (email: string): string => email.trim().toLowerCase()

/** The stored columns of a customer's name and address: the address's key and domain, the folded search text. */
const nameAndEmailColumns = (name: string, email: string) => ({
  name,
  email,
  emailKey: customerEmailKey(email),
  emailDomain: domainOfEmail(email),
  searchText: fold(`${name} ${email}`)
})

/** Filters of the customer list. */
export interface CustomerFilter {
  /** Every whitespace-separated term must occur in the name or the e-mail address (case and accents ignored). */
  readonly search?: string
  /** Only members of this company (a UUID), or only customers without a company (`null`). */
  readonly companyId?: string | null
  readonly isSpam?: boolean
  /**
   * Suggested members of this company (a UUID): customers without a company whose address is at one of the
   * company's e-mail domains.
   */
  readonly suggestedFor?: string
}

/**
 * Customers (requesters) of organizations: e-mail addresses unique per organization ignoring case, at most one
 * company of the same organization (docs/decisions/0552-customers.md).
 */
export class Customers extends Effect.Service<Customers>()("@helpdesk/http/Customers/Customers", {
  dependencies: [],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const customerRows = Repository.table("customers", CustomerRow)

    const select = sql`
      SELECT c.id, c.name, c.email, c.is_spam, c.is_company_manager, c.company_id, co.name AS company_name
      FROM customers c LEFT JOIN companies co ON co.id = c.company_id`

    /** The customer with this id in the organization, or undefined (another organization's is not found). */
    const findById = customerRows.findById(
      "Customers.findById",
      (organizationId, id: CustomerId) => sql`${select} WHERE c.organization_id = ${organizationId} AND c.id = ${id}`
    )

    const findOneByEmail = Repository.findOne({
      table: "customers",
      span: "Customers.findByEmail",
      Request: Schema.Struct({ organizationId: OrganizationId, emailKey: Schema.String }),
      Result: CustomerRow,
      execute: ({ organizationId, emailKey }) =>
        sql`${select} WHERE c.organization_id = ${organizationId} AND c.email_key = ${emailKey}`
    })

    /** The customer with this e-mail address (compared ignoring case) in the organization, or undefined. */
    const findByEmail = (organizationId: OrganizationId, email: string): Effect.Effect<Customer | undefined> =>
      findOneByEmail({ organizationId, emailKey: customerEmailKey(email) })

    /**
     * The customer with this e-mail address (compared ignoring case), created when new. A given name fills an
     * empty one but never replaces a name the customer has. `email` must be a valid address (validate it
     * first); `name` is cut to 255 characters. Runs inside the caller's transaction when there is one.
     */
    const findOrCreateByEmail = (
      organizationId: OrganizationId,
      input: { readonly email: string; readonly name?: string | undefined }
    ): Effect.Effect<Customer> => {
      const email = normalizeCustomerEmail(input.email)
      const name = [...(input.name ?? "").trim()].slice(0, 255).join("")
      // One statement: the row written, else the row that was there. A row another transaction committed while this
      // one waited on it is not in the statement's snapshot: then it is read again, by a statement of its own.
      return sql`
        WITH written AS (
          INSERT INTO customers ${sql.insert({ organizationId, ...nameAndEmailColumns(name, email) })}
          ON CONFLICT (organization_id, email_key) DO UPDATE
            SET name = EXCLUDED.name, search_text = EXCLUDED.search_text, updated_at = now()
            WHERE customers.name = '' AND EXCLUDED.name <> ''
          RETURNING id, name, email, is_spam, is_company_manager, company_id
        ), found AS (
          SELECT id, name, email, is_spam, is_company_manager, company_id FROM written
          UNION ALL
          SELECT id, name, email, is_spam, is_company_manager, company_id FROM customers
          WHERE organization_id = ${organizationId} AND email_key = ${customerEmailKey(email)}
            AND NOT EXISTS (SELECT 1 FROM written)
        )
        SELECT f.id, f.name, f.email, f.is_spam, f.is_company_manager, f.company_id, co.name AS company_name
        FROM found f LEFT JOIN companies co ON co.id = f.company_id`.pipe(
        customerRows.returning,
        Effect.flatMap(
          Option.match({
            onSome: Effect.succeed,
            onNone: () => Effect.map(findByEmail(organizationId, email), (customer) => customer!)
          })
        ),
        Effect.orDie,
        withSpan("Customers.findOrCreateByEmail")
      )
    }

    const requireCompany = (organizationId: OrganizationId, companyId: string) =>
      sql`SELECT 1 FROM companies WHERE organization_id = ${organizationId} AND id = ${companyId}`.pipe(
        Effect.flatMap((rows) => (rows.length === 0 ? new CompanyNotFound({ id: companyId }) : Effect.void))
      )

    // A race lost at the unique address is refused as the address taken.
    const write = (span: string, email: string | undefined, transaction?: SqlClient.SqlClient) =>
      Repository.write(span, {
        transaction,
        unique: { customers_email_unique: email === undefined ? undefined : () => new CustomerEmailTaken({ email }) }
      })

    /** Creates a customer. */
    const create = (
      organizationId: OrganizationId,
      input: CustomerCreate
    ): Effect.Effect<Customer, CustomerEmailTaken | CompanyNotFound | ManagerWithoutCompany> => {
      const email = normalizeCustomerEmail(input.email)
      const name = input.name ?? ""
      const companyId = input.company_id ?? null
      return Effect.gen(function* () {
        if (companyId !== null) yield* requireCompany(organizationId, companyId)
        if (input.is_company_manager === true && companyId === null) return yield* new ManagerWithoutCompany()
        const id = yield* sql`
          INSERT INTO customers ${sql.insert({
            organizationId,
            ...nameAndEmailColumns(name, email),
            isSpam: input.is_spam ?? false,
            companyId,
            isCompanyManager: input.is_company_manager ?? false
          })}
          RETURNING id`.pipe(Repository.returnedId("customers"), Effect.map(Option.getOrThrow))
        return (yield* findById(organizationId, CustomerId.make(id)))!
      }).pipe(write("Customers.create", email))
    }

    /**
     * Applies changes. Moving a customer to another company, or out of any, ends their being a manager unless the
     * same request says otherwise; `is_company_manager: true` needs a company.
     */
    const update = (organizationId: OrganizationId, id: CustomerId, changes: CustomerUpdate) =>
      Effect.gen(function* () {
        const rows = yield* sql<{
          readonly name: string
          readonly email: string
          readonly companyId: string | null
          readonly isCompanyManager: boolean
        }>`SELECT name, email, company_id, is_company_manager FROM customers
           WHERE organization_id = ${organizationId} AND id = ${id} FOR UPDATE`
        const current = rows[0]
        if (current === undefined) return yield* new CustomerNotFound({ id })
        const companyId = changes.company_id === undefined ? current.companyId : changes.company_id
        if (changes.company_id !== undefined && changes.company_id !== null && changes.company_id !== current.companyId)
          yield* requireCompany(organizationId, changes.company_id)
        const isCompanyManager =
          changes.is_company_manager ?? (companyId === current.companyId ? current.isCompanyManager : false)
        if (isCompanyManager && companyId === null) return yield* new ManagerWithoutCompany()
        const name = changes.name ?? current.name
        const email = changes.email === undefined ? current.email : normalizeCustomerEmail(changes.email)
        const columns: Record<string, unknown> = {
          ...nameAndEmailColumns(name, email),
          companyId,
          isCompanyManager,
          ...(changes.is_spam === undefined ? {} : { isSpam: changes.is_spam })
        }
        const changed =
          name !== current.name ||
          email !== current.email ||
          companyId !== current.companyId ||
          isCompanyManager !== current.isCompanyManager ||
          changes.is_spam !== undefined
        if (changed)
          yield* sql`UPDATE customers SET ${sql.update({ ...columns, updatedAt: yield* Repository.now })}
                     WHERE organization_id = ${organizationId} AND id = ${id}`
        return (yield* findById(organizationId, id))!
      }).pipe(write("Customers.update", changes.email, sql))

    /** The organization's customers passing the filter, one page in the requested order. */
    const list = (
      organizationId: OrganizationId,
      options: CustomerFilter & { readonly ordering: Ordering.Ordering<string> }
    ) => {
      const where = sql.and([
        sql`c.organization_id = ${organizationId}`,
        ...terms(options.search ?? "").map((term) => sql`c.search_text LIKE ${containsPattern(term)}`),
        ...(options.companyId === undefined
          ? []
          : options.companyId === null
            ? [sql`c.company_id IS NULL`]
            : [sql`c.company_id = ${options.companyId}`]),
        ...(options.isSpam === undefined ? [] : [sql`c.is_spam = ${options.isSpam}`]),
        ...(options.suggestedFor === undefined
          ? []
          : [
              sql`c.company_id IS NULL`,
              sql`c.email_domain IN (
                SELECT domain FROM company_email_domains
                WHERE organization_id = ${organizationId} AND company_id = ${options.suggestedFor})`
            ])
      ])
      return Pagination.page(sql, {
        from: sql`customers c`,
        select,
        where,
        ordering: options.ordering,
        rows: customerRows
      })
    }

    return { findById, findByEmail, findOrCreateByEmail, create, update, list } as const
  })
}) {}
