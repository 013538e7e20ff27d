import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The token check and read of `GET …/tickets/{id}/` as a PL/pgSQL function
 * (docs/decisions/0657-get-ticket-read-as-a-function.md): PostgreSQL plans a statement sent as an unnamed
 * statement on every execution, and planning this four-table join cost several times its execution; the
 * function's query is planned once per connection and its plan kept.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION hd_ticket_view_for_token(p_token_hash bytea, p_organization_public_id text, p_ticket_id bigint)
    RETURNS TABLE (
      id bigint, kind text, user_id bigint, organization_id bigint, token_hash bytea, revoked_at timestamptz,
      view jsonb
    )
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN QUERY
      SELECT k.id, k.kind, k.user_id, k.organization_id, k.token_hash, k.revoked_at, v.view
      FROM api_tokens k
      LEFT JOIN LATERAL (
        SELECT t.view FROM organizations o
        JOIN hd_tickets t ON t.ticket_id = p_ticket_id AND t.organization_id = o.id::text
        WHERE o.public_id = p_organization_public_id
          AND CASE k.kind
            WHEN 'personal' THEN EXISTS (
              SELECT 1 FROM memberships m WHERE m.organization_id = o.id AND m.user_id = k.user_id)
            ELSE o.id = k.organization_id
          END
      ) v ON true
      WHERE k.token_hash = p_token_hash;
    END
    $$`
})
