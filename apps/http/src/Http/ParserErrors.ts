import { createServer, type Server } from "node:http"
import type { Duplex } from "node:stream"

/** Status, reason phrase and `detail` of a request Node's HTTP parser refused, by the parser's error code. */
const answerOf = (code: string | undefined): readonly [number, string, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request Header Fields Too Large", "Request header fields too large."]
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [413, "Payload Too Large", "Chunk extensions are too large."]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request Timeout", "Request timeout."]
    default:
      return [400, "Bad Request", "Bad request."]
  }
}

/**
 * Answers a request the HTTP parser refused (bad bytes in the request line or a header, oversized headers or
 * query, a malformed chunked body) in the wire shape, `{"detail": "…"}`, where Node would answer an empty body;
 * then closes the connection, whose framing can no longer be trusted. Nothing is written once an answer to the
 * request has begun, or on a socket the client already closed.
 */
export const answerClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  const inFlight = (socket as { readonly _httpMessage?: { readonly headersSent?: boolean } })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const [status, reason, detail] = answerOf(error.code)
  const body = JSON.stringify({ detail })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "X-Content-Type-Options: nosniff\r\n" +
      "Connection: close\r\n" +
      `\r\n${body}`
  )
}

/**
 * The service's `http.Server`: Node's own, answering what its parser refuses with {@link answerClientError}.
 * Repeated headers are joined rather than all but the first dropped, so two `Host` headers make one invalid
 * value (a 400, as RFC 9112 asks) instead of the first one silently winning.
 */
export const createHttpServer = (): Server =>
  createServer({ joinDuplicateHeaders: true }).on("clientError", answerClientError)
