import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A committed change to a person's profile (name, e-mail, picture) announces itself on `hd_auth_changed` as
 * `user:<id>`, as a removal does: each process's cache forgets the profile its writes are signed with
 * (`src/Auth/AuthCache.ts`, decision 0658).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TRIGGER users_profile_changed AFTER UPDATE OF email, name, profile_picture_url ON users
    FOR EACH ROW EXECUTE FUNCTION hd_notify_auth_changed()`
})
