/**
 * The provider contract suite of @tender/testing on the simulator (D9): its outcomes follow
 * from magic amounts, and the payer's word reaches Tender as the simulator's signed
 * notifications (docs/test-environment.md#notifications), sent here by the driver.
 */
import { ProviderContract } from "@tender/testing"
import { Simulator } from "../src/index.js"

const amounts: Record<Exclude<ProviderContract.Outcome, "canceled">, string> = {
  pending: Simulator.magicAmounts.expireSoon,
  succeeded: "150000",
  failed: Simulator.magicAmounts.declineOnConfirm,
  processing: Simulator.magicAmounts.slowConfirmation
}

const signed = (body: string, secret?: string, timestamp = Math.floor(Date.now() / 1000)) => ({
  [Simulator.signatureHeader]: Simulator.signNotification({ body, secret, timestamp })
})

ProviderContract.suite("simulator", async ({ notificationUrl }) => {
  let events = 0
  const send = async (payment: ProviderContract.Payment, outcome: string, amount = payment.amount) => {
    const body = JSON.stringify({
      id: `evt_sim_contract_${++events}_${Date.now()}`,
      type: `payment.${outcome}`,
      data: {
        payment_intent: payment.paymentIntentId,
        provider_payment_id: payment.providerPaymentId,
        amount,
        currency: payment.currency,
        ...(outcome === "failed" ? { failure_code: "payment_declined", failure_message: "The provider declined the payment." } : {})
      }
    })
    await fetch(notificationUrl, { method: "POST", headers: { "content-type": "application/json", ...signed(body) }, body })
  }
  return {
    provider: Simulator.make(),
    // D9: the simulator serves the test environment alone.
    environments: ["test"],
    driver: {
      // The simulator never ends a payment on its own: its expiry is Tender's (40801).
      outcomes: ["pending", "succeeded", "failed", "processing"],
      amount: (outcome) => outcome === "canceled" ? "150000" : amounts[outcome],
      // The simulator holds no payments: the payer's word is its signed notification.
      settle: (payment, outcome) => send(payment, outcome),
      // The payer pays one minor unit more (40902): the simulator's answers and its notification say so.
      overpay: {
        amount: Simulator.magicAmounts.overpaid,
        pay: (payment) => send(payment, "succeeded", String(BigInt(payment.amount) + 1n))
      },
      forge: (genuine) => {
        const body = Buffer.from(genuine.body).toString("utf8")
        return [
          { headers: signed(body, "not-the-simulator-secret"), body: genuine.body },
          { headers: signed(body, undefined, Math.floor(Date.now() / 1000) - 3600), body: genuine.body },
          { headers: { "content-type": "application/json" }, body: genuine.body }
        ]
      }
    }
  }
})
