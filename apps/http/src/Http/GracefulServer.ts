import type * as Http from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Duration, Effect, Layer } from "effect"
import { shutdownTimeout } from "../Shutdown.js"

/**
 * Stops a node HTTP server gently: it stops listening (new connections are refused), idle keep-alive connections
 * are closed, answers still in flight are sent with `Connection: close` and their connections closed after them.
 * Waits for them up to `timeout`, then cuts what is left.
 */
const drainable = (create: () => Http.Server) => {
  let server: Http.Server | undefined
  let draining = false
  const inFlight = new Set<Http.ServerResponse>()
  const evaluate = () => {
    const created = create()
    // Registered before the application's handler, so it sees every request first.
    created.on("request", (_request: Http.IncomingMessage, response: Http.ServerResponse) => {
      // The port listens while the services start: a request that early would never be answered.
      if (created.listenerCount("request") === 1) {
        response.writeHead(503, { "content-type": "application/json", "retry-after": "1", connection: "close" })
        response.end(JSON.stringify({ detail: "The service is starting; try again in a moment." }))
        return
      }
      if (draining) response.setHeader("connection", "close")
      inFlight.add(response)
      response.on("close", () => inFlight.delete(response))
    })
    server = created
    return created
  }
  const drain = (timeout: Duration.Duration) =>
    Effect.gen(function* () {
      const current = server
      if (current === undefined || !current.listening) return
      draining = true
      const pending = inFlight.size
      for (const response of inFlight) if (!response.headersSent) response.setHeader("connection", "close")
      const closed = Effect.async<void>((resume) => {
        current.close(() => resume(Effect.void))
        current.closeIdleConnections()
        // A keep-alive connection turns idle once its answer is sent (a streamed one cannot say `close` any more).
        const sweep = setInterval(() => current.closeIdleConnections(), 50)
        return Effect.sync(() => clearInterval(sweep))
      })
      yield* Effect.logInfo(
        `Stopping: no new connections; ${pending} request(s) in flight get up to ${Duration.format(timeout)}`
      )
      // Interruptible, or the timeout could not stop the wait (a finalizer runs uninterruptibly).
      const inTime = yield* Effect.interruptible(closed).pipe(
        Effect.timeoutTo({ duration: timeout, onSuccess: () => true, onTimeout: () => false })
      )
      if (!inTime) {
        yield* Effect.logWarning(
          `Stopping: ${inFlight.size} request(s) still in flight after SHUTDOWN_TIMEOUT; their connections are cut`
        )
        current.closeAllConnections()
      }
    }).pipe(Effect.uninterruptible)
  return { evaluate, drain }
}

/**
 * Serves `app` with a node HTTP server on `listen`, and on shutdown drains it (see `drainable`) before anything
 * else of `app` is released: in-flight requests keep every service they use until they are answered, within
 * `SHUTDOWN_TIMEOUT` (decision 0407).
 */
export const servedGracefully = <E, R>(
  app: Layer.Layer<never, E, R>,
  create: () => Http.Server,
  listen: { readonly host: string; readonly port: number }
) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const timeout = yield* shutdownTimeout
      const server = drainable(create)
      // Built after `app`, so released before it: the finalizer runs while the handlers and services still run.
      return Layer.scopedDiscard(Effect.addFinalizer(() => server.drain(timeout))).pipe(
        Layer.provide(app),
        Layer.provide(NodeHttpServer.layer(server.evaluate, listen))
      )
    })
  )
