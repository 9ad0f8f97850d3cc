/**
 * Provider contract: refunds (D10). A refund never passes the paid amount at the provider: a
 * full refund and partial ones are made once each (Tender's refund id is the provider's
 * idempotency key), Tender refuses an over-refund before asking the provider, and a provider
 * that keeps books refuses one sent straight to it.
 */
import { Ids } from "@tender/core"
import { Effect } from "effect"
import { assert, it } from "vitest"
import { refundedAt, tendersWords } from "./checks.js"
import type { World } from "./world.js"

const unsupported = (w: World) =>
  w.provider.refund === undefined ? "the adapter has no refund" : w.method.refunds === undefined ? `${w.method.method} declares no refunds` : null

/** A refund through Tender, settled at the provider; answers the refund as stored. */
const refunded = (w: World, paymentIntentId: string, payment: Parameters<World["settleRefund"]>[1], amount?: string) =>
  Effect.gen(function*() {
    const answer = yield* w.refundThrough(paymentIntentId, amount)
    assert.strictEqual(answer.status, 201, `Tender refused the refund: ${JSON.stringify(answer.body)}`)
    return yield* w.settleRefund(answer.body["id"], payment)
  })

/** The provider's books say `amount` of `payment` is refunded, when the driver can read them. */
const booksSay = async (w: World, payment: Parameters<World["settleRefund"]>[1], amount: string, when = "") => {
  const books = await refundedAt(w, payment)
  if (books !== undefined) {
    assert.strictEqual(
      books,
      amount,
      `the provider's books say another amount refunded${when}: the adapter sent the refund's amount wrongly, or refunded again under one refund id (send refundId as the provider's idempotency key)`
    )
  }
}

/** The world, the case skipped when the adapter or its method cannot refund. */
const refunding = (get: () => World, ctx: { skip: (condition: boolean, note?: string) => void }) => {
  const w = get()
  const why = unsupported(w)
  ctx.skip(why !== null, why ?? "")
  return w
}

/** @internal */
export const refundCases = (get: () => World, timeout: number) => {
  it("D10 refund: a full refund is made once at the provider, for the paid amount, however often it is sent", async (ctx) => {
    const w = refunding(get, ctx)
    const { record, payment } = await w.run(w.paid)
    const refund = await w.run(refunded(w, record.id, payment))
    assert.strictEqual(
      refund.status,
      "succeeded",
      `the adapter's refund did not succeed for a paid payment: ${refund.failureCode ?? ""} ${refund.failureMessage ?? ""}`
    )
    assert.strictEqual(refund.amount, record.amount, "a full refund is of the paid amount")
    assert.strictEqual((await w.run(w.intent(record.id))).amountRefunded, record.amount, "the payment's amount_refunded is not the refunded amount")
    await booksSay(w, payment, record.amount)
    // The refund task may run twice (D10): the same refund id refunds nothing more.
    const sent = w.recorder.refunds.find((r) => r.refundId === refund.id)
    assert.isDefined(sent, "Tender asked the adapter to refund")
    const again = await w.run(w.provider.refund!(sent!))
    assert.notStrictEqual(
      again._tag,
      "Failed",
      `the adapter's refund, sent again with the same refundId (a retried task), answered ${
        JSON.stringify(again)
      }: send refundId as the provider's idempotency key, so a retry answers the refund it made`
    )
    await booksSay(w, payment, record.amount, " after the refund was sent again")
  }, timeout)

  it("D10 refund: partial refunds add up to the paid amount; one more is refused before the provider is asked", async (ctx) => {
    const w = refunding(get, ctx)
    const { record, payment } = await w.run(w.paid)
    const half = (BigInt(record.amount) / 2n).toString()
    const rest = (BigInt(record.amount) - BigInt(half)).toString()
    const first = await w.run(refunded(w, record.id, payment, half))
    const second = await w.run(refunded(w, record.id, payment, rest))
    assert.deepStrictEqual([first.status, second.status], ["succeeded", "succeeded"], "the adapter failed a partial refund within the paid amount")
    assert.strictEqual((await w.run(w.intent(record.id))).amountRefunded, record.amount, "two partial refunds did not add up to the paid amount")
    await booksSay(w, payment, record.amount)
    const asked = w.recorder.refunds.filter((r) => r.payment.paymentIntentId === record.id).length
    const over = await w.run(w.refundThrough(record.id, "1"))
    assert.strictEqual(over.status, 409, `an over-refund was not refused by Tender: ${JSON.stringify(over.body)}`)
    assert.strictEqual(over.body["error"]?.code, "amount_exceeds_refundable", "an over-refund is 409 amount_exceeds_refundable")
    assert.strictEqual(w.recorder.refunds.filter((r) => r.payment.paymentIntentId === record.id).length, asked, "the provider was asked for the over-refund")
  }, timeout)

  it("D10 refund: a refund the provider fails is failed in Tender's words, and its amount is refundable again", async (ctx) => {
    const w = refunding(get, ctx)
    ctx.skip(w.driver.settleRefund === undefined, "refunds settle at once at this provider: the driver cannot fail one (Driver.settleRefund)")
    const { record, payment } = await w.run(w.paid)
    const answer = await w.run(w.refundThrough(record.id))
    assert.strictEqual(answer.status, 201, `Tender refused the refund: ${JSON.stringify(answer.body)}`)
    const failed = await w.run(w.settleRefund(answer.body["id"], payment, "failed"))
    assert.strictEqual(failed.status, "failed", "a refund the provider failed is not failed: the adapter's refund (or its notice) does not report Failed")
    tendersWords(w, await w.run(w.refundJson(failed.id)), failed.failureCode, failed.failureMessage)
    assert.strictEqual((await w.run(w.intent(record.id))).amountRefunded, "0", "a failed refund's amount is still counted as refunded")
    const again = await w.run(refunded(w, record.id, payment))
    assert.deepStrictEqual(
      [again.status, again.amount],
      ["succeeded", record.amount],
      "after a failed refund, a new refund of the whole amount did not succeed"
    )
    await booksSay(w, payment, record.amount)
  }, timeout)

  it("D10 refund: an over-refund sent straight to the provider is refused there, in Tender's words, and nothing more is refunded", async (ctx) => {
    const w = refunding(get, ctx)
    ctx.skip(w.driver.refundedAt === undefined, "the driver cannot read the provider's books (Driver.refundedAt)")
    const { record, payment } = await w.run(w.paid)
    const half = (BigInt(record.amount) / 2n).toString()
    const first = await w.run(refunded(w, record.id, payment, half))
    assert.strictEqual(first.status, "succeeded", "the adapter failed a partial refund within the paid amount")
    const sent = w.recorder.refunds.find((r) => r.refundId === first.id)!
    const over = { ...sent, refundId: Ids.prefixes.refund + Ids.randomBase62(), amount: record.amount }
    const answer = await w.run(w.provider.refund!(over))
    if (answer._tag !== "Failed") return assert.fail(`the provider answered ${answer._tag} to refunding more than was paid`)
    tendersWords(w, JSON.stringify(answer), answer.failureCode, answer.failureMessage)
    await booksSay(w, payment, half)
  }, timeout)
}
