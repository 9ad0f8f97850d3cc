/**
 * A provider that keeps its payments by idempotency key, as Stripe and Adyen do, and can lose its
 * answers: the lost-answer tests' provider (ProviderAttempts.test.ts, OrphanAttempts.test.ts). Not
 * a test file itself.
 */
import { Effect } from "effect"
import { Provider, type ProviderNotification, Simulator } from "../src/index.js"

interface Held {
  readonly id: string
  status: "open" | "paid" | "canceled"
}

/** A provider that keeps its payments by idempotency key and, while `lose` is set, acts on a create and loses the answer. */
export const lossy = (code: string) => {
  const sim = Simulator.make()
  const payments = new Map<string, Held>()
  const refunds = new Map<string, { readonly paymentId: string; readonly amount: string }>()
  const state = { lose: true, creates: 0, cancels: 0 }
  const byId = (id: string) => [...payments.values()].find((p) => p.id === id)!
  const provider: Provider.PaymentProvider = {
    ...sim,
    code,
    createPayment: (request) =>
      Effect.suspend(() => {
        state.creates++
        const held = payments.get(request.paymentIntentId) ?? { id: `pay_${code}_${payments.size + 1}`, status: "open" as const }
        payments.set(request.paymentIntentId, held)
        if (state.lose) return Effect.fail(new Provider.ProviderUnavailable({ provider: code, reason: "timed out" }))
        return Effect.map(sim.createPayment(request), (r) => ({ ...r, providerPaymentId: held.id }) as Provider.ProviderPaymentResult)
      }),
    cancelPayment: (ref) =>
      Effect.sync((): Provider.ProviderCancelResult => {
        state.cancels++
        const held = byId(ref.providerPaymentId)
        if (held.status === "paid") return { _tag: "Succeeded" }
        held.status = "canceled"
        return { _tag: "Canceled" }
      }),
    refund: (r) =>
      Effect.sync((): Provider.ProviderRefundStatus => {
        refunds.set(r.refundId, { paymentId: r.payment.providerPaymentId, amount: r.amount })
        return { _tag: "Succeeded" }
      }),
    parseNotification: (request) =>
      Effect.succeed({
        notices: [JSON.parse(new TextDecoder().decode(request.body)) as ProviderNotification.ProviderNotice],
        answer: { status: 200, contentType: "text/plain", body: "ok" }
      })
  }
  /** The payer pays the payment the provider holds for intent `intentId` (its answer never reached Tender). */
  const pay = (intentId: string) => {
    const held = payments.get(intentId)!
    held.status = "paid"
    return held
  }
  return { provider, payments, refunds, state, pay }
}
