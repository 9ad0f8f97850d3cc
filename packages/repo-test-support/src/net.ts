/**
 * Ports for servers a test or benchmark starts itself.
 */
import { connect, createServer } from "node:net"

/** A loopback port nothing listens on now (the OS picks it; the probe is closed before it returns). */
export const freePort = (): Promise<number> =>
  new Promise<number>((ok, fail) => {
    const probe = createServer()
    probe.once("error", fail)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => (typeof address === "object" && address !== null ? ok(address.port) : fail(new Error("no port"))))
    })
  })

/** What came back on a raw socket: the whole text, the status, the headers (lower-cased), the JSON body. */
export interface RawReply {
  readonly text: string
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: any
}

/**
 * Write `raw` (an HTTP request as bytes, malformed on purpose if need be) on a fresh socket to
 * `port` and read until the server closes it; `keepOpen` leaves the writing side open.
 */
export const rawExchange = (port: number, raw: string, options: { readonly keepOpen?: boolean } = {}): Promise<RawReply> =>
  new Promise<RawReply>((ok, fail) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(raw)
      if (options.keepOpen !== true) socket.end()
    })
    let text = ""
    socket.setEncoding("latin1")
    socket.on("data", (d) => (text += d))
    socket.on("error", fail)
    socket.on("close", () => {
      const [head = "", payload = ""] = text.split("\r\n\r\n")
      const [statusLine = "", ...lines] = head.split("\r\n")
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]))
      ok({ text, status: Number(statusLine.split(" ")[1]), headers, body: payload === "" ? undefined : JSON.parse(payload) })
    })
  })

/** Close servers a test file started, dropping their open connections first (for `afterAll`). */
export const closeServers = (servers: ReadonlyArray<{ closeAllConnections(): void; close(): unknown }>): void => {
  for (const s of servers) {
    s.closeAllConnections()
    s.close()
  }
}
