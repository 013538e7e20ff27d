import { Effect } from "effect"
import type { SMTPServer } from "smtp-server"

/**
 * Starts `server` on a free port of 127.0.0.1 and answers the port; the server is closed with the scope. Free of
 * test-runner imports, so the benchmarks can use it too.
 */
export const listenOnFreePort = (server: SMTPServer) =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () => Effect.async<void>((resume) => server.close(() => resume(Effect.void)))
  )
