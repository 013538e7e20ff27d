import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import S3rver from "s3rver"

/** The credentials `s3rver` accepts, given to the SDK the usual way: `AWS_*` environment variables. */
export const S3_TEST_CREDENTIALS = { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" } as const

/** What a service needs to use the bucket of a {@link localS3}: `BLOB_STORE=s3` and the `S3_*` and `AWS_*` settings. */
export type S3Settings = Record<"BLOB_STORE" | "S3_ENDPOINT" | "S3_BUCKET" | "S3_REGION", string> &
  typeof S3_TEST_CREDENTIALS

/**
 * A local S3-compatible server (`s3rver`, objects in a temporary directory) on a free port of 127.0.0.1 with one
 * empty bucket; closed and its directory removed with the scope.
 */
export const localS3 = Effect.acquireRelease(
  Effect.promise(async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "hd-s3-"))
    const bucket = "helpdesk-test"
    const server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }]
    })
    const { port } = await server.run()
    const settings: S3Settings = {
      BLOB_STORE: "s3",
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: bucket,
      S3_REGION: "us-east-1",
      ...S3_TEST_CREDENTIALS
    }
    return { server, directory, settings }
  }),
  ({ server, directory }) =>
    Effect.promise(async () => {
      await server.close()
      fs.rmSync(directory, { recursive: true, force: true })
    })
).pipe(Effect.map(({ settings }) => settings))
