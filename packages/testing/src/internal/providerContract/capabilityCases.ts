/**
 * Provider contract: capabilities. What a method declares it can do at its provider
 * (`Provider.capabilitiesOf`: confirm, poll, cancel, refund, receipt) is what Tender asks of the
 * adapter, and nothing more: a capability the method lacks is refused in Tender's words (a 4xx)
 * or never asked, and one it has reaches the adapter.
 */
import { Receipts } from "@tender/core"
import { Effect } from "effect"
import { assert, it } from "vitest"
import type { World } from "./world.js"

/** The smallest PNG a receipt upload takes (a 1x1 pixel). */
const png = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0)
)

const codeOf = (body: string): string | undefined => (JSON.parse(body) as { error?: { code?: string } }).error?.code

/** @internal */
export const capabilityCases = (get: () => World, timeout: number) => {
  it("capabilities: confirm (4.5) reaches the adapter only for a method that can be confirmed; otherwise 409 payment_intent_unexpected_state", async () => {
    const w = get()
    const { record } = await w.run(w.created("succeeded"))
    const before = w.recorder.calls.confirmPayment
    const answer = await w.run(w.confirm(record.id))
    await w.run(w.drain)
    if (w.can.confirm) {
      assert.strictEqual(answer.status, 200, `a confirm of a method that can be confirmed was refused: ${answer.body}`)
      assert.strictEqual(w.recorder.calls.confirmPayment, before + 1, "the confirm never reached the adapter's confirmPayment")
    } else {
      assert.deepStrictEqual([answer.status, codeOf(answer.body)], [409, "payment_intent_unexpected_state"], "a confirm the method cannot take is not refused")
      assert.strictEqual(w.recorder.calls.confirmPayment, before, "Tender asked the adapter to confirm a method that declares it cannot")
    }
  }, timeout)

  it("capabilities: a method that cannot be polled is never polled, even with a poll task due; one that can is asked", async () => {
    const w = get()
    const { record } = await w.run(w.created("succeeded"))
    const before = w.recorder.calls.getPaymentStatus
    await w.run(w.poll(record.id))
    assert.strictEqual(
      w.recorder.calls.getPaymentStatus,
      w.can.poll ? before + 1 : before,
      w.can.poll ? "a due poll of a method that can be polled never reached getPaymentStatus" : "Tender polled a method that declares it cannot be polled"
    )
  }, timeout)

  it("capabilities: D10 cancel tells the provider only for a method that can be canceled there, and the intent is canceled either way", async () => {
    const w = get()
    const { record } = await w.run(w.created("succeeded"))
    const before = w.recorder.calls.cancelPayment
    const answer = await w.run(w.cancel(record.id))
    assert.strictEqual(answer.status, 200, `Tender refused the cancel: ${answer.body}`)
    await w.run(w.drain)
    assert.strictEqual(w.recorder.calls.cancelPayment, w.can.cancel ? before + 1 : before, "cancelPayment was called against the method's capabilities")
    assert.strictEqual((await w.run(w.intent(record.id))).status, "canceled")
  }, timeout)

  it("capabilities: D10 a refund of a method that cannot be refunded is 422 refund_not_supported; one that can is taken (201)", async (ctx) => {
    const w = get()
    ctx.skip(!w.outcomes.includes("succeeded"), "the driver cannot make a payment succeeded (Driver.outcomes)")
    const answer = await w.run(Effect.flatMap(w.paid, ({ record }) => w.refundThrough(record.id)))
    if (w.can.refund) assert.strictEqual(answer.status, 201, `a refund of a refundable method was refused: ${JSON.stringify(answer.body)}`)
    else assert.deepStrictEqual([answer.status, answer.body["error"]?.code], [422, "refund_not_supported"])
  }, timeout)

  it("capabilities: 4.4 a receipt for a payment whose method takes none is 409 payment_intent_unexpected_state and never reaches the adapter", async (ctx) => {
    const w = get()
    const asks = w.method.nextActionType === "display_bank_transfer_instructions"
    ctx.skip(asks && w.can.receipt, "the method asks for receipts and its provider takes them (its own tests cover the receipt flow)")
    const { record } = await w.run(w.created("succeeded"))
    const before = w.recorder.calls.submitReceipt
    const answer = await w.run(Effect.flatMap(w.context(), (c) => Receipts.submit(c, record.id, { _tag: "File", bytes: png })))
    await w.run(w.drain)
    assert.deepStrictEqual([answer.status, codeOf(answer.body)], [409, "payment_intent_unexpected_state"])
    assert.strictEqual(w.recorder.calls.submitReceipt, before, "a refused receipt reached the adapter")
  }, timeout)
}
