import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The `postgres` blob store (docs/decisions/0701-blob-stores.md): `hd_blob_chunks` holds the bytes of each write
 * in rows of up to 1 MiB, stored uncompressed out of line (uploads are mostly compressed already, and `substring`
 * then reads only the slice a range asks for); `hd_blobs` names the complete write of each key. Chunks of a write
 * no `hd_blobs` row names are abandoned writes, swept by `written_at`.
 *
 * `hd_eml_outbox_writer`: the one process that may write `.eml` outbox files on this database (decision 0702).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE hd_blob_chunks (
      write_id uuid NOT NULL,
      seq integer NOT NULL CHECK (seq >= 0),
      data bytea NOT NULL,
      written_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (write_id, seq)
    )`
  yield* sql`ALTER TABLE hd_blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL`
  yield* sql`
    CREATE TABLE hd_blobs (
      key text PRIMARY KEY,
      write_id uuid NOT NULL UNIQUE,
      size bigint NOT NULL CHECK (size >= 0),
      chunk_bytes integer NOT NULL CHECK (chunk_bytes > 0),
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE hd_eml_outbox_writer (
      only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
      writer text NOT NULL,
      seen_at timestamptz NOT NULL
    )`
})
