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
