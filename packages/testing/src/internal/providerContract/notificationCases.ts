/**
 * Provider contract: notifications (D11), for adapters with `parseNotification`. The same
 * provider event delivered again acts once; a notification whose signed bytes changed, or that
 * the driver forged, is refused (400 `signature_invalid`) and nothing is stored; a payment
 * Tender does not know is answered as received and recorded as unmatched.
 */
import type { ProviderNotification } from "@tender/core"
import { Option } from "effect"
import { assert, it } from "vitest"
import type { World } from "./world.js"

const none = "the adapter takes no notifications (no parseNotification)"

/** The same request with the provider's payment id in its bytes changed (else one byte of it). */
const tampered = (request: ProviderNotification.ProviderNotificationRequest, providerPaymentId: string) => {
  const text = Buffer.from(request.body).toString("utf8")
  const last = providerPaymentId.slice(-1)
  const other = providerPaymentId.slice(0, -1) + (last === "0" ? "1" : "0")
  const changed = providerPaymentId !== "" && text.includes(providerPaymentId)
    ? text.split(providerPaymentId).join(other)
    : text.slice(0, text.length >> 1) + (text.charAt(text.length >> 1) === "0" ? "1" : "0") + text.slice((text.length >> 1) + 1)
  return { headers: request.headers, body: new Uint8Array(Buffer.from(changed, "utf8")) }
}

/** The requests the door got while `act` ran. */
const delivered = async (w: World, act: () => Promise<void>) => {
  const mark = w.door.received.length
  await act()
  return { requests: w.door.received.slice(mark), answers: await Promise.all(w.door.answers.slice(mark)) }
}

/** @internal */
export const notificationCases = (get: () => World, timeout: number) => {
  it("D11 notification: the same provider event delivered again is answered the same and acts once", async (ctx) => {
    const w = get()
    ctx.skip(w.provider.parseNotification === undefined, none)
    const { record, payment } = await w.run(w.created("succeeded"))
    const { requests, answers } = await delivered(w, () => w.driver.settle(payment, "succeeded"))
    assert.isNotEmpty(
      requests,
      "the driver's settle sent no notification to notificationUrl when the payer paid (a provider that notifies sends it before settle resolves)"
    )
    await w.run(w.drain)
    assert.strictEqual(
      (await w.run(w.intent(record.id))).status,
      "succeeded",
      "the adapter's parseNotification did not report the paid payment as PaymentSucceeded with its providerPaymentId and our paymentIntentId"
    )
    // Again, and several at once, as a provider retries after a lost answer.
    const again = await Promise.all(requests.flatMap((r) => [r, r, r]).map((r) => w.door.post(r)))
    assert.deepStrictEqual(
      again.map((a) => a.status),
      requests.flatMap((_, i) => [answers[i]!.status, answers[i]!.status, answers[i]!.status]),
      "the adapter answered a notification delivered again otherwise than the first time"
    )
    await w.run(w.drain)
    const events = await w.run(w.eventTypes(record.id))
    assert.deepStrictEqual(
      events.filter((t) => t === "payment_intent.succeeded"),
      ["payment_intent.succeeded"],
      "a notification delivered again acted twice: the adapter's eventId is not the provider's stable event id"
    )
    for (const request of requests) {
      for (const notice of await w.run(w.noticesIn(request))) {
        const stored = Option.getOrThrow(await w.run(w.stored(notice.eventId)))
        if (notice._tag === "PaymentSucceeded") {
          assert.deepStrictEqual(
            [stored.status, stored.resourceId],
            ["applied", record.id],
            `the adapter's notice ${notice.eventId} did not name the payment Tender made (providerPaymentId, paymentIntentId)`
          )
        }
      }
    }
  }, timeout)

  it("D11 notification: one whose signed bytes were changed, or forged by the driver, is refused 400 signature_invalid and nothing is stored", async (ctx) => {
    const w = get()
    ctx.skip(w.provider.parseNotification === undefined, none)
    const { record, payment } = await w.run(w.created("succeeded"))
    w.door.hold(true)
    let genuine: ReadonlyArray<ProviderNotification.ProviderNotificationRequest>
    try {
      genuine = (await delivered(w, () => w.driver.settle(payment, "succeeded"))).requests
    } finally {
      w.door.hold(false)
    }
    assert.isNotEmpty(
      genuine,
      "the driver's settle sent no notification to notificationUrl when the payer paid (a provider that notifies sends it before settle resolves)"
    )
    for (const request of genuine) {
      for (const forged of [tampered(request, payment.providerPaymentId), ...(w.driver.forge?.(request) ?? [])]) {
        const answer = await w.door.post(forged)
        assert.strictEqual(
          answer.status,
          400,
          `the adapter's parseNotification accepted a notification whose signed bytes were changed or forged (it must throw, or fail with NotificationUnverified): ${answer.body}`
        )
        assert.strictEqual(JSON.parse(answer.body).error.code, "signature_invalid", "a refused notification is 400 signature_invalid")
      }
      for (const notice of await w.run(w.noticesIn(request))) {
        assert.isTrue(Option.isNone(await w.run(w.stored(notice.eventId))), `a refused notification stored ${notice.eventId}`)
      }
    }
    await w.run(w.drain)
    assert.strictEqual((await w.run(w.intent(record.id))).status, "requires_action", "a refused notification moved the payment")
    // The genuine notification still does what it says.
    for (const request of genuine) assert.isBelow((await w.door.post(request)).status, 300, "the adapter refused the provider's genuine notification")
    await w.run(w.drain)
    assert.strictEqual(
      (await w.run(w.intent(record.id))).status,
      "succeeded",
      "the genuine notification, accepted, did not move the payment: the adapter's notice does not report it paid"
    )
  }, timeout)

  it("D11 notification: a payment Tender does not know is answered as received and recorded as unmatched", async (ctx) => {
    const w = get()
    ctx.skip(w.provider.parseNotification === undefined, none)
    // A payment made at the provider under an id Tender never gave out.
    const request = w.requestFor(w.freshIntentId())
    const result = await w.run(w.provider.createPayment(request))
    assert.isNotNull(result.providerPaymentId, "the adapter's createPayment answered no providerPaymentId")
    const payment = { ...request, providerPaymentId: result.providerPaymentId! }
    const { requests, answers } = await delivered(w, () => w.driver.settle(payment, "succeeded"))
    assert.isNotEmpty(
      requests,
      "the driver's settle sent no notification to notificationUrl when the payer paid (a provider that notifies sends it before settle resolves)"
    )
    for (const answer of answers) {
      assert.isBelow(
        answer.status,
        300,
        `the adapter refused a genuine notification of a payment Tender does not know (it must answer it as received): ${answer.body}`
      )
    }
    await w.run(w.drain)
    const notices = (await Promise.all(requests.map((r) => w.run(w.noticesIn(r))))).flat().filter((n) => n._tag !== "Ignored")
    assert.isNotEmpty(notices, "the adapter's parseNotification reported the payment as Ignored (or not at all)")
    for (const notice of notices) {
      assert.strictEqual(
        Option.getOrThrow(await w.run(w.stored(notice.eventId))).status,
        "unmatched",
        `the adapter's ${notice._tag} for a payment Tender never made matched one of Tender's: it names the wrong paymentIntentId or providerPaymentId`
      )
    }
  }, timeout)
}
