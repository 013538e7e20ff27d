// Compiles the workspaces (`tsc -b`) for `prepare` and `prestart`. A production install without dev dependencies
// (`npm ci --omit=dev`) has no TypeScript: it skips the build with a message instead of failing with `tsc: not found`.
// Only TypeScript's absence is tolerated: with it installed, a compile error still fails the install or the start.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
let tsc
try {
  tsc = require.resolve("typescript/bin/tsc")
} catch {
  const built = existsSync(new URL("../apps/http/dist/cli.js", import.meta.url))
  console.warn(
    built
      ? "helpdesk: TypeScript is not installed (a production install): the code compiled before is used as it is."
      : "helpdesk: TypeScript is not installed (a production install), so nothing is compiled here. " +
          "Build where dev dependencies are installed: npm ci && npm run build && npm prune --omit=dev (docs/operations.md)."
  )
  process.exit(0)
}
const build = spawnSync(process.execPath, [tsc, "-b", "tsconfig.json"], { stdio: "inherit" })
process.exit(build.status ?? 1)
