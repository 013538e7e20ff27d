import { fileURLToPath } from "node:url"
import type { ViteUserConfig } from "vitest/config"

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** Settings every package's vitest project shares: workspace packages resolve to their sources. */
export const shared: ViteUserConfig = {
  esbuild: { target: "es2022" },
  resolve: {
    alias: {
      "@helpdesk/schedule": src("./packages/schedule/src/index.ts"),
      // Before "@helpdesk/domain", which would otherwise take "@helpdesk/domain/testing" as a path below it.
      "@helpdesk/domain/testing": src("./packages/domain/src/testing.ts"),
      "@helpdesk/domain": src("./packages/domain/src/index.ts")
    }
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Generous: black-box tests build a server and a database, and CI machines may be busy.
    testTimeout: 120_000,
    // A fresh database plus every migration per test file takes a while on 2 cores under load.
    hookTimeout: 180_000
  }
}
