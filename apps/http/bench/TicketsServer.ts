import { fileURLToPath } from "node:url"
import * as Benchmark from "./Benchmark.js"

const SCRIPT = fileURLToPath(new URL("./TicketsHttpServer.ts", import.meta.url))

/** What `TicketsHttpServer.ts` in `BENCH_MODE=app` is ready with: the service, a token, its seeded tickets. */
export interface ServiceReady {
  readonly port: number
  readonly token: string
  readonly organizationPath: string
  readonly organizationId: string
  readonly ticketIds: ReadonlyArray<number>
  readonly customerIds: ReadonlyArray<number>
}

/** What the bare servers (`BENCH_MODE=baseline` and `floor`) are ready with. */
export interface BareReady {
  readonly port: number
}

/**
 * The service as served, on database `url`, in a child process: `env` adds settings (`BENCH_TICKETS`,
 * `BENCH_MESSAGES`: how many tickets it seeds, and replies to its first), `nodeFlags` flags to its command line.
 */
export const serviceProcess = (
  url: string,
  options: { readonly env?: Record<string, string>; readonly nodeFlags?: ReadonlyArray<string> } = {}
) =>
  Benchmark.serverProcess<ServiceReady>(
    SCRIPT,
    { ...options.env, BENCH_MODE: "app", BENCH_DATABASE_URL: url },
    { nodeFlags: options.nodeFlags ?? [] }
  )

/** A bare server (`baseline` or `floor`) answering for the service's organization `organizationId`. */
export const bareProcess = (mode: "baseline" | "floor", url: string, organizationId: string) =>
  Benchmark.serverProcess<BareReady>(SCRIPT, {
    BENCH_MODE: mode,
    BENCH_DATABASE_URL: url,
    BENCH_ORGANIZATION_ID: organizationId
  })
