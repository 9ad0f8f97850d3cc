/**
 * A host process for ProcessExit.test.ts (not a test file itself): `createTender` with its
 * workers on, then a server of the host's own that holds the event loop while a payment is
 * confirmed and the workers run its task, then closes, as a host whose server failed to listen
 * is left. Nothing of Tender is closed: the process must exit by itself. Storage from argv:
 * `memory`, or `postgres <tablePrefix>` on the test database with a pool that lets the process
 * exit when it is idle (docs/embedding.md, "Shutdown").
 */
import { promptpay, testDatabaseUrl } from "@tender/repo-test-support"
import { createServer } from "node:http"
import pg from "pg"
import { createTender } from "../src/index.js"
import { seedPath as merchants } from "./fixtures.js"

const [store, tablePrefix] = process.argv.slice(2)
const storage = store === "postgres"
  ? { postgres: new pg.Pool({ connectionString: testDatabaseUrl, max: 3, allowExitOnIdle: true }), tablePrefix }
  : { memory: true as const }
const tender = await createTender({
  publicUrl: "http://127.0.0.1/payments",
  checkoutSecret: "test-secret-123",
  merchants,
  storage,
  logger: { info() {}, warn() {}, error: (_: unknown, message: string) => void process.stderr.write(`${message}\n`) }
})
const server = createServer(tender.handler)
await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
const demo = { merchant: "mch_demo", environment: "test" } as const
const paid = await tender.paymentIntents.create(promptpay, demo)
await tender.paymentIntents.confirm(paid.id, demo)
while ((await tender.paymentIntents.retrieve(paid.id, demo)).status !== "succeeded") await new Promise((r) => setTimeout(r, 20))
process.stdout.write("ran while serving\n")
await new Promise<void>((ok, ko) => server.close((e) => (e === undefined ? ok() : ko(e))))
process.stdout.write("server closed\n")
