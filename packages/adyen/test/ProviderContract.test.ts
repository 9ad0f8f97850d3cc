/**
 * The provider contract suite of @tender/testing on @tender/adyen, against the Adyen stand-in:
 * the payer's side is the stand-in's (`pay`, `failPayment`, `settleRefund`, a CANCELLATION
 * item), which sends Adyen's HMAC-signed standard notifications to the suite's door, and its
 * books (payments and refunds) are what the provider holds. Checkout v72 has no read of a
 * payment by its pspReference, so the adapter learns outcomes by notification alone.
 */
import Adyen from "@adyen/api-library"
import * as AdyenStandIn from "@tender/adyen/testing"
import { ProviderContract } from "@tender/testing"
import { formatRefusals } from "@tender/testing/StandIn"
import { afterEach, expect } from "vitest"
import { adyen } from "../src/AdyenProvider.js"
import { HMAC_KEY, MERCHANT_ACCOUNT } from "./harness.js"

const OTHER_HMAC_KEY = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF"
const REFUSAL = "Not enough balance"
let standIn: AdyenStandIn.AdyenStandIn | undefined

afterEach(() => {
  const refusals = standIn?.refusals.splice(0) ?? []
  expect(refusals, formatRefusals(refusals)).toEqual([])
})

/** The request with every item's signature replaced by `sign` (or removed). */
const resigned = (
  genuine: { readonly headers: Record<string, string>; readonly body: Uint8Array },
  sign: ((item: Record<string, unknown>) => string) | null
) => {
  const notification = JSON.parse(Buffer.from(genuine.body).toString("utf8")) as {
    notificationItems: Array<{ NotificationRequestItem: Record<string, unknown> }>
  }
  for (const wrapper of notification.notificationItems) {
    const { additionalData: _signed, ...item } = wrapper.NotificationRequestItem
    wrapper.NotificationRequestItem = sign === null ? item : { ...item, additionalData: { hmacSignature: sign(item) } }
  }
  return { headers: genuine.headers, body: new Uint8Array(Buffer.from(JSON.stringify(notification), "utf8")) }
}

ProviderContract.suite("adyen", async ({ notificationUrl }) => {
  const s = await AdyenStandIn.start({ endpoints: [{ url: notificationUrl, hmacKey: HMAC_KEY }], merchantAccount: MERCHANT_ACCOUNT })
  standIn = s
  const signer = new Adyen.hmacValidator()
  const refundOf = (refundId: string) => [...s.refunds.values()].find((r) => r.reference === refundId)
  return {
    // A test account: the adapter serves test routes and nothing else. Merchant-mode payments
    // carry no return_url (4.1): Adyen sends the payer back to the host's page.
    provider: adyen({
      apiKey: "AQE_test_contract",
      merchantAccount: MERCHANT_ACCOUNT,
      hmacKey: HMAC_KEY,
      apiBase: s.apiBase,
      ca: s.ca,
      returnUrl: "https://merchant.example/return"
    }),
    environments: ["test"],
    driver: {
      // Adyen has no "paid, settling" state for PromptPay: its AUTHORISATION is the payment.
      outcomes: ["pending", "succeeded", "failed", "canceled"],
      settle: async (payment, outcome) => {
        const psp = payment.providerPaymentId
        if (outcome === "succeeded") await s.pay(psp)
        else if (outcome === "failed") await s.failPayment(psp, REFUSAL)
        else if (outcome === "canceled") {
          // Adyen's side (its Customer Area) cancels the payment and tells it by CANCELLATION.
          Object.assign(s.payments.get(psp)!, { resultCode: "Cancelled" })
          await s.notify([s.paymentItem(psp, "CANCELLATION", true)])
        } else throw new Error(`the Adyen stand-in cannot make a payment ${outcome}`)
      },
      // The payer pays one minor unit more: Adyen's AUTHORISATION carries what was paid.
      overpay: {
        pay: async (payment) => {
          const psp = payment.providerPaymentId
          const item = s.paymentItem(psp, "AUTHORISATION", true)
          Object.assign(s.payments.get(psp)!, { resultCode: "Authorised" })
          await s.notify([{ ...item, amount: { value: Number(BigInt(payment.amount) + 1n), currency: payment.currency } }])
        }
      },
      settleRefund: async (refund, outcome) => {
        const found = refundOf(refund.refundId)
        if (found === undefined) throw new Error(`Adyen holds no refund for ${refund.refundId}`)
        await s.settleRefund(found.pspReference, outcome)
      },
      paymentsAt: (paymentIntentId) => [...s.payments.values()].filter((p) => p.merchantReference === paymentIntentId).length,
      refundedAt: (payment) => String(s.payments.get(payment.providerPaymentId)?.refunded ?? 0),
      providerCodes: [REFUSAL, "Refused"],
      forge: (genuine) => [
        resigned(genuine, null),
        resigned(genuine, (item) => signer.calculateHmac(item as never, OTHER_HMAC_KEY))
      ]
    },
    close: () => s.close()
  }
})
