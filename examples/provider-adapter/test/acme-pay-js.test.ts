/**
 * The plain-JavaScript Acme adapter (src/acme-pay.js, `defineProvider`) installed with
 * `createTender` beside the simulator, driven through the Promise API alone, against the same
 * local stand-in for Acme as the Effect adapter's test.
 */
import { promptpayNamed } from "@tender/repo-test-support"
import { createTender, isTenderError } from "@tender/server"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "vitest"
import { acmePay } from "../src/acme-pay.js"
import { FakeAcme } from "../src/index.js"

const acme = await FakeAcme.start()
const warnings: Array<string> = []
const tender = await createTender({
  publicUrl: "https://pay.example.test",
  checkoutSecret: "test-secret",
  merchants: fileURLToPath(new URL("../seed.json", import.meta.url)),
  providers: [acmePay({ apiKey: "acme_test_key", baseUrl: acme.url, timeoutMillis: 2_000 })],
  logger: { info() {}, warn: (fields, message) => void warnings.push(`${message} ${JSON.stringify(fields)}`), error() {} },
  workers: { pollMillis: 20 }
})
afterAll(async () => {
  await tender.close()
  await acme.close()
})

const live = { merchant: "mch_demo", environment: "live" } as const
const until = async <A>(read: () => Promise<A>, done: (a: A) => boolean) => {
  let value = await read()
  for (let i = 0; i < 200 && !done(value); i++) {
    await new Promise((r) => setTimeout(r, 20))
    value = await read()
  }
  return value
}

describe("acme-pay.js: a Promise adapter through defineProvider", () => {
  it("a live create reaches Acme with our id as its idempotency key; confirm pays it; a refund goes to Acme under the refund's id", async () => {
    const created = await tender.paymentIntents.create(promptpayNamed, live)
    assert.strictEqual(created.status, "requires_action")
    assert.strictEqual(created.next_action?.type, "display_qr_code")
    assert.strictEqual(acme.seen.find((c) => c.path === "/v1/charges" && c.idempotencyKey === created.id)?.idempotencyKey, created.id)
    await tender.paymentIntents.confirm(created.id, live)
    assert.strictEqual((await until(() => tender.paymentIntents.retrieve(created.id, live), (p) => p.status === "succeeded")).status, "succeeded")
    const refund = await tender.refunds.create({ payment_intent: created.id, amount: "50000" }, live)
    assert.strictEqual((await until(() => tender.refunds.retrieve(refund.id, live), (r) => r.status !== "pending")).status, "succeeded")
    assert.deepStrictEqual(acme.seen.find((c) => c.path.endsWith("/refunds"))?.body, { reference: refund.id, amount: "50000" })
  })

  it("a throw is the provider unavailable: 422 routing_unavailable, and the reason in the host's logger", async () => {
    acme.failNext(1)
    const refused = await tender.paymentIntents.create(promptpayNamed, live).catch((e: unknown) => e)
    assert.isTrue(isTenderError(refused))
    assert.deepInclude(refused as object, { status: 422, code: "routing_unavailable" })
    assert.isTrue(warnings.some((w) => w.includes("HTTP 503")), JSON.stringify(warnings))
  })
})
