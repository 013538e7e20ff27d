import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Duration, Effect } from "effect"
import type { WebhookOptions } from "../src/Webhooks/WebhookOptions.js"
import { defaultWebhookOptions } from "../src/Webhooks/WebhookOptions.js"

/** A request a receiver got. */
export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly status: number
}

/**
 * A webhook receiver on 127.0.0.1 (node:http): records every request and answers the status `respond` picks
 * (default 200). Closed with the scope.
 */
export const receiver = (respond: (request: { readonly body: string; readonly index: number }) => number = () => 200) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly received: Array<Received> }>((resume) => {
      const received: Array<Received> = []
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          const status = respond({ body, index: received.length })
          received.push({ headers: req.headers, body, status })
          res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/hook`, received, server }))
      })
    }),
    (value) =>
      Effect.async<void>((resume) => {
        const server = (value as unknown as { server: ReturnType<typeof createServer> }).server
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/** Fast options for tests: private addresses allowed, short retries and window, quick polling. */
export const testWebhookOptions = (overrides: Partial<WebhookOptions> = {}): WebhookOptions => ({
  ...defaultWebhookOptions,
  allowPrivate: true,
  timeout: Duration.seconds(5),
  retryBase: Duration.millis(50),
  retryCap: Duration.millis(200),
  pollInterval: Duration.millis(20),
  ...overrides
})

/** Waits (real time, up to 60 s: other test files' open transactions may hold the global log back) for `done`. */
export const eventually = <A, R>(what: string, check: Effect.Effect<A | undefined, never, R>) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 60_000
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
    }
  })

/** The URL of the test's own database, for workers with pools of their own. */
export { databaseUrl } from "./support/TestDatabase.js"
