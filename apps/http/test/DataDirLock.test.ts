import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { tryLockDataDir } from "../src/Database/DataDirLock.js"

const freshDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "hd-lock-"))
const lockOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "helpdesk.lock"), "utf8"))
// Only the lock itself: every owner record is written beside it and moved in whole.
const filesIn = (dir: string) => fs.readdirSync(dir).sort()

describe("the embedded DATA_DIR's lock file", () => {
  it("given a free directory, taking the lock writes the whole owner at once and publishing replaces it whole", () => {
    const dir = freshDir()
    const attempt = tryLockDataDir(dir)
    expect(attempt._tag).toBe("Acquired")
    if (attempt._tag !== "Acquired") return
    expect(lockOf(dir)).toMatchObject({ pid: process.pid, endpoint: null })
    expect(filesIn(dir)).toEqual(["helpdesk.lock"])
    attempt.publish({ host: "/tmp/socket", port: 5432 })
    expect(lockOf(dir)).toMatchObject({ pid: process.pid, endpoint: { host: "/tmp/socket", port: 5432 } })
    expect(filesIn(dir)).toEqual(["helpdesk.lock"])
    // A running owner holds it against everyone else.
    expect(tryLockDataDir(dir)).toMatchObject({ _tag: "HeldBy", owner: { pid: process.pid } })
    attempt.release()
    expect(filesIn(dir)).toEqual([])
  })

  it("given a lock whose process is gone, or one left empty by an older version, the next process takes it over", () => {
    for (const left of [JSON.stringify({ pid: 2 ** 22 + 7, startedAt: "2026-01-01T00:00:00Z", endpoint: null }), ""]) {
      const dir = freshDir()
      fs.writeFileSync(path.join(dir, "helpdesk.lock"), left)
      const attempt = tryLockDataDir(dir)
      expect(attempt._tag).toBe("Acquired")
      expect(lockOf(dir)).toMatchObject({ pid: process.pid })
      if (attempt._tag === "Acquired") attempt.release()
    }
  })
})
