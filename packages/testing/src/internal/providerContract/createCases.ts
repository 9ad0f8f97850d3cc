/**
 * Provider contract: create (4.1, D11). Tender's payment intent id is the provider's
 * idempotency key, so a create sent again (a retry, a task run twice) reaches the payment the
 * provider already holds; the payer action is the one the method declares.
 */
import { Effect } from "effect"
import { assert, it } from "vitest"
import { paymentsAt } from "./checks.js"
import type { World } from "./world.js"

/** @internal */
export const createCases = (get: () => World, timeout: number) => {
  it("D11 create: the same Tender id sent again reaches the payment the provider holds, never a second one", async () => {
    const w = get()
    const { record } = await w.run(w.created("succeeded"))
    const sent = w.recorder.creates.find((r) => r.paymentIntentId === record.id)
    assert.isDefined(sent, "Tender asked the adapter to create the payment")
    const again = await w.run(w.provider.createPayment(sent!))
    assert.strictEqual(again.providerPaymentId, record.providerPaymentId)
    const held = await paymentsAt(w, record.id)
    if (held !== undefined) assert.strictEqual(held, 1, "payments the provider holds under the Tender id")
  }, timeout)

  it("D11 create: two creates racing with one Tender id reach one payment at the provider", async () => {
    const w = get()
    const request = w.requestFor(w.freshIntentId())
    const [a, b] = await w.run(Effect.all([w.provider.createPayment(request), w.provider.createPayment(request)], { concurrency: "unbounded" }))
    assert.strictEqual(a!.providerPaymentId, b!.providerPaymentId)
    const held = await paymentsAt(w, request.paymentIntentId)
    if (held !== undefined) assert.strictEqual(held, 1, "payments the provider holds under the Tender id")
  }, timeout)

  it("4.1 create: the intent shows the provider's payer action, of the next_action type the method declares", async () => {
    const w = get()
    const { answer } = await w.run(w.created("succeeded"))
    assert.include(["requires_action", "processing"], answer["status"])
    if (answer["status"] === "requires_action") assert.strictEqual(answer["next_action"]?.type, w.method.nextActionType)
    else assert.isNull(answer["next_action"])
  }, timeout)
}
