#!/usr/bin/env node
// The compiled CLI lives in dist/ (built by `npm install`/`npm ci` through the root `prepare` script, or `npm run build`).
import { existsSync } from "node:fs"

const compiled = new URL("../dist/cli.js", import.meta.url)
if (!existsSync(compiled)) {
  // A production install (`npm ci --omit=dev`) has no TypeScript to build with: say so instead of a module error.
  console.error(
    "Error: helpdesk is not built (apps/http/dist is missing). Build it where dev dependencies are installed: " +
      "npm ci && npm run build && npm prune --omit=dev (see docs/operations.md)."
  )
  process.exit(1)
}
await import(compiled.href)
