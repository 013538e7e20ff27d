import * as http from "node:http"

/** What a constant-rate run measured. Latencies are from each request's scheduled start, in milliseconds. */
export interface OpenLoadResult {
  readonly sent: number
  readonly completed: number
  readonly non2xx: number
  readonly errors: number
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  /** Each answered request's latency, by when it was due (ms since the start), in the order answered. */
  readonly timeline: ReadonlyArray<readonly [due: number, latency: number]>
}

/**
 * Sends GET `url` at a constant `rate` (requests per second) for `seconds`, over at most `connections` keep-alive
 * connections: an open-loop load, unlike autocannon's closed loop (a next request only after an answer) and its
 * `overallRate` (each connection sends its share of a second in a burst). Latency runs from when a request was due,
 * so time spent waiting for a free connection counts (no coordinated omission).
 */
export const openLoad = (options: {
  readonly url: string
  readonly headers?: Record<string, string>
  readonly rate: number
  readonly seconds: number
  readonly connections: number
}): Promise<OpenLoadResult> =>
  new Promise((resolve) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections })
    const total = Math.round(options.rate * options.seconds)
    const interval = 1000 / options.rate
    const latencies: Array<number> = []
    const timeline: Array<readonly [number, number]> = []
    let sent = 0
    let completed = 0
    let non2xx = 0
    let errors = 0
    const start = performance.now()
    const finish = () => {
      if (completed + errors < total) return
      agent.destroy()
      latencies.sort((a, b) => a - b)
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
      resolve({
        sent,
        completed,
        non2xx,
        errors,
        requestsPerSecond: completed / ((performance.now() - start) / 1000),
        p50: Math.round(at(0.5)),
        p99: Math.round(at(0.99)),
        timeline
      })
    }
    const send = (due: number) => {
      sent++
      const request = http.get(options.url, { agent, headers: options.headers }, (response) => {
        response.resume()
        response.on("end", () => {
          const latency = performance.now() - due
          latencies.push(latency)
          timeline.push([due - start, latency])
          completed++
          if (response.statusCode === undefined || response.statusCode >= 300) non2xx++
          finish()
        })
      })
      request.on("error", () => {
        errors++
        finish()
      })
    }
    const tick = () => {
      const now = performance.now()
      while (sent < total && start + sent * interval <= now) send(start + sent * interval)
      if (sent < total) setTimeout(tick, 1)
    }
    tick()
  })
