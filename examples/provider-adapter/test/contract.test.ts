/**
 * The provider contract suite of @tender/testing on both Acme adapters, against the local
 * stand-in for Acme: what an adapter author runs on their own adapter. The driver is the
 * payer's side of Acme (`pay`, `decline`) and its books (charges, refunds); a confirm pays, and
 * Acme notifies Tender of every paid, declined or expired charge, which both adapters verify
 * and read (parseNotification); Tender's cancel reaches Acme (cancelPayment).
 */
import type { Provider } from "@tender/core"
import { ProviderContract } from "@tender/testing"
import { acmePay } from "../src/acme-pay.js"
import { AcmePay, FakeAcme } from "../src/index.js"

/** The contract's subject: one adapter on its own Acme, and how the test plays Acme's payer. */
const onAcme =
  (adapter: (baseUrl: string) => Provider.PaymentProvider) => async ({ notificationUrl }: ProviderContract.Harness): Promise<ProviderContract.Subject> => {
    const acme = await FakeAcme.start()
    acme.notifyTo(notificationUrl)
    return {
      provider: adapter(acme.url),
      environments: ["live"],
      driver: {
        // Acme's confirm pays, and it has no settling state: no "pending" or "processing".
        outcomes: ["succeeded", "failed", "canceled"],
        settle: async (payment, outcome) =>
          outcome === "succeeded"
            ? acme.pay(payment.providerPaymentId)
            : outcome === "canceled"
            ? acme.expire(payment.providerPaymentId)
            : acme.decline(payment.providerPaymentId, "do_not_honor"),
        // The payer pays one minor unit more: Acme's charge says what was paid.
        overpay: { pay: async (payment) => acme.pay(payment.providerPaymentId, String(BigInt(payment.amount) + 1n)) },
        paymentsAt: (paymentIntentId) => [...acme.charges.values()].filter((c) => c.reference === paymentIntentId).length,
        refundedAt: (payment) => acme.refunded(payment.providerPaymentId),
        providerCodes: ["do_not_honor", "exceeds_charge"]
      },
      close: acme.close
    }
  }

ProviderContract.suite(
  "AcmePay (Effect)",
  onAcme((baseUrl) => AcmePay.make({ apiKey: "acme_test_key", baseUrl, webhookSecret: FakeAcme.webhookSecret, timeoutMillis: 2_000 }))
)
ProviderContract.suite(
  "acme-pay.js (defineProvider)",
  onAcme((baseUrl) => acmePay({ apiKey: "acme_test_key", baseUrl, webhookSecret: FakeAcme.webhookSecret, timeoutMillis: 2_000 }))
)
