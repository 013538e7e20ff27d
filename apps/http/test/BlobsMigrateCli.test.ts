import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { OrganizationId } from "@helpdesk/domain"
import { Chunk, ConfigProvider, Context, Effect, Layer, Stream } from "effect"
import { BlobStore, type BlobStoreKind, blobStoreLayer } from "../src/Attachments/BlobStore.js"
import { PendingAttachments } from "../src/Attachments/PendingAttachments.js"
import { CliDatabase, CliError, runCli } from "../src/Cli/Commands.js"
import { Output } from "../src/Cli/Output.js"
import type * as PgPool from "../src/Database/PgPool.js"
import { localS3, S3_TEST_CREDENTIALS } from "./support/S3Server.js"
import { TestDatabaseLive } from "./support/TestDatabase.js"

Object.assign(process.env, S3_TEST_CREDENTIALS)

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hd-blobs-migrate-"))

/** Runs `helpdesk <args>` in-process on the test database with these settings only; what it printed as JSON. */
const helpdesk = (settings: Record<string, string>, ...args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const database = yield* Effect.context<SqlClient.SqlClient | PgPool.PgPool>()
    const printed: Array<Record<string, unknown>> = []
    const output = Layer.succeed(Output, { result: (value) => Effect.sync(() => void printed.push(value)) })
    const result = yield* runCli(["node", "helpdesk", ...args]).pipe(
      Effect.provide(
        Layer.mergeAll(NodeContext.layer, output, Layer.succeed(CliDatabase, Layer.succeedContext(database)))
      ),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ DATA_DIR: dataDir, ...settings })))),
      Effect.either
    )
    return { printed, result }
  })

/** The store of `kind` under these settings, for the test to look into. */
const store = (kind: BlobStoreKind, settings: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const context = yield* Layer.build(
      blobStoreLayer(kind).pipe(
        Layer.provide(Layer.succeed(SqlClient.SqlClient, sql)),
        Layer.provide(
          Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ DATA_DIR: dataDir, ...settings }))))
        )
      )
    )
    return Context.get(context, BlobStore)
  })

const read = (blobs: BlobStore["Type"], key: string) =>
  Effect.flatMap(blobs.get(key), (stream) =>
    Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(Chunk.toArray(chunks)))
  )

layer(TestDatabaseLive, { excludeTestServices: true, timeout: "120 seconds" })("helpdesk blobs migrate", (it) => {
  it.scoped("copies every attachment's file to the new store, once; repeatable; names the missing ones", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`INSERT INTO organizations (id, public_id, name, search_name) VALUES (1, 'one', 'One', 'one')`
      const files = yield* store("file")
      const attachments = yield* PendingAttachments.pipe(
        Effect.provide(
          PendingAttachments.DefaultWithoutDependencies.pipe(Layer.provide(Layer.succeed(BlobStore, files)))
        ),
        Effect.provide(Layer.succeed(SqlClient.SqlClient, sql))
      )
      const contents = [randomBytes(2 * 1024 * 1024 + 17), randomBytes(10), randomBytes(5)]
      const uploaded = yield* Effect.forEach(contents, (content, i) =>
        attachments.upload({
          organizationId: OrganizationId.make("1"),
          caller: { _tag: "Person", userId: 1, tokenId: 1 },
          fileName: `f${i}.bin`,
          contentType: "application/octet-stream",
          content: Stream.make(content)
        })
      )
      // One file was lost on this machine (or lives on another's disk).
      yield* files.remove(uploaded[2]!.id)

      const first = yield* helpdesk({}, "blobs", "migrate", "--to", "postgres")
      expect(first.result._tag).toBe("Right")
      expect(first.printed).toEqual([
        {
          from: "file",
          to: "postgres",
          copied: 2,
          bytes: contents[0]!.length + contents[1]!.length,
          alreadyThere: 0,
          missing: [uploaded[2]!.id]
        }
      ])
      const postgres = yield* store("postgres")
      for (const i of [0, 1]) expect((yield* read(postgres, uploaded[i]!.id)).equals(contents[i]!)).toBe(true)
      expect((yield* postgres.size(uploaded[2]!.id).pipe(Effect.flip))._tag).toBe("BlobNotFound")

      const again = yield* helpdesk({}, "blobs", "migrate", "--to", "postgres")
      expect(again.printed[0]).toMatchObject({ copied: 0, alreadyThere: 2, missing: [uploaded[2]!.id] })

      // From the configured store (BLOB_STORE) to S3.
      const s3Settings = yield* localS3
      const toS3 = yield* helpdesk({ ...s3Settings, BLOB_STORE: "postgres" }, "blobs", "migrate", "--to", "s3")
      expect(toS3.printed[0]).toMatchObject({ from: "postgres", to: "s3", copied: 2, alreadyThere: 0 })
      const s3 = yield* store("s3", s3Settings)
      for (const i of [0, 1]) expect((yield* read(s3, uploaded[i]!.id)).equals(contents[i]!)).toBe(true)
    })
  )

  it.effect("refuses to copy a store onto itself, and a store it does not know", () =>
    Effect.gen(function* () {
      const same = yield* helpdesk({ BLOB_STORE: "postgres" }, "blobs", "migrate", "--to", "postgres")
      expect(same.result._tag).toBe("Left")
      const refusal = (same.result as { left: unknown }).left
      expect(refusal).toBeInstanceOf(CliError)
      expect((refusal as CliError).message).toBe(
        "Attachments are in the postgres store already: name another with --to."
      )
      const unknown = yield* helpdesk({}, "blobs", "migrate", "--to", "disk")
      expect(unknown.result._tag).toBe("Left")
      expect(unknown.printed).toEqual([])
      const none = yield* helpdesk({}, "blobs", "migrate")
      expect(none.result._tag).toBe("Left")
    })
  )
})
