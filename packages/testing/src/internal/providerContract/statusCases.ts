/**
 * Provider contract: status mapping. What the provider reports of a payment becomes the
 * intent's status (3.1): by Tender asking the adapter (a confirm, 4.5) with notifications held
 * back, and by the provider's notification alone (D11). A decline is told in Tender's words,
 * and Tender's cancel reaches the provider (D10).
 */
import { Effect } from "effect"
import { assert, it } from "vitest"
import { tendersWords } from "./checks.js"
import type { Outcome } from "./models.js"
import type { World } from "./world.js"

const expected: Record<Outcome, string> = {
  pending: "requires_action",
  succeeded: "succeeded",
  failed: "failed",
  processing: "processing",
  // Tender's intent has no status for a payment its provider ended: it failed, in Tender's words.
  canceled: "failed"
}

const told: Record<Outcome, string> = {
  pending: "the payer has not paid",
  succeeded: "the payer paid",
  failed: "the provider declined",
  processing: "the payer paid and the provider is settling",
  canceled: "the provider ended the payment unpaid"
}

const unsupported = (outcome: Outcome) => `the driver cannot make a payment ${outcome} (Driver.outcomes)`

/** Create a payment ending in `outcome`, settle it at the provider, and let Tender learn it. */
const walk = (w: World, outcome: Outcome, confirm: boolean) =>
  Effect.gen(function*() {
    const { record, payment } = yield* w.created(outcome)
    if (outcome !== "pending") yield* Effect.promise(() => w.driver.settle(payment, outcome))
    yield* w.drain
    if (confirm) {
      yield* w.confirm(record.id)
      yield* w.drain
    }
    return yield* w.intent(record.id)
  })

/** @internal */
export const statusCases = (get: () => World, timeout: number) => {
  for (const outcome of ["pending", "succeeded", "failed", "processing", "canceled"] as const) {
    it(`4.5 confirm: ${told[outcome]} -> the intent is ${expected[outcome]} when Tender asks the adapter (notifications held back)`, async (ctx) => {
      const w = get()
      ctx.skip(!w.outcomes.includes(outcome), unsupported(outcome))
      ctx.skip(!w.can.confirm, "the method cannot be confirmed at its provider (capabilities): the capability cases check a confirm is refused")
      w.door.hold(true)
      try {
        const after = await w.run(walk(w, outcome, true))
        assert.strictEqual(
          after.status,
          expected[outcome],
          `when ${told[outcome]}, the adapter's confirmPayment answered what made the intent ${after.status}, not ${expected[outcome]}`
        )
        if (after.status === "failed") tendersWords(w, await w.run(w.json(after.id)), after.failureCode, after.failureMessage)
      } finally {
        w.door.hold(false)
      }
    }, timeout)
  }

  for (const outcome of ["succeeded", "failed", "processing", "canceled"] as const) {
    it(`D11 notification: ${told[outcome]} -> the intent is ${expected[outcome]} from the provider's notification alone`, async (ctx) => {
      const w = get()
      ctx.skip(w.provider.parseNotification === undefined, "the adapter takes no notifications (no parseNotification)")
      ctx.skip(!w.outcomes.includes(outcome), unsupported(outcome))
      const after = await w.run(walk(w, outcome, false))
      assert.strictEqual(
        after.status,
        expected[outcome],
        `when ${told[outcome]}, the adapter's parseNotification reported what made the intent ${after.status}, not ${
          expected[outcome]
        } (or the driver's settle sent no notification)`
      )
      if (after.status === "failed") tendersWords(w, await w.run(w.json(after.id)), after.failureCode, after.failureMessage)
    }, timeout)
  }

  it("D11 D1 a declined payment shows Tender's failure code and message, never the provider's own codes", async (ctx) => {
    const w = get()
    ctx.skip(!w.outcomes.includes("failed"), unsupported("failed"))
    const after = await w.run(Effect.gen(function*() {
      const { record, payment } = yield* w.created("failed")
      yield* Effect.promise(() => w.driver.settle(payment, "failed"))
      return yield* w.learn(record.id)
    }))
    assert.strictEqual(after.status, "failed", "a declined payment is not failed: the adapter does not report the decline")
    const shown = [await w.run(w.json(after.id)), JSON.stringify(await w.run(w.events(after.id)))].join("\n")
    tendersWords(w, shown, after.failureCode, after.failureMessage)
  }, timeout)

  it("D10 cancel: Tender's cancel stops the payment at the provider, and the cancel sent again answers the same", async (ctx) => {
    const w = get()
    ctx.skip(w.provider.cancelPayment === undefined, "the adapter has no cancelPayment: Tender cannot tell the provider")
    const { record, payment } = await w.run(w.created("succeeded"))
    const answer = await w.run(w.cancel(record.id))
    assert.strictEqual(answer.status, 200, `Tender refused the cancel: ${answer.body}`)
    await w.run(w.drain)
    assert.strictEqual(
      (await w.run(w.intent(record.id))).status,
      "canceled",
      "the canceled intent moved on: the adapter's cancelPayment reported the unpaid payment paid"
    )
    const ref = w.ref(payment, record.createdAt)
    // The cancel task may run twice (D10): the provider's answer stays the same.
    assert.deepStrictEqual(
      await w.run(w.provider.cancelPayment!(ref)),
      { _tag: "Canceled" },
      "the adapter's cancelPayment, sent again for a canceled payment (a retried task), did not answer Canceled again"
    )
    if (w.provider.getPaymentStatus === undefined) return
    const status = await w.run(w.provider.getPaymentStatus(ref))
    assert.notInclude(
      ["Succeeded", "Processing"],
      status._tag,
      "after the adapter's cancelPayment the provider still takes the payment: cancelPayment did not stop it at the provider"
    )
  }, timeout)
}
