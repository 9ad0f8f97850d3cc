/**
 * Errors Node's HTTP server answers before any handler runs, in the D1 error shape.
 *
 * Headers too large (431), a client too slow to send its request (408), a request Node cannot
 * parse (400: conflicting `Content-Length` and `Transfer-Encoding`, a bad header) and an
 * HTTP/1.1 request without `Host` (400) and an `Expect` other than `100-continue` (417) never reach Tender: by default Node answers them with
 * an empty body or closes the socket. `install(server)` makes a `node:http` server answer each
 * with a D1 JSON body and `Connection: close` (docs/reliability.md, "Client errors"). A host
 * with its own `node:http`, Express or Fastify server calls it once on that server.
 *
 * @since 0.1.0
 */
import { Ids } from "@tender/core"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import * as Linger from "./internal/linger.js"
import * as Settle from "./internal/settle.js"

/** @since 0.1.0 @category models */
export interface ClientError {
  readonly status: 400 | 405 | 408 | 417 | 431
  readonly code: "validation_failed" | "request_timeout" | "method_not_allowed"
  readonly message: string
  readonly param?: string | undefined
}

const reasons = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large"
} as const

/**
 * What to answer for a `clientError` (Node's error `code`s from its parser and timers).
 *
 * @since 0.1.0
 */
export const classify = (error: { readonly code?: string | undefined }): ClientError => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, code: "validation_failed", message: "The request headers are larger than this server accepts." }
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "HPE_HEADERS_TIMEOUT":
      return { status: 408, code: "request_timeout", message: "The request was not received in time; send it again." }
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
    case "HPE_INVALID_TRANSFER_ENCODING":
      return {
        status: 400,
        code: "validation_failed",
        message: "The request has both Content-Length and Transfer-Encoding, or a Transfer-Encoding this server does not accept."
      }
    default:
      return { status: 400, code: "validation_failed", message: "The request is not valid HTTP/1.1." }
  }
}

/**
 * A complete raw HTTP/1.1 response for `error`: D1 body, `Request-Id`, `Connection: close`.
 *
 * @since 0.1.0
 */
export const render = (error: ClientError): string => {
  const requestId = `${Ids.prefixes.request}${Ids.randomBase62()}`
  const body = JSON.stringify({
    error: { code: error.code, message: error.message, ...(error.param === undefined ? {} : { param: error.param }), request_id: requestId }
  })
  return [
    `HTTP/1.1 ${error.status} ${reasons[error.status]}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Request-Id: ${requestId}`,
    "Connection: close",
    "",
    body
  ].join("\r\n")
}

/**
 * A `clientError` listener: answers in the D1 shape when the socket can still take an answer,
 * then closes it. A reset by the client (`ECONNRESET`) is answered with nothing.
 *
 * @since 0.1.0
 */
export const onClientError = (error: Error & { readonly code?: string | undefined }, socket: Duplex): void => {
  // A response already begun on this socket (a handler answered before the body was complete)
  // cannot be followed by another: close, as Node's own handler does.
  const begun = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true
  // Answered already: the parser goes on failing on the bytes the client still sends; they are dropped.
  if (Linger.isClosing(socket) && error.code !== "ECONNRESET") return
  if (error.code === "ECONNRESET" || !socket.writable || begun) {
    socket.destroy()
    return
  }
  // Lingering, so the bytes the client is still sending do not reset the connection over the answer.
  Linger.close(socket as Socket, render(classify(error)))
}

const missingHost: ClientError = {
  status: 400,
  code: "validation_failed",
  param: "Host",
  message: "An HTTP/1.1 request must carry a Host header."
}

const connectRefused: ClientError = {
  status: 405,
  code: "method_not_allowed",
  message: "CONNECT is not allowed: this server is not a proxy."
}

const unmetExpectation: ClientError = {
  status: 417,
  code: "validation_failed",
  param: "Expect",
  message: "The only Expect this server meets is 100-continue."
}

/**
 * Make `server` answer client errors in the D1 shape: the `clientError` listener above, an
 * HTTP/1.1 request without `Host` (which Node would answer with an empty 400) answered with a
 * D1 400 before any `request` listener sees it, an unmet `Expect` with a D1 417 and CONNECT with a D1 405. Its
 * connections close lingering (`internal/linger.ts`), and an answer to a client already gone
 * settles (`internal/settle.ts`). Call once, before `listen`.
 *
 * @since 0.1.0
 */
export const install = <S extends Server>(server: S): S => {
  server.on("clientError", onClientError)
  // An answer given before the body was read reaches the client, not a reset (internal/linger.ts).
  Linger.install(server) // Node's own check answers an empty body; take it over. The request never reaches a listener,
   // so no handler sees a request it cannot build a URL for.
  // (`requireHostHeader` is the server option, kept on the instance; @types/node does not list it.)
  ;(server as { requireHostHeader?: boolean }).requireHostHeader = false
  // An `Expect` other than 100-continue: Node would answer an empty 417 (found by the crash fuzzer).
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    response.shouldKeepAlive = false
    request.socket.end(render(unmetExpectation))
  })
  // CONNECT (a proxy tunnel): Node would close the socket without a word.
  server.on("connect", (_request: IncomingMessage, socket: Duplex) => Linger.close(socket as Socket, render(connectRefused)))
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>) => {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse]
      // An answer to a client already gone still settles, so its request is freed (internal/settle.ts).
      Settle.install(response)
      if (request.httpVersion === "1.1" && request.headers.host === undefined) {
        response.shouldKeepAlive = false
        request.socket.end(render(missingHost))
        return true
      }
    }
    return emit(event, ...args)
  }) as S["emit"]
  return server
}
