/**
 * Provider contract: the D11 amount guard, from every source of updates. The payer pays one
 * minor unit more than the payment asks (`Driver.overpay`); whichever way the adapter tells
 * Tender (a confirm, a poll, a cancel's answer, a notification), the intent is left as it is:
 * never `succeeded`, and a canceled one is not refunded an amount it was not paid.
 */
import { Effect } from "effect"
import { assert, it } from "vitest"
import type { World } from "./world.js"

const none = "the driver cannot make the payer pay another amount (Driver.overpay)"
const cannot = (what: string) => `the method cannot be ${what} at its provider (capabilities): it learns a payment's state by notifications`

/** A payment the payer paid one minor unit too much for, at the provider; Tender not told yet. */
const overpaid = (w: World) =>
  Effect.gen(function*() {
    const { record, payment } = yield* w.created("succeeded", w.driver.overpay?.amount)
    yield* Effect.promise(() => w.driver.overpay!.pay(payment))
    return { record, payment }
  })

/** With the provider's notifications held back: only the source under test tells Tender. */
const held = async <A>(w: World, body: () => Promise<A>): Promise<A> => {
  w.door.hold(true)
  try {
    return await body()
  } finally {
    w.door.hold(false)
  }
}

const unmoved = async (w: World, id: string, status: string) => {
  const after = await w.run(w.intent(id))
  assert.strictEqual(after.status, status)
  assert.notInclude(await w.run(w.eventTypes(id)), "payment_intent.succeeded")
}

/**
 * D11 a payment the payer overpaid, reported to Tender by `tell` alone (notifications held back),
 * leaves the intent `status`; `after` checks more while they are still held.
 */
const toldOnly = (w: World, tell: (id: string) => Promise<unknown>, status: string, after: (id: string) => Promise<void> = async () => {}) =>
  held(w, async () => {
    const { record } = await w.run(overpaid(w))
    await tell(record.id)
    await unmoved(w, record.id, status)
    await after(record.id)
  })

/** @internal */
export const guardCases = (get: () => World, timeout: number) => {
  it("D11 a confirm reporting another amount leaves the intent as it is", async (ctx) => {
    const w = get()
    ctx.skip(w.driver.overpay === undefined, none)
    ctx.skip(!w.can.confirm, cannot("confirmed"))
    await toldOnly(w, async (id) => {
      await w.run(w.confirm(id))
      await w.run(w.drain)
    }, "requires_action")
  }, timeout)

  it("D11 a poll reporting another amount leaves the intent as it is", async (ctx) => {
    const w = get()
    ctx.skip(w.driver.overpay === undefined, none)
    ctx.skip(!w.can.poll, cannot("polled"))
    await toldOnly(w, (id) => w.run(w.poll(id)), "requires_action")
  }, timeout)

  it("D11 D10 a cancel answered with a payment of another amount leaves the intent canceled and refunds nothing", async (ctx) => {
    const w = get()
    ctx.skip(w.driver.overpay === undefined, none)
    ctx.skip(w.provider.cancelPayment === undefined, "the adapter has no cancelPayment: Tender cannot tell the provider")
    await toldOnly(
      w,
      async (id) => {
        assert.strictEqual((await w.run(w.cancel(id))).status, 200)
        await w.run(w.drain)
      },
      "canceled",
      async (id) => {
        assert.lengthOf(await w.run(w.refundsOf(id)), 0)
      }
    )
  }, timeout)

  it("D11 a notification reporting another amount leaves the intent as it is", async (ctx) => {
    const w = get()
    ctx.skip(w.driver.overpay === undefined, none)
    ctx.skip(w.provider.parseNotification === undefined, "the adapter takes no notifications (no parseNotification)")
    const mark = w.door.received.length
    const { record } = await w.run(overpaid(w))
    assert.isAbove(w.door.received.length, mark, "the provider sent a notification to notificationUrl when the payer paid")
    await w.run(w.drain)
    await unmoved(w, record.id, "requires_action")
  }, timeout)
}
