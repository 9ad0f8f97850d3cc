/**
 * `node:http` glue for the fetch-style handler (docs/embedding.md): an `IncomingMessage` is
 * turned into a `Request` whose body streams from the socket as it is read (never buffered
 * here, so a body over its limit is refused having read at most the limit), and the
 * `Response` is written back. Express's `app.use` takes `middleware` as it is (`Express`);
 * Fastify's plugin is in `Fastify`. No framework is a dependency: these are plain Node types.
 *
 * @since 0.1.0
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import * as RefusedMethods from "./internal/refusedMethods.js"
import type { WebHandler } from "./TenderHttp.js"

/** The URL the request was sent to: a mounting framework may have cut its own prefix off `url`. */
const urlOf = (req: IncomingMessage): string => (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? "/"

/**
 * The body of `req` as a web stream, read as the handler pulls it. Unlike `Readable.toWeb`,
 * cancelling it (Tender stopped reading: a body over its limit) never destroys `req`, which
 * would destroy the socket before the 413 is written: the rest of the body flows to nowhere,
 * and the answer closes the connection.
 */
const bodyOf = (req: IncomingMessage): ReadableStream<Uint8Array> => {
  let done = false
  const stop = () => {
    done = true
    req.off("data", onData)
    req.off("end", onEnd)
    req.off("close", onClose)
    req.resume()
  }
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const onData = (chunk: Buffer) => {
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    if ((controller.desiredSize ?? 0) <= 0) req.pause()
  }
  const onEnd = () => {
    if (done) return
    stop()
    controller.close()
  }
  // A client gone mid-body: the handler sees a failed read (400), never an unhandled error.
  const onClose = () => {
    if (done) return
    stop()
    controller.error(new Error("the request body ended early"))
  }
  // Node emits 'error' on a request whose client reset; with no listener it would end the process.
  req.on("error", () => onClose())
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
      req.on("data", onData)
      req.on("end", onEnd)
      req.on("close", onClose)
      req.pause()
    },
    pull() {
      if (!done) req.resume()
    },
    cancel() {
      if (!done) stop()
    }
  }, { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength })
}

/** A web `Request` reading the body from `req` as the handler pulls it. @since 0.1.0 */
export const toRequest = (req: IncomingMessage): Request => {
  const headers = new Headers()
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
  const host = req.headers.host ?? "localhost"
  const method = req.method ?? "GET"
  const hasBody = method !== "GET" && method !== "HEAD"
  return new Request(`http://${host}${urlOf(req)}`, {
    method,
    headers,
    ...(hasBody ? { body: bodyOf(req), duplex: "half" } : {})
  } as RequestInit)
}

/** Write a web `Response` to `res`. @since 0.1.0 */
export const writeResponse = async (response: Response, res: ServerResponse): Promise<void> => {
  const headers: Record<string, string | Array<string>> = {}
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers["set-cookie"] = cookies
  res.writeHead(response.status, headers)
  if (response.body === null) {
    res.end()
    return
  }
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk)
  res.end()
}

/** Serve one request with Tender, whatever its path (an unknown path gets the D1 404). @since 0.1.0 */
export const serve = async (tender: WebHandler, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  // TRACE and the like cannot be a fetch `Request`: answered as the router answers a method a path lacks.
  if (RefusedMethods.refusedByFetch(req.method ?? "GET")) return RefusedMethods.answer(tender, req.method ?? "GET", urlOf(req), res)
  try {
    await writeResponse(await tender.handler(toRequest(req)), res)
  } catch (error) {
    // The handler renders every failure itself: a rejection is a disposed handler or a socket gone mid-write.
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "application/json" })
      res.end("{\"error\":{\"code\":\"internal_error\",\"message\":\"unexpected failure\",\"request_id\":\"\"}}")
    } else res.destroy(error instanceof Error ? error : undefined)
  }
}

/**
 * Connect-style middleware (Express, Connect, a plain `node:http` chain): Tender's own
 * paths are served, every other request goes to `next()` untouched (its body unread).
 *
 * @since 0.1.0
 */
export const middleware = (tender: WebHandler) => (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void => {
  const url = urlOf(req)
  if (!tender.owns(url)) {
    tender.outside(url, (req as IncomingMessage & { baseUrl?: string }).baseUrl)
    return next()
  }
  void serve(tender, req, res)
}

/**
 * A `node:http` request listener: Tender's own paths, and `fallback` for the rest (default:
 * Tender's D1 404), e.g. `http.createServer(NodeHttp.listener(tender, hostListener))`.
 *
 * @since 0.1.0
 */
export const listener = (
  tender: WebHandler,
  fallback?: (req: IncomingMessage, res: ServerResponse) => void
) =>
(req: IncomingMessage, res: ServerResponse): void => {
  if (fallback !== undefined && !tender.owns(urlOf(req))) {
    tender.outside(urlOf(req))
    return fallback(req, res)
  }
  void serve(tender, req, res)
}
