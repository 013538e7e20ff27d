import * as fs from "node:fs"
import * as path from "node:path"

/** What the owner of an embedded data directory writes into its lock file. */
export interface LockOwner {
  readonly pid: number
  readonly startedAt: string
  /** Where other processes reach the database through the owner's socket server; null while starting. */
  readonly endpoint: SocketEndpoint | null
}

/** A PostgreSQL wire-protocol endpoint: a unix-socket directory (port names the socket file) or a TCP host. */
export interface SocketEndpoint {
  readonly host: string
  readonly port: number
}

/** The outcome of trying to take a data directory's lock. */
export type LockAttempt =
  | { readonly _tag: "Acquired"; readonly publish: (endpoint: SocketEndpoint) => void; readonly release: () => void }
  | { readonly _tag: "HeldBy"; readonly owner: LockOwner }

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const readOwner = (file: string): LockOwner | null => {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as LockOwner
  } catch {
    return null
  }
}

/**
 * Takes the lock of an embedded data directory, so that only one process ever opens it.
 * A lock left by a process that no longer runs is taken over.
 */
export const tryLockDataDir = (dataDir: string): LockAttempt => {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = path.join(dataDir, "helpdesk.lock")
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, "wx", 0o600)
      const startedAt = new Date().toISOString()
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, startedAt, endpoint: null } satisfies LockOwner))
      fs.closeSync(fd)
      return {
        _tag: "Acquired",
        publish: (endpoint) =>
          fs.writeFileSync(file, JSON.stringify({ pid: process.pid, startedAt, endpoint } satisfies LockOwner)),
        release: () => {
          if (readOwner(file)?.pid === process.pid) fs.rmSync(file, { force: true })
        }
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      const owner = readOwner(file)
      if (owner && isAlive(owner.pid)) return { _tag: "HeldBy", owner }
      // A stale lock (its process is gone, or it was never written through): take it over.
      fs.rmSync(file, { force: true })
    }
  }
  throw new Error(`Could not take the lock ${file}`)
}
