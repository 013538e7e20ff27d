import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The help center: one portal per organization (created on first use), its nested collections and their
 * articles. Slugs are unique per organization, separately for collections and articles. A collection with
 * sub-collections or articles cannot be deleted (docs/decisions/0603-help-center-tree.md), hence no cascade
 * between them.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE hc_portals (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL UNIQUE REFERENCES organizations (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE hc_collections (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      portal_id bigint NOT NULL REFERENCES hc_portals (id) ON DELETE CASCADE,
      parent_id bigint REFERENCES hc_collections (id),
      name text NOT NULL,
      slug text NOT NULL,
      meta_description text NOT NULL DEFAULT '',
      icon text NOT NULL DEFAULT '',
      position integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, slug),
      CHECK (parent_id IS DISTINCT FROM id)
    )`
  yield* sql`CREATE INDEX hc_collections_parent_idx ON hc_collections (organization_id, parent_id, position)`
  yield* sql`
    CREATE TABLE hc_articles (
      id bigserial PRIMARY KEY,
      organization_id bigint NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
      collection_id bigint NOT NULL REFERENCES hc_collections (id),
      title text NOT NULL,
      slug text NOT NULL,
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
      body text NOT NULL DEFAULT '',
      meta_description text NOT NULL DEFAULT '',
      position integer NOT NULL DEFAULT 0,
      published_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (organization_id, slug)
    )`
  yield* sql`CREATE INDEX hc_articles_collection_idx ON hc_articles (collection_id, position)`
})
