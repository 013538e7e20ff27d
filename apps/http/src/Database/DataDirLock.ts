import * as fs from "node:fs"
import * as path from "node:path"

/** What the owner of an embedded data directory writes into its lock file. */
export interface LockOwner {
  readonly pid: number
  readonly startedAt: string
  /** When the kernel started the owner (Linux `/proc`), so a later process given the same pid is not taken for it. */
  readonly processStart?: string | null
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

/** The start time of a process in clock ticks since boot (Linux), or null where `/proc` does not tell. */
const processStartOf = (pid: number): string | null => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may hold spaces and parentheses); the start time is field 22.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null
  } catch {
    return null
  }
}

// A container's process is often pid 1 at every start: a lock left by a killed one names a pid that runs again.
const isRunning = (owner: LockOwner) =>
  isAlive(owner.pid) &&
  (owner.processStart == null || processStartOf(owner.pid) === null || processStartOf(owner.pid) === owner.processStart)

const readOwner = (file: string): LockOwner | null => {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as LockOwner
  } catch {
    return null
  }
}

// The owner's record written whole beside the lock, then put in place by one link or rename: a reader never sees
// the lock file empty or half written (which it would take for a stale lock and remove).
const writeBeside = (file: string, owner: LockOwner): string => {
  const draft = `${file}.${process.pid}.tmp`
  fs.writeFileSync(draft, JSON.stringify(owner), { mode: 0o600 })
  return draft
}

/**
 * Takes the lock of an embedded data directory, so that only one process ever opens it.
 * A lock left by a process that no longer runs is taken over.
 */
export const tryLockDataDir = (dataDir: string): LockAttempt => {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = path.join(dataDir, "helpdesk.lock")
  const startedAt = new Date().toISOString()
  const processStart = processStartOf(process.pid)
  const owner = (endpoint: SocketEndpoint | null): LockOwner => ({
    pid: process.pid,
    startedAt,
    processStart,
    endpoint
  })
  for (let attempt = 0; attempt < 3; attempt++) {
    const draft = writeBeside(file, owner(null))
    try {
      // Fails with EEXIST when the lock is there: taking it and writing its owner are one step.
      fs.linkSync(draft, file)
      fs.rmSync(draft, { force: true })
      const release = () => {
        process.off("exit", release)
        if (readOwner(file)?.pid === process.pid) fs.rmSync(file, { force: true })
      }
      // A process ended by `process.exit` (a shutdown past its timeout) runs no finalizers: release on exit too.
      process.on("exit", release)
      return {
        _tag: "Acquired",
        publish: (endpoint) => fs.renameSync(writeBeside(file, owner(endpoint)), file),
        release
      }
    } catch (error) {
      fs.rmSync(draft, { force: true })
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      const holder = readOwner(file)
      if (holder && isRunning(holder)) return { _tag: "HeldBy", owner: holder }
      // A stale lock (its process is gone, or an older version left it unwritten): take it over.
      fs.rmSync(file, { force: true })
    }
  }
  throw new Error(`Could not take the lock ${file}`)
}
