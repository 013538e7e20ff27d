import { connect } from "node:net"
import { Effect } from "effect"

/** What to write on the socket: the request line and header lines, and an optional body, byte for byte. */
export interface RawRequest {
  readonly port: number
  readonly host?: string
  /**
   * The request line and header lines, separated by CRLF, without the blank line that ends them (appended here).
   * Written as latin1, so any byte (NUL, 0x80–0xFF) reaches the server unchanged.
   */
  readonly head: string
  /** Sent after the head as is (latin1 when a string): no `Content-Length` is added. */
  readonly body?: string | Uint8Array
  /** Give up after this long (default 5000 ms). */
  readonly timeoutMs?: number
}

/** The first final response read back (1xx interim answers skipped). */
export interface RawResponse {
  readonly status: number
  /** Lower-cased names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The body as UTF-8 text (chunked bodies reassembled). */
  readonly body: string
  /** The body parsed as JSON, or undefined when empty or not JSON. */
  readonly json: unknown
}

const HEAD_END = Buffer.from("\r\n\r\n")

/** Decodes a chunked body; undefined while incomplete. */
const dechunk = (data: Buffer): Buffer | undefined => {
  const parts: Array<Buffer> = []
  let at = 0
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at)
    if (lineEnd < 0) return undefined
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1").split(";")[0]!.trim(), 16)
    if (Number.isNaN(size)) return Buffer.concat(parts)
    if (size === 0) return Buffer.concat(parts)
    const start = lineEnd + 2
    if (data.length < start + size + 2) return undefined
    parts.push(data.subarray(start, start + size))
    at = start + size + 2
  }
}

/** Parses one response from what was read so far; undefined while incomplete (`ended`: the socket closed). */
const parse = (data: Buffer, ended: boolean): RawResponse | undefined => {
  let at = 0
  for (;;) {
    const headEnd = data.indexOf(HEAD_END, at)
    if (headEnd < 0) return undefined
    const lines = data.subarray(at, headEnd).toString("latin1").split("\r\n")
    const status = Number(lines[0]!.split(" ")[1])
    const headers: Record<string, string> = {}
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":")
      if (colon < 0) continue
      const name = line.slice(0, colon).trim().toLowerCase()
      const value = line.slice(colon + 1).trim()
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
    }
    const rest = data.subarray(headEnd + HEAD_END.length)
    if (status >= 100 && status < 200) {
      at = headEnd + HEAD_END.length
      continue
    }
    let body: Buffer | undefined
    if (status === 204 || status === 304) body = Buffer.alloc(0)
    else if (headers["transfer-encoding"]?.toLowerCase().includes("chunked")) body = dechunk(rest)
    else if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"])
      body = rest.length >= length ? rest.subarray(0, length) : undefined
    } else body = ended ? rest : undefined
    if (body === undefined) return undefined
    const text = body.toString("utf8")
    let json: unknown
    try {
      json = text === "" ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status, headers, body: text, json }
  }
}

/**
 * Sends one request over a raw TCP socket and reads the response. For what `fetch` refuses to send or rewrites
 * (a malformed `Host`, bytes the HTTP parser rejects, invalid chunked bodies, oversized headers).
 */
export const rawRequest = (request: RawRequest): Effect.Effect<RawResponse> =>
  Effect.async<RawResponse>((resume) => {
    const socket = connect({ port: request.port, host: request.host ?? "127.0.0.1" })
    let data = Buffer.alloc(0)
    let done = false
    const finish = (outcome: Effect.Effect<RawResponse>) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resume(outcome)
    }
    const timer = setTimeout(
      () => finish(Effect.die(new Error(`no complete response within ${request.timeoutMs ?? 5000} ms`))),
      request.timeoutMs ?? 5000
    )
    const attempt = (ended: boolean) => {
      const parsed = parse(data, ended)
      if (parsed !== undefined) finish(Effect.succeed(parsed))
      else if (ended) finish(Effect.die(new Error(`connection closed before a complete response: ${data}`)))
    }
    socket.on("connect", () => {
      socket.write(Buffer.from(`${request.head}\r\n\r\n`, "latin1"))
      if (request.body !== undefined)
        socket.write(typeof request.body === "string" ? Buffer.from(request.body, "latin1") : request.body)
    })
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk])
      attempt(false)
    })
    socket.on("end", () => attempt(true))
    // The server may reset the connection after its answer (it closed while we were still writing).
    socket.on("error", () => attempt(true))
    socket.on("close", () => attempt(true))
    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
      socket.destroy()
    })
  })
