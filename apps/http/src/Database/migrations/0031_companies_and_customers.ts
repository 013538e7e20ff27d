import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Companies (groupings of customers, with a default assignee and e-mail domains) and customers (requesters)
 * (docs/decisions/0552-customers.md, 0553-companies.md). Keys compared case-insensitively (`email_key`,
 * `name_key`, domains) are lower-cased in TypeScript, so PostgreSQL and PGlite agree. A customer's company must
 * belong to the customer's organization: the foreign key includes `organization_id`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE companies (
      id uuid PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name text NOT NULL,
      name_key text NOT NULL,
      search_name text NOT NULL,
      default_assignee_id bigint REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT companies_organization_id_unique UNIQUE (organization_id, id),
      CONSTRAINT companies_name_unique UNIQUE (organization_id, name_key)
    )`
  yield* sql`
    CREATE TABLE company_email_domains (
      organization_id bigint NOT NULL,
      company_id uuid NOT NULL,
      domain text NOT NULL,
      CONSTRAINT company_email_domains_unique PRIMARY KEY (organization_id, domain),
      FOREIGN KEY (organization_id, company_id) REFERENCES companies (organization_id, id) ON DELETE CASCADE
    )`
  yield* sql`CREATE INDEX company_email_domains_company_idx ON company_email_domains (company_id)`
  yield* sql`
    CREATE TABLE customers (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      name text NOT NULL DEFAULT '',
      email text NOT NULL,
      email_key text NOT NULL,
      email_domain text NOT NULL,
      search_text text NOT NULL,
      is_spam boolean NOT NULL DEFAULT false,
      company_id uuid,
      is_company_manager boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT customers_email_unique UNIQUE (organization_id, email_key),
      CONSTRAINT customers_company_fk FOREIGN KEY (organization_id, company_id)
        REFERENCES companies (organization_id, id),
      CHECK (company_id IS NOT NULL OR NOT is_company_manager)
    )`
  yield* sql`CREATE INDEX customers_company_idx ON customers (company_id) WHERE company_id IS NOT NULL`
  yield* sql`CREATE INDEX customers_email_domain_idx ON customers (organization_id, email_domain)`
  yield* sql`CREATE INDEX customers_created_idx ON customers (organization_id, created_at DESC, id DESC)`
})
