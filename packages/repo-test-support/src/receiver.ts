/**
 * A webhook receiver on loopback for delivery tests: it records every request, and its path
 * says how it answers: `/flaky…` 500 to the first delivery of each event then 200, `/down…`
 * always 500, `/hang…` never, `/slow…` 200 after `slowMillis`, anything else 200 at once.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { closeServers } from "./net.js"

/** One request the receiver got. */
export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** When it arrived (`Date.now()`). */
  readonly at: number
}

const servers: Array<Server> = []

/** How long a `/slow…` path takes to answer. */
export const slowMillis = 2_500

/** Start a receiver; `url(path)` addresses it, `received` fills as deliveries arrive. */
export const receiver = async () => {
  const received: Array<Received> = []
  const seen = new Map<string, number>()
  const server = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const path = req.url ?? "/"
      received.push({ path, headers: req.headers, body, at: Date.now() })
      const n = (seen.get(`${path} ${req.headers["webhook-id"]}`) ?? 0) + 1
      seen.set(`${path} ${req.headers["webhook-id"]}`, n)
      if (path.startsWith("/hang")) return
      if (path.startsWith("/slow")) return void setTimeout(() => res.end("ok"), slowMillis).unref()
      res.statusCode = path.startsWith("/down") || (path.startsWith("/flaky") && n === 1) ? 500 : 200
      res.end("ok")
    })
  })
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  servers.push(server)
  return { url: (path: string) => `http://127.0.0.1:${port}${path}`, received }
}

/** Close every receiver started in this process (a test file's `afterAll`). */
export const closeReceivers = (): void => {
  closeServers(servers.splice(0))
}
