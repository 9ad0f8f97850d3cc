/**
 * The servers the client's tests talk to, on real loopback ports: Tender itself (the HTTP test
 * world of packages/http over the core fixtures, its workers drained on demand) and plain
 * `node:http` servers a test scripts. Not a test file itself.
 */
import * as NodeHttp from "@tender/http/NodeHttp"
import { atFileEnd, closeServers } from "@tender/repo-test-support"
import { createServer, type IncomingMessage, type RequestListener } from "node:http"
import { keys } from "../../core/test/fixtures.js"
import { world } from "../../http/test/d10World.js"
import { TenderClient, type TenderClientOptions } from "../src/index.js"

/** Serve `listener` on a free loopback port; its base URL. */
export const listen = async (listener: RequestListener): Promise<string> => {
  const server = createServer(listener)
  atFileEnd(() => closeServers([server]))
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error("no address")
  return `http://127.0.0.1:${address.port}`
}

/** A request's body, read whole. */
export const bodyOf = async (req: IncomingMessage): Promise<string> => {
  let text = ""
  for await (const chunk of req) text += chunk
  return text
}

/**
 * Tender on a port over a fresh in-memory store, a client for the fixtures' demo test key, and
 * `work()`, which runs every task due (provider calls, webhook deliveries) as the workers would.
 */
export const tender = async (options: Partial<TenderClientOptions> = {}) => {
  const w = await world()
  const url = await listen((req, res) => void w.handler(NodeHttp.toRequest(req)).then((r) => NodeHttp.writeResponse(r, res)))
  const client = new TenderClient({ baseUrl: url, publicKey: keys.demoTest.public, secretKey: keys.demoTest.secret, ...options })
  return { url, client, work: w.work }
}
