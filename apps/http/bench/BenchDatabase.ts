import { randomBytes } from "node:crypto"
import * as os from "node:os"
import { Effect } from "effect"
import pg from "pg"

/** Runs one statement on its own connection (for `CREATE`/`DROP DATABASE`, which cannot run in a pool's transaction). */
export const admin = async (url: string, statement: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** `url` pointing at another database of the same server. */
export const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** A database of the benchmark's own beside `baseUrl`'s, named `hd_bench_{label}_…`, dropped afterwards. */
export const benchDatabase = (baseUrl: string, label: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const name = `hd_bench_${label}_${randomBytes(4).toString("hex")}`
      await admin(baseUrl, `CREATE DATABASE "${name}"`)
      return name
    }),
    (name) => Effect.promise(() => admin(baseUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
  )

/** The machine's load averages (1, 5, 15 minutes), printed beside figures that other work skews. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")
