/**
 * D1 every HTTP method on `tender.handler`, @tender/server's `node:http` listener, mounted at a
 * prefix: TRACE was a 500 there (a fetch `Request` cannot carry it) where the demo answered 405.
 * The cases of packages/http/test/allMethods.ts.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, it } from "vitest"
import { everyMethodAnswered } from "../../http/test/allMethods.js"
import { createTender, type TenderInstance } from "../src/index.js"
import { seedPath } from "./fixtures.js"

let tender: TenderInstance
beforeAll(async () => {
  tender = await createTender({
    publicUrl: "http://tender.test/payments",
    checkoutSecret: "test-secret-123",
    merchants: seedPath,
    logger: { info() {}, warn() {}, error() {} }
  })
})
afterAll(() => tender.close())

it("D1 tender.handler: every method Node accepts on every kind of path -> answered, never a 5xx, Tender's 4xx in the D1 shape", async () => {
  const server = createServer(tender.handler)
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  try {
    await everyMethodAnswered(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "/payments")
  } finally {
    server.closeAllConnections()
    await new Promise((ok) => server.close(ok))
  }
}, 120_000)
