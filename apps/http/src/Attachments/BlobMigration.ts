import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { withSpan } from "../Observability/Spans.js"
import type { BlobStore } from "./BlobStore.js"

/** What a copy from one blob store to another did, attachment by attachment. */
export interface BlobMigrationReport {
  /** Blobs copied, and their bytes. */
  readonly copied: number
  readonly bytes: number
  /** Blobs the target already held at the source's size (an earlier run, or another machine's). */
  readonly alreadyThere: number
  /** Attachments whose blob is in neither store (for `file`: not on this machine). */
  readonly missing: ReadonlyArray<string>
}

const PAGE = 500

/**
 * Copies every blob the service keeps (attachments, raw inbound mail) from `from` to `to`, streamed, two at a time; blobs the target holds at the
 * same size are left alone, so a run can be repeated (after new uploads, or on each machine of a `file` store).
 * Nothing is removed from `from`.
 */
export const migrateBlobs = (from: BlobStore["Type"], to: BlobStore["Type"]) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let copied = 0
    let bytes = 0
    let alreadyThere = 0
    const missing: Array<string> = []
    let after = ""
    for (;;) {
      // Every key the service keeps: attachment ids and the raw sources of inbound mail.
      const rows = yield* sql<{ id: string }>`
        SELECT id FROM (
          SELECT id::text AS id FROM attachments
          UNION ALL SELECT raw_key FROM hd_inbound_mail WHERE raw_key IS NOT NULL) AS keys
        WHERE id COLLATE "C" > ${after} ORDER BY id COLLATE "C" LIMIT ${PAGE}`.pipe(Effect.orDie)
      if (rows.length === 0) break
      after = rows[rows.length - 1]!.id
      yield* Effect.forEach(
        rows,
        ({ id }) =>
          Effect.gen(function* () {
            const source = yield* Effect.option(from.size(id))
            const target = yield* Effect.option(to.size(id))
            if (Option.isSome(target) && (Option.isNone(source) || target.value === source.value)) {
              alreadyThere += 1
              return
            }
            if (Option.isNone(source)) {
              missing.push(id)
              return
            }
            const content = yield* Effect.orDie(from.get(id))
            const stored = yield* to.put(id, content, { maxBytes: Number.MAX_SAFE_INTEGER }).pipe(Effect.orDie)
            copied += 1
            bytes += stored.size
          }),
        { concurrency: 2, discard: true }
      )
    }
    return { copied, bytes, alreadyThere, missing } satisfies BlobMigrationReport
  }).pipe(withSpan("migrateBlobs"))
