/**
 * `npm run lint:openapi`: writes the served OpenAPI document (as `/openapi.json` answers it without
 * `PUBLIC_BASE_URL`) to a temporary file and lints it with Redocly's recommended rules (`redocly.yaml`).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { OpenApi } from "@effect/platform"
import { Option } from "effect"
import { Api } from "../src/Api.js"
import { servedApi } from "../src/Http/OpenApiDocs.js"

const dir = mkdtempSync(join(tmpdir(), "helpdesk-openapi-"))
const file = join(dir, "openapi.json")
let status = 1
try {
  writeFileSync(file, JSON.stringify(OpenApi.fromApi(servedApi(Api, Option.none())), null, 2))
  const config = fileURLToPath(new URL("../redocly.yaml", import.meta.url))
  const result = spawnSync("redocly", ["lint", file, "--config", config], {
    stdio: "inherit",
    // No telemetry or update check: a lint run must not depend on the network.
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
  })
  if (result.error) console.error(`redocly could not run (use \`npm run lint:openapi\`): ${result.error.message}`)
  status = result.status ?? 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
process.exit(status)
