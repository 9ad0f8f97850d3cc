/**
 * The simulated payer (D9): what a payer does outside our page — scans the QR code, makes the
 * transfer, approves or declines at the bank — for an intent the simulator serves in the `test`
 * environment, so a new user completes a hosted payment in the browser. Each action reaches
 * the intent the way the real event would: a scan, a bank approval or a decline as what the
 * provider then tells (for a payment, its confirm's answer: magic amounts apply as for 4.5), sent
 * as the simulator's signed notification to the door every provider's notifications take
 * (`ProviderNotifications.receive`, D11) and applied by its task; a transfer as its slip uploaded
 * as the receipt (4.4).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as HostedPayment from "../paymentIntents/HostedPayment.js"
import type { PaymentIntentRecord } from "../paymentIntents/PaymentIntent.js"
import { providerRef } from "../paymentIntents/PaymentIntentLifecycle.js"
import { adapterOf } from "../providers/ProviderAccounts.js"
import * as ProviderNotifications from "../providers/ProviderNotifications.js"
import * as Simulator from "./Simulator.js"

/** The payer actions the simulator knows. @since 0.1.0 @category models */
export type PayerAction = "scan_done" | "transfer_made" | "bank_approved" | "bank_declined"

/**
 * The actions a payer can take now on `intent`: none outside `test` (D9: live keys never reach
 * the simulator), none for another provider, none once no payer action remains.
 *
 * @since 0.1.0
 */
export const actionsFor = (intent: PaymentIntentRecord): ReadonlyArray<PayerAction> => {
  if (intent.environment !== "test" || intent.providerCode !== Simulator.code || intent.status !== "requires_action") return []
  // A hosted intent's action at the provider is `hostedAction`; a merchant-mode intent's is `next_action`.
  switch ((intent.hostedAction ?? (intent.checkoutMode === "merchant" ? intent.nextAction : null))?.type) {
    case "display_qr_code":
      return ["scan_done"]
    case "display_bank_transfer_instructions":
      return intent.receipt?.status === "required" ? ["transfer_made"] : []
    case "redirect_to_url":
      return ["bank_approved", "bank_declined"]
    case undefined:
      return []
  }
}

/** A transfer slip for `transfer_made`: a 1x1 white PNG, which the simulator accepts as any receipt. */
const sampleSlip = Uint8Array.from(
  Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC", "base64")
)

/** What the simulator tells Tender of `intent`'s payment, signed, through the door every provider's notifications take (D11). */
const tell = (simulator: Simulator.SimulatorProvider, intent: PaymentIntentRecord, id: string, type: string, data: Simulator.SimulatorEvent["data"]) =>
  Effect.gen(function*() {
    const request = yield* simulator.payerNotification({
      id: `evt_payer_${intent.id}_${id}`,
      type,
      livemode: false,
      data: { payment_intent: intent.id, provider_payment_id: intent.providerPaymentId!, ...data }
    })
    // An intent on a merchant's own simulator account (D13) is told at that account's door, signed with its secret.
    yield* ProviderNotifications.receive(Simulator.code, request, intent.providerAccount ?? undefined).pipe(
      Effect.catchTags({
        // The simulator signs with its own secret: a refusal is a defect, never the payer's.
        NotificationUnverified: (e) => Effect.dieMessage(`the simulator's own notification was refused: ${e.reason}`),
        UnknownNotificationProvider: (e) => Effect.dieMessage(`the simulator takes no notifications: ${e.provider}`)
      })
    )
  })

/**
 * Perform `action` on `intent`. `false` when the action is not available for it now
 * (`actionsFor`), or the simulator installed cannot sign its payer's notifications, so the
 * caller answers as for any stale form.
 *
 * @since 0.1.0
 */
export const act = (intent: PaymentIntentRecord, action: PayerAction) =>
  Effect.gen(function*() {
    if (!actionsFor(intent).includes(action)) return false
    const simulator = yield* adapterOf(intent)
    if (!Simulator.isSimulator(simulator)) return false
    switch (action) {
      case "scan_done":
      case "bank_approved": {
        // The payer paid: the simulator says what came of it as its confirm would (magic amounts
        // as for 4.5), and tells Tender so. A payer who never pays (40801) tells nothing.
        const ref = providerRef(intent)!
        const answer = yield* Effect.orDie(simulator.confirmPayment(ref))
        switch (answer._tag) {
          case "Succeeded":
            yield* tell(simulator, intent, action, "payment.succeeded", {
              amount: answer.amount ?? intent.amount,
              currency: answer.currency ?? intent.currency
            })
            break
          case "Failed":
            yield* tell(simulator, intent, action, "payment.failed", { failure_code: answer.failureCode, failure_message: answer.failureMessage })
            break
          case "Processing":
            yield* tell(simulator, intent, action, "payment.processing", {})
            break
          case "Action":
          case "Pending":
          case "Canceled":
            break
        }
        return true
      }
      case "transfer_made": {
        const answer = yield* HostedPayment.submitReceipt(intent, sampleSlip)
        return answer.status < 400
      }
      case "bank_declined": {
        yield* tell(simulator, intent, action, "payment.failed", {
          failure_code: "payment_declined",
          failure_message: "The payer declined the payment at their bank."
        })
        return true
      }
    }
  })
