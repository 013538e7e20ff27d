import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every committed change to who may call announces itself on `hd_auth_changed`, whatever made it (the service, the
 * command line, an operator's SQL), so each process's cache of callers and memberships forgets what it depended on
 * (`src/Auth/AuthCache.ts`, decision 0658). A notification is delivered only if its transaction commits.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION hd_notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_TABLE_NAME = 'api_tokens' THEN
        PERFORM pg_notify('hd_auth_changed', 'token:' || encode(OLD.token_hash, 'hex'));
      ELSIF TG_TABLE_NAME = 'memberships' THEN
        PERFORM pg_notify('hd_auth_changed', 'user:' || OLD.user_id);
        IF TG_OP = 'UPDATE' THEN
          PERFORM pg_notify('hd_auth_changed', 'user:' || NEW.user_id);
        END IF;
      ELSIF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('hd_auth_changed', 'user:' || OLD.id);
      ELSIF TG_TABLE_NAME = 'organizations' THEN
        PERFORM pg_notify('hd_auth_changed', 'org:' || OLD.id);
      END IF;
      RETURN NULL;
    END
    $$`
  yield* sql`
    CREATE TRIGGER api_tokens_auth_changed AFTER UPDATE OR DELETE ON api_tokens
    FOR EACH ROW EXECUTE FUNCTION hd_notify_auth_changed()`
  // A new membership needs no notice: only memberships found are kept.
  yield* sql`
    CREATE TRIGGER memberships_auth_changed AFTER UPDATE OR DELETE ON memberships
    FOR EACH ROW EXECUTE FUNCTION hd_notify_auth_changed()`
  yield* sql`
    CREATE TRIGGER users_auth_changed AFTER DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION hd_notify_auth_changed()`
  // Memberships are found by the organization's public id.
  yield* sql`
    CREATE TRIGGER organizations_auth_changed AFTER UPDATE OF public_id OR DELETE ON organizations
    FOR EACH ROW EXECUTE FUNCTION hd_notify_auth_changed()`
})
