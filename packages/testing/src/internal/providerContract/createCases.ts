/**
 * Provider contract: create (4.1, D11). Tender's payment intent id is the provider's
 * idempotency key, so a create sent again (a retry, a task run twice) reaches the payment the
 * provider already holds; the payer action is the one the method declares.
 */
import { Effect } from "effect"
import { assert, it } from "vitest"
import { holdsOnePayment } from "./checks.js"
import type { World } from "./world.js"

/** @internal */
export const createCases = (get: () => World, timeout: number) => {
  it("D11 create: the same Tender id sent again reaches the payment the provider holds, never a second one", async () => {
    const w = get()
    const { record } = await w.run(w.created("succeeded"))
    const sent = w.recorder.creates.find((r) => r.paymentIntentId === record.id)
    assert.isDefined(sent, "Tender asked the adapter to create the payment")
    const again = await w.run(w.provider.createPayment(sent!))
    assert.strictEqual(
      again.providerPaymentId,
      record.providerPaymentId,
      "the adapter's createPayment, sent again with the same paymentIntentId, made another payment: send paymentIntentId as the provider's idempotency key"
    )
    await holdsOnePayment(w, record.id)
  }, timeout)

  it("D11 create: two creates racing with one Tender id reach one payment at the provider", async () => {
    const w = get()
    const request = w.requestFor(w.freshIntentId())
    const [a, b] = await w.run(Effect.all([w.provider.createPayment(request), w.provider.createPayment(request)], { concurrency: "unbounded" }))
    assert.strictEqual(
      a!.providerPaymentId,
      b!.providerPaymentId,
      "two creates racing with one paymentIntentId got two provider payments: send paymentIntentId as the provider's idempotency key"
    )
    await holdsOnePayment(w, request.paymentIntentId)
  }, timeout)

  it("4.1 create: the intent shows the provider's payer action, of the next_action type the method declares", async () => {
    const w = get()
    const { answer } = await w.run(w.created("succeeded"))
    assert.include(
      ["requires_action", "processing"],
      answer["status"],
      `the adapter's createPayment for a payment the payer will pay did not answer Action or Processing: ${JSON.stringify(answer)}`
    )
    if (answer["status"] === "requires_action") {
      assert.strictEqual(
        answer["next_action"]?.type,
        w.method.nextActionType,
        `the adapter's nextAction is not of the type ${w.method.method} declares (nextActionType)`
      )
    } else assert.isNull(answer["next_action"], "a Processing answer has no next_action")
  }, timeout)
}
