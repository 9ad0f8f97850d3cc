/**
 * A fault proxy: a real HTTP proxy between Tender and a provider's stand-in that forwards every
 * request and, for the requests a test names, drops the answer after the stand-in has acted on
 * it (the connection to Tender is destroyed once the stand-in's whole answer is in). The fault a
 * timeout, a reset or a lost answer after sending makes: the provider did the work, Tender never
 * hears of it (docs/reliability.md "Lost provider answers").
 */
import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"

/** Which requests lose their answer: by method and path (the query excluded). */
export type Drop = (method: string, path: string) => boolean

/** A running proxy. */
export interface FaultProxy {
  /** Where Tender sends its requests (`http://127.0.0.1:port`, or `https:` with `tls`). */
  readonly url: string
  /** From now on the requests `drop` names are forwarded and their answers lost; `null`: none. */
  readonly dropAnswers: (drop: Drop | null) => void
  /** The requests whose answers were dropped, `METHOD path` in order. */
  readonly dropped: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

/** The proxy's own certificate and the CA it trusts upstream, for an `https:` target (TestTls's). */
export interface Tls {
  readonly key: string
  readonly cert: string
  readonly ca: string
}

/**
 * Start a proxy to `target`, an `http:` base address, or an `https:` one with `tls`: then the
 * proxy serves HTTPS with `tls`'s certificate too (a client that speaks HTTPS only, as Adyen's SDK
 * does, reaches it as it would the stand-in) and trusts `tls.ca` upstream.
 */
export const start = async (target: string, tls?: Tls): Promise<FaultProxy> => {
  const upstream = new URL(target)
  let drop: Drop | null = null
  const dropped: Array<string> = []
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!
    const lose = drop?.(req.method ?? "GET", path) === true
    const options = {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host }
    }
    const forward = (tls === undefined ? http.request : https.request)(tls === undefined ? options : { ...options, ca: tls.ca }, (answer) => {
      const chunks: Array<Buffer> = []
      answer.on("data", (c: Buffer) => chunks.push(c))
      answer.on("end", () => {
        if (lose) {
          // The stand-in answered: the answer never reaches Tender.
          dropped.push(`${req.method} ${path}`)
          req.socket.destroy()
          return
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        res.end(Buffer.concat(chunks))
      })
    })
    forward.on("error", () => req.socket.destroy())
    req.pipe(forward)
  }
  const server = tls === undefined ? http.createServer(handle) : https.createServer({ key: tls.key, cert: tls.cert }, handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    dropAnswers: (d) => {
      drop = d
    },
    dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
