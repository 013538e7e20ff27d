import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { bindable, freePort, isRunning } from "./support/ServiceProcess.js"

// `npm start` exactly as the README says, from the repository root: the process systemd or a terminal signals.
const repositoryRoot = fileURLToPath(new URL("../../..", import.meta.url))

/** The processes `pid` started (Linux `/proc`). */
const childrenOf = (pid: number): ReadonlyArray<number> =>
  fs
    .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "")
    .map(Number)

describe("npm start", () => {
  it("given the service started with npm start, SIGTERM to npm stops the service: exit 0, no orphan, port and lock free", async () => {
    const port = await freePort()
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hd-npm-start-"))
    const { DATABASE_URL: _, ...environment } = process.env
    const npm = spawn("npm", ["start"], {
      cwd: repositoryRoot,
      env: { ...environment, HOST: "127.0.0.1", PORT: String(port), DATA_DIR: dataDir, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    npm.stdout!.on("data", (chunk) => (output += chunk))
    npm.stderr!.on("data", (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)))
    try {
      let up = false
      for (let i = 0; i < 1200 && !up && npm.exitCode === null; i++) {
        up = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
          (r) => r.ok,
          () => false
        )
        if (!up) await new Promise((r) => setTimeout(r, 100))
      }
      expect(up, output).toBe(true)
      // npm's own child is the node server itself (`exec`), not a shell that would keep it from the signal.
      const [server] = childrenOf(npm.pid!)
      expect(server, output).toBeDefined()
      expect(fs.readFileSync(`/proc/${server}/cmdline`, "utf8")).toContain("helpdesk.js")

      npm.kill("SIGTERM")
      const code = await Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000))])
      expect(code, output).toBe(0)
      expect(isRunning(server!), "the node server outlived npm").toBe(false)
      expect(await bindable(port)).toBe(true)
      expect(fs.existsSync(path.join(dataDir, "helpdesk.lock"))).toBe(false)
    } finally {
      if (npm.exitCode === null) npm.kill("SIGKILL")
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
